/// \file device.cuh
/// \brief Device helpers shared by the ladder's kernels in every reduction chapter: the accumulator
/// type, the block's shared scratch, and the warp-shuffle sums.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace reduce {

/// The type a sum of T is accumulated in. Ints add up in 64 bits: 2^28 values of about 1000 already
/// overflow a 32-bit int (the book's kernels do, silently). Floats stay float: the lesson compares
/// summation orders, each checked against a long double reference.
template <class T>
struct Accumulator;
template <>
struct Accumulator<int> {
  using type = long long;
};
template <>
struct Accumulator<float> {
  using type = float;
};
template <class T>
using accumulator_t = typename Accumulator<T>::type;

/// The block's dynamic shared memory as an array of T. One untyped extern array for every kernel: a
/// typed `extern __shared__ T s[]` would clash between the int and float instantiations.
template <class T>
__device__ T* shared_scratch() {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return reinterpret_cast<T*>(shared_bytes);
}

// [warp_sum]
/// Sum over the 32 lanes of a warp, through registers: each step halves the number of live values.
/// `__shfl_down_sync` names the lanes taking part (all 32), so no lane can run ahead of the exchange:
/// the warp-synchronous shared-memory race of the book cannot happen here.
template <class Acc>
__device__ Acc warp_sum(Acc value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

/// Sum over the block (blockDim.x a multiple of 32, at most 1024); the result is valid in thread 0.
/// Every thread of the block must call it (it has a barrier). `warp_sums` is 32 shared slots.
template <class Acc>
__device__ Acc block_sum(Acc value, Acc* warp_sums) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  value = warp_sum(value);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < blockDim.x / 32 ? warp_sums[lane] : Acc(0);
    value = warp_sum(value);
  }
  return value;
}
// [warp_sum]

}  // namespace reduce
