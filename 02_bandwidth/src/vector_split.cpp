#include "vector_split.hpp"

#include <algorithm>
#include <cstdint>

namespace bandwidth {

VectorSplit split_for_vectors(const void* dst, const void* src, std::size_t bytes) {
// BEGIN SOLUTION 02.2
#ifndef COURSE_STUB_02_2
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(dst) % 16;
  if (dst_misalignment != reinterpret_cast<std::uintptr_t>(src) % 16) return {false, 0, 0, 0};
  // Bytes until both pointers reach a 16-byte boundary, then whole int4s, then the rest.
  const std::size_t head = std::min<std::size_t>(bytes, (16 - dst_misalignment) % 16);
  const std::size_t vector_count = (bytes - head) / 16;
  // The tail is what the head and the body leave, wherever the body began.
  return {true, head, vector_count, bytes - head - vector_count * 16};
#else
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(dst) % 16;
  if (dst_misalignment != reinterpret_cast<std::uintptr_t>(src) % 16) return {false, 0, 0, 0};
  // Bytes until both pointers reach a 16-byte boundary, then whole int4s, then the rest.
  const std::size_t head = std::min<std::size_t>(bytes, (16 - dst_misalignment) % 16);
  const std::size_t vector_count = (bytes - head) / 16;
  return {true, head, vector_count, bytes % 16};  // the bytes past the last whole int4
#endif
// END SOLUTION 02.2
}

}  // namespace bandwidth
