// Exercise 04.3: the interleaved tree fed by a grid-stride loop. A grid of one resident wave walks the
// whole array, each thread adding many elements in a register before the block's one tree (Harris'
// reduce6 idea, taken further by chapter 05's persistent rungs). Not a rung of the lesson:
// reduce_interleaved_exercise times it beside interleaved.
#include <algorithm>

#include "common/check.cuh"
#include "interleaved_pair.cuh"
#include "reduce_interleaved.hpp"
#include "reduce_ladder/device.cuh"
#include "reduce_ladder/two_pass.cuh"

namespace reduce {
namespace {

/// Thread t of the grid (t = blockIdx.x·blockDim.x + threadIdx.x, G = gridDim.x·blockDim.x threads in
/// all) owns the elements t, t + G, t + 2G, … below n; block b writes the sum of its threads' elements
/// to partials[b]. blockDim.x accumulators of shared memory.
template <class T>
__global__ void interleaved_grid_stride_kernel(const T* __restrict__ input, std::size_t n,
                                               accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  const std::size_t grid_threads = std::size_t{gridDim.x} * blockDim.x;
// BEGIN SOLUTION 04.3
#ifndef COURSE_STUB_04_3
  // A warp's loads are 32 consecutive elements at every trip of the loop: coalesced.
  Acc own = 0;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid; i < n; i += grid_threads)
    own += static_cast<Acc>(input[i]);
  s[tid] = own;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    const SlotPair fold = interleaved_pair(tid, half);
    if (fold.dst >= 0) s[fold.dst] += s[fold.src];
    __syncthreads();
  }
#else
  // TODO (exercise 04.3): the sum is right, but thread 0 adds every element its block owns, one load
  // after the other, while the block's other threads wait. Make every thread add its own elements and
  // the block fold them, so that this rung is at least as fast as interleaved (see the task). Leave the
  // block's sum in s[0].
  if (tid == 0) {
    Acc sum = 0;
    for (std::size_t first = std::size_t{blockIdx.x} * blockDim.x; first < n; first += grid_threads)
      for (std::size_t i = first; i < n && i < first + blockDim.x; ++i) sum += static_cast<Acc>(input[i]);
    s[0] = sum;
  }
#endif
// END SOLUTION 04.3
  if (tid == 0) partials[blockIdx.x] = s[0];
}

template <class T>
void launch_interleaved_grid_stride(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                                    Workspace& workspace, cudaStream_t stream) {
  launch_two_pass<T>(interleaved_grid_stride_kernel<T>, input, n, result, shape,
                     shape.block * sizeof(accumulator_t<T>), workspace, stream);
}

/// One resident wave: as many blocks as fit on the device at once (the occupancy API), never more
/// than one element per thread needs.
LaunchShape one_resident_wave(std::size_t n, unsigned block, int sm_count) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, interleaved_grid_stride_kernel<int>,
                                                           static_cast<int>(block), block * sizeof(long long)));
  const std::size_t resident = static_cast<std::size_t>(std::max(sm_count, 1)) * std::max(per_sm, 1);
  return {static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, ceil_div(n, block)))), block};
}

const Variant exercise_table[] = {
    {"interleaved_grid_stride", "exercise 04.3: one resident wave walks the array, then one interleaved tree per block",
     "(exercise; Harris reduce6's grid-stride loop on chapter 04's tree)", "min(resident blocks, ceil(n / block))",
     one_resident_wave, launch_interleaved_grid_stride<int>, launch_interleaved_grid_stride<float>},
};

}  // namespace

std::span<const Variant> interleaved_exercise_variants() { return exercise_table; }

}  // namespace reduce
