// What the copy tests share: random bytes, and one SM copy checked byte for byte with poisoned bytes on
// both sides of its destination.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "copies.cuh"

namespace bandwidth::copy_checks {

inline std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  fill_random(v, seed);
  return v;
}

/// An SM copy by name: the lesson's launch_sm_copy, a tuned one beyond the lesson, a rung.
struct NamedCopy {
  std::string name;
  void (*launch)(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
};

/// Poisoned bytes kept on both sides of every checked destination.
inline constexpr std::size_t pad = 64;

/// Copies `n` bytes from `src + src_offset` to `dst + pad + dst_offset` with `copy`, the destination
/// poisoned first from its start to `pad` bytes past the copy, and reads it all back. Returns "" when
/// the copy is exact and nothing around it was written, else what went wrong. `data` is what `src` holds.
inline std::string checked_copy(const NamedCopy& copy, course::DeviceBuffer<unsigned char>& dst,
                                const course::DeviceBuffer<unsigned char>& src, const std::vector<unsigned char>& data,
                                std::size_t n, std::size_t src_offset, std::size_t dst_offset) {
  const std::size_t begin = pad + dst_offset;
  if (begin + n + pad > dst.size() || src_offset + n > src.size()) return "test error: buffers too small";
  CUDA_CHECK(cudaMemset(dst.data(), poison_byte, begin + n + pad));
  copy.launch(dst.data() + begin, src.data() + src_offset, n, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> back(begin + n + pad);
  CUDA_CHECK(cudaMemcpy(back.data(), dst.data(), back.size(), cudaMemcpyDeviceToHost));
  const auto is_poison = [](unsigned char b) { return b == poison_byte; };
  std::ostringstream what;
  what << copy.name << ", " << n << " bytes, src offset " << src_offset << ", dst offset " << dst_offset << ": ";
  if (!std::all_of(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(begin), is_poison))
    return what.str() + "wrote before the destination";
  const auto mismatch = std::mismatch(back.begin() + static_cast<std::ptrdiff_t>(begin),
                                      back.begin() + static_cast<std::ptrdiff_t>(begin + n),
                                      data.begin() + static_cast<std::ptrdiff_t>(src_offset));
  if (mismatch.first != back.begin() + static_cast<std::ptrdiff_t>(begin + n))
    return what.str() + "byte " + std::to_string(mismatch.first - back.begin() - static_cast<std::ptrdiff_t>(begin)) +
           " is wrong";
  if (!std::all_of(back.begin() + static_cast<std::ptrdiff_t>(begin + n), back.end(), is_poison))
    return what.str() + "wrote past the end";
  return "";
}

/// Sizes that are not multiples of 16, below and above one int4, one 256-int4 tile (4 KiB), and the
/// tiles of the tuned copies (1024 and 2048 int4s = 16 and 32 KiB), up to 3 MiB + 13.
inline const std::vector<std::size_t>& awkward_sizes() {
  static const std::vector<std::size_t> sizes{1,     2,         3,             15,    16,    17,         31,
                                              33,    255,       256,           4095,  4097,  16383,      16385,
                                              32767, 32768 + 17, 65535,        65541, 65536 * 3 + 9,
                                              (std::size_t{1} << 20) + 7, (std::size_t{3} << 20) + 13};
  return sizes;
}

/// Where copies start relative to a 16-byte boundary: pairs of these give aligned, equally misaligned and
/// mutually misaligned copies.
inline constexpr std::size_t offsets[] = {0, 1, 3, 8, 15};

}  // namespace bandwidth::copy_checks
