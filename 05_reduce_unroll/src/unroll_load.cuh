/// \file unroll_load.cuh
/// \brief The unrolled load every "unroll N" rung starts with, and the index arithmetic behind it
/// (exercise 05.1).
#pragma once
#include <cstddef>

#include "reduce_ladder/device.cuh"
#include "reduce_ladder/host_device.hpp"

namespace reduce {

/// The element that load `k` (0 ≤ k < `unroll`) of thread `tid` reads in block `block_index`, for
/// blocks of `block_dim` threads that each own the unroll·block_dim consecutive elements from
/// block_index·unroll·block_dim. At every k the 32 threads of a warp read 32 consecutive elements (one
/// coalesced load per warp), and over the whole grid every element is read exactly once. Elements at
/// or past n are the caller's to skip.
REDUCE_HOST_DEVICE constexpr std::size_t unrolled_index(std::size_t block_index, unsigned block_dim, unsigned tid,
                                                        unsigned k, unsigned unroll) {
// BEGIN SOLUTION 05.1
#ifndef COURSE_STUB_05_1
  return block_index * block_dim * unroll + tid + std::size_t{k} * block_dim;
#else
  // TODO (exercise 05.1): keep the block's tile, but make each of the unroll loads of a warp read 32
  // consecutive elements. As given, each thread reads its own unroll consecutive elements: every
  // element is read once, but a warp's load touches 32 elements unroll apart.
  return block_index * block_dim * unroll + std::size_t{tid} * unroll + k;
#endif
// END SOLUTION 05.1
}

// [unrolled_load]
/// Block b owns the kUnroll·blockDim.x elements from b·kUnroll·blockDim.x; thread tid adds its
/// kUnroll elements (unrolled_index). All loads are issued before the first add, so kUnroll requests
/// are in flight per thread: memory-level parallelism. Elements past n add nothing: the tail block is
/// handled, not dropped as in the book. (n ≥ 1.)
template <class T, int kUnroll>
__device__ accumulator_t<T> unrolled_load_sum(const T* __restrict__ input, std::size_t n) {
  using Acc = accumulator_t<T>;
  // Every load is unconditional (an index past the end reads element n − 1, whose value is dropped
  // below), so the compiler issues all kUnroll loads before the first add.
  T value[kUnroll];
#pragma unroll
  for (int k = 0; k < kUnroll; ++k)
    value[k] = input[min(unrolled_index(blockIdx.x, blockDim.x, threadIdx.x, k, kUnroll), n - 1)];
  Acc sum = 0;
#pragma unroll
  for (int k = 0; k < kUnroll; ++k)
    if (unrolled_index(blockIdx.x, blockDim.x, threadIdx.x, k, kUnroll) < n) sum += static_cast<Acc>(value[k]);
  return sum;
}
// [unrolled_load]

}  // namespace reduce
