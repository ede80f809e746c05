/// \file vector_split.hpp
/// \brief How every SM copy of the chapter cuts a copy around 16-byte boundaries. Host arithmetic on
/// pointer values only (nothing is dereferenced), so it is tested on CI (no GPU). Exercise 02.2.
#pragma once
#include <cstddef>

namespace bandwidth {

// [vector_split]
/// A copy of `bytes` bytes cut around 16-byte boundaries: `head_bytes` copied one by one until both
/// pointers reach a 16-byte boundary, then `vector_count` int4s (16 bytes each, aligned on both sides),
/// then `tail_bytes` one by one. Every byte is in exactly one of the three parts:
/// head_bytes + 16 · vector_count + tail_bytes = bytes, with head_bytes < 16 and tail_bytes < 16.
/// When `dst` and `src` disagree modulo 16 no 16-byte access is aligned on both sides: `vectorizable` is
/// false and the counts are 0 (the caller copies byte by byte).
struct VectorSplit {
  bool vectorizable;
  std::size_t head_bytes;
  std::size_t vector_count;
  std::size_t tail_bytes;
};

/// The split of a copy from `src` to `dst` of `bytes` bytes, any alignment, any length (0 included).
/// The head is as short as it can be: the body starts at the first 16-byte boundary of `dst`.
VectorSplit split_for_vectors(const void* dst, const void* src, std::size_t bytes);
// [vector_split]

}  // namespace bandwidth
