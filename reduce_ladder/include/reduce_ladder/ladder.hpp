/// \file ladder.hpp
/// \brief The reduction ladder's shared host API (the three reduction chapters link it): a rung of the
/// ladder is a Variant (data, not a switch), every launcher has the same signature, and partial sums
/// are always finished on the device.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/buffers.cuh"

namespace reduce {

/// Grid and block of one launch. grid == 0 means "chosen by a library" (the CUB row).
struct LaunchShape {
  unsigned grid = 0;
  unsigned block = 0;
};

/// Device scratch every launcher may use: per-block partial sums (or CUB's temporary storage) and the
/// arrival ticket of the single-pass kernels. Allocated once, outside any timed region.
class Workspace {
 public:
  /// `scratch_bytes` of scratch (at least 8) and one ticket, set to zero.
  explicit Workspace(std::size_t scratch_bytes);
  /// Scratch viewed as `count` elements of T; throws std::logic_error if it is too small.
  template <class T>
  T* partials(std::size_t count) {
    require(count * sizeof(T));
    return reinterpret_cast<T*>(scratch_.data());
  }
  void* scratch() noexcept { return scratch_.data(); }
  std::size_t scratch_bytes() const noexcept { return scratch_.size(); }
  /// The single-pass kernels' ticket: zero between launches (the last block resets it).
  unsigned* ticket() noexcept { return ticket_.data(); }
  /// Fills the scratch with 0xFF bytes, so that a partial a kernel forgot to write cannot pass as zero.
  void poison() { scratch_.fill_bytes(0xff); }

 private:
  void require(std::size_t bytes) const;
  course::DeviceBuffer<std::byte> scratch_;
  course::DeviceBuffer<unsigned> ticket_;
};

/// Sums n ints into one 64-bit integer at `*result` (device pointer), enqueued on `stream`.
using SumIntFn = void (*)(const int* input, std::size_t n, long long* result, LaunchShape shape,
                          Workspace& workspace, cudaStream_t stream);
/// Sums n floats into one float at `*result`; the order of the additions is the kernel's own.
using SumFloatFn = void (*)(const float* input, std::size_t n, float* result, LaunchShape shape,
                            Workspace& workspace, cudaStream_t stream);
/// The launch shape a rung uses for n elements, a requested block size and the device's SM count.
using ShapeFn = LaunchShape (*)(std::size_t n, unsigned block, int sm_count);
/// Scratch bytes a rung needs for n elements in `shape` (nullptr: one 64-bit partial per block).
using ScratchFn = std::size_t (*)(std::size_t n, LaunchShape shape);

/// One rung of the ladder (course::select_variants and friends walk a table of them).
struct Variant {
  const char* name;          ///< our name, used in tables, tests, --variants and the lesson
  const char* teaches;       ///< what this rung teaches, one line
  const char* book_name;     ///< the source's name (crosswalk), e.g. "reduceNeighbored"
  const char* grid_formula;  ///< how the grid is sized, as text for the docs
  ShapeFn shape;
  SumIntFn sum_int;
  SumFloatFn sum_float;
  ScratchFn scratch_bytes = nullptr;
};

/// Scratch bytes `variant` needs (its own formula, or one 64-bit partial per block).
std::size_t scratch_bytes_for(const Variant& variant, std::size_t n, LaunchShape shape);

/// Throws course::UsageError unless `block` is a power of two in [64, 1024] (the ladder's kernels need
/// whole warps, two of them at least, and a power-of-two tree).
void validate_block(long long block);

/// ceil(a / b) for b > 0.
constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// One block per `elements_per_block` elements: the book's grid formula. Throws UsageError when the
/// grid would exceed the device limit (2^31 - 1 blocks).
LaunchShape blocks_covering(std::size_t n, unsigned block, std::size_t elements_per_block);

/// One element per thread, ceil(n / block) blocks: the grid of the rungs that load one element each.
LaunchShape one_element_per_thread(std::size_t n, unsigned block, int sm_count);

/// Sums `count` per-block partials on the device into `*result` with one block of 1024 threads (the
/// second, tiny launch of every two-pass rung). Instantiated for long long and float.
template <class Acc>
void launch_sum_partials(const Acc* partials, unsigned count, Acc* result, cudaStream_t stream);

/// Deterministic test and benchmark data: ints in [lo, hi), reproducible from `seed`.
std::vector<int> random_ints(std::size_t n, int lo, int hi, std::uint64_t seed);
/// Deterministic floats in [lo, hi).
std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t seed);

/// The CPU reference: an exact 64-bit sum.
long long reference_sum(std::span<const int> values);
/// The CPU reference for floats: a long double sum, and the sum of magnitudes (for the tolerance).
struct FloatReference {
  long double sum = 0;
  long double sum_abs = 0;
};
FloatReference reference_sum(std::span<const float> values);

}  // namespace reduce
