// Grading probe of exercise 02.2 (common/probe.hpp): split_for_vectors (src/vector_split.cpp, the
// student's file, linked as the tests link it) on pointer values and sizes drawn from the grader's seed.
// The contract fixes the answer (the body starts at dst's first 16-byte boundary; head, body and tail
// cover every byte; {false, 0, 0, 0} for pointers that disagree modulo 16), so the probe writes each
// split raw, as four integers (vectorizable, head_bytes, vector_count, tail_bytes), and judges nothing:
// the grader compares them with the instructor build's, exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "vector_split.hpp"

namespace {

using course::probe::mix;
using course::probe::Random;

// Pointer values only: split_for_vectors never dereferences them.
const void* address(std::uintptr_t value) { return reinterpret_cast<const void*>(value); }

void append_split(std::vector<long long>& out, std::uintptr_t dst, std::uintptr_t src, std::size_t bytes) {
  const bandwidth::VectorSplit s = bandwidth::split_for_vectors(address(dst), address(src), bytes);
  // Wrapped-around counts (a wrong answer) stay visible: the bits as a signed 64-bit integer.
  out.push_back(s.vectorizable ? 1 : 0);
  out.push_back(static_cast<long long>(s.head_bytes));
  out.push_back(static_cast<long long>(s.vector_count));
  out.push_back(static_cast<long long>(s.tail_bytes));
}

std::string pair_label(std::uintptr_t dst_offset, std::uintptr_t src_offset) {
  return "dst%16=" + std::to_string(dst_offset) + " src%16=" + std::to_string(src_offset);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "02.2", false);
  course::probe::Cases cases("02.2", options.seed);
  Random random(mix(options.seed, 0x0202));
  // Two unrelated bases as cudaMalloc gives them (256-byte aligned), drawn from the seed.
  const std::uintptr_t dst_base = std::uintptr_t{0x7f00'0000'0000} + random.below(1u << 20) * 256;
  const std::uintptr_t src_base = std::uintptr_t{0x7e00'0000'0000} + random.below(1u << 20) * 256;

  // Every pair of misalignments. Pointers that agree modulo 16 (a head, a body, a tail): every size from
  // 0 to 4 KiB + 64, as the tests walk them. Pointers that disagree: the small sizes, either side of
  // 4 KiB, and sizes drawn from the seed.
  std::vector<std::size_t> drawn_sizes;
  for (int k = 0; k < 6; ++k) drawn_sizes.push_back(static_cast<std::size_t>(random.next() >> (24 + random.below(40))));
  for (std::uintptr_t dst_offset = 0; dst_offset < 16; ++dst_offset)
    for (std::uintptr_t src_offset = 0; src_offset < 16; ++src_offset) {
      const std::uintptr_t dst = dst_base + dst_offset, src = src_base + src_offset;
      std::vector<long long> splits;
      if (dst_offset == src_offset) {
        for (std::size_t bytes = 0; bytes <= 4096 + 64; ++bytes) append_split(splits, dst, src, bytes);
        cases.add_exact(pair_label(dst_offset, src_offset) + " bytes=0..4160", splits);
      } else {
        for (std::size_t bytes = 0; bytes <= 40; ++bytes) append_split(splits, dst, src, bytes);
        for (std::size_t bytes = 4094; bytes <= 4098; ++bytes) append_split(splits, dst, src, bytes);
        cases.add_exact(pair_label(dst_offset, src_offset) + " bytes=0..40,4094..4098", splits);
      }
      // The source 16 bytes further on too: the pointers agree modulo 16, not in address.
      std::vector<long long> drawn;
      for (const std::size_t bytes : drawn_sizes) {
        append_split(drawn, dst, src, bytes);
        append_split(drawn, dst, src + 16, bytes);
      }
      std::string sizes_text;
      for (const std::size_t bytes : drawn_sizes) {
        if (!sizes_text.empty()) sizes_text += ",";
        sizes_text += std::to_string(bytes);
      }
      cases.add_exact(pair_label(dst_offset, src_offset) + " drawn bytes=" + sizes_text, drawn);
    }

  // Addresses anywhere and sizes up to 2^40, drawn from the seed; half of the pairs agree modulo 16.
  std::vector<long long> anywhere;
  for (int i = 0; i < 4000; ++i) {
    const std::uintptr_t dst = random.next() >> 16;
    std::uintptr_t src = random.next() >> 16;
    if (i % 2 == 0) src = src - src % 16 + dst % 16;
    const std::size_t bytes = static_cast<std::size_t>(random.next() >> (24 + random.below(40)));
    anywhere.push_back(static_cast<long long>(dst % 16));
    anywhere.push_back(static_cast<long long>(src % 16));
    append_split(anywhere, dst, src, bytes);
  }
  cases.add_exact("4000 copies drawn from the seed (dst%16, src%16, split)", anywhere);

  // The largest copies: no step of the arithmetic may wrap around.
  std::vector<long long> largest;
  for (const std::size_t bytes : {SIZE_MAX, SIZE_MAX - 5, SIZE_MAX / 2 + 3, SIZE_MAX - 15 - random.below(1u << 20)})
    for (std::uintptr_t offset = 0; offset < 16; ++offset) append_split(largest, 0x1000 + offset, 0x9000 + offset, bytes);
  cases.add_exact("sizes near SIZE_MAX at every misalignment", largest);

  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_02_2", body, argc, argv); }
