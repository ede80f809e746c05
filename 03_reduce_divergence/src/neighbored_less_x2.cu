// Exercise 03.3: the neighbored_less tree with no idle half. Each block takes two blocks' worth of
// elements, so every thread has work at the first step (the book's reduceUnrolling2 idea, chapter 05's
// first rung, on this chapter's tree). Not a rung of the lesson: reduce_divergence_exercise times it
// beside neighbored_less.
#include "common/check.cuh"
#include "neighbored_less_slot.cuh"
#include "reduce_divergence.hpp"
#include "reduce_ladder/device.cuh"
#include "reduce_ladder/two_pass.cuh"

namespace reduce {
namespace {

/// Block b sums the 2·blockDim.x consecutive elements from 2·blockDim.x·b (those below n) into
/// partials[b], with blockDim.x threads and blockDim.x accumulators of shared memory.
template <class T>
__global__ void neighbored_less_x2_kernel(const T* __restrict__ input, std::size_t n, accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  const std::size_t tile = std::size_t{blockIdx.x} * 2 * blockDim.x;  // the block's first element
// BEGIN SOLUTION 03.3
#ifndef COURSE_STUB_03_3
  // Both loads are coalesced (a warp reads 32 consecutive ints each time) and issued before the add.
  const std::size_t near = tile + tid;
  const std::size_t far = near + blockDim.x;
  const Acc first_value = near < n ? static_cast<Acc>(input[near]) : Acc(0);
  const Acc second_value = far < n ? static_cast<Acc>(input[far]) : Acc(0);
  s[tid] = first_value + second_value;
  __syncthreads();
  for (unsigned distance = 1; distance < blockDim.x; distance *= 2) {
    const int into = neighbored_less_slot(tid, distance, blockDim.x);
    if (into >= 0) s[into] += s[into + distance];
    __syncthreads();
  }
#else
  // TODO (exercise 03.3): the sum is right, but thread 0 adds the whole tile alone, one load after the
  // other, while the block's other threads wait. Make the block share the work so that this rung is at
  // least as fast as neighbored_less (see the task). Leave the block's sum in s[0].
  if (tid == 0) {
    Acc sum = 0;
    for (std::size_t i = tile; i < n && i < tile + 2 * std::size_t{blockDim.x}; ++i) sum += static_cast<Acc>(input[i]);
    s[0] = sum;
  }
#endif
// END SOLUTION 03.3
  if (tid == 0) partials[blockIdx.x] = s[0];
}

template <class T>
void launch_neighbored_less_x2(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                               Workspace& workspace, cudaStream_t stream) {
  launch_two_pass<T>(neighbored_less_x2_kernel<T>, input, n, result, shape,
                     shape.block * sizeof(accumulator_t<T>), workspace, stream);
}

LaunchShape two_blocks_per_block(std::size_t n, unsigned block, int /*sm_count*/) {
  return blocks_covering(n, block, 2 * std::size_t{block});
}

const Variant exercise_table[] = {
    {"neighbored_less_x2", "exercise 03.3: a block sums two blocks' worth of elements, no thread idle at the first step",
     "(exercise; the book's reduceUnrolling2 idea on chapter 03's tree)", "ceil(n / (2*block))",
     two_blocks_per_block, launch_neighbored_less_x2<int>, launch_neighbored_less_x2<float>},
};

}  // namespace

std::span<const Variant> divergence_exercise_variants() { return exercise_table; }

}  // namespace reduce
