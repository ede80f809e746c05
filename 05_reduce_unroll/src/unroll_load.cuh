/// \file unroll_load.cuh
/// \brief The unrolled load every "unroll N" rung starts with.
#pragma once
#include <cstddef>

#include "reduce_ladder/device.cuh"

namespace reduce {

// [unrolled_load]
/// Block b owns the kUnroll·blockDim.x elements from b·kUnroll·blockDim.x; thread tid adds its
/// kUnroll elements, blockDim.x apart (each load coalesced across the warp). All loads are issued
/// before the first add, so kUnroll requests are in flight per thread: memory-level parallelism.
/// Elements past n add nothing: the tail block is handled, not dropped as in the book. (n ≥ 1.)
template <class T, int kUnroll>
__device__ accumulator_t<T> unrolled_load_sum(const T* __restrict__ input, std::size_t n) {
  using Acc = accumulator_t<T>;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kUnroll + threadIdx.x;
  // Every load is unconditional (an index past the end reads element n − 1, whose value is dropped
  // below), so the compiler issues all kUnroll loads before the first add.
  T value[kUnroll];
#pragma unroll
  for (int k = 0; k < kUnroll; ++k)
    value[k] = input[min(first + std::size_t{static_cast<unsigned>(k)} * blockDim.x, n - 1)];
  Acc sum = 0;
#pragma unroll
  for (int k = 0; k < kUnroll; ++k)
    if (first + std::size_t{static_cast<unsigned>(k)} * blockDim.x < n) sum += static_cast<Acc>(value[k]);
  return sum;
}
// [unrolled_load]

}  // namespace reduce
