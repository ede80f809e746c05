// Chapter 04: the interleaved pair tree (the book's reduceInterleaved, Harris' "sequential addressing").
#include "interleaved_pair.cuh"
#include "reduce_interleaved.hpp"
#include "reduce_ladder/device.cuh"
#include "reduce_ladder/two_pass.cuh"

namespace reduce {
namespace {

// [interleaved_kernel]
/// Pairs are half a tree apart: at each step thread tid < stride adds s[tid + stride] into s[tid].
/// The busy threads are 0..stride−1 (no divergence until stride < 32), and a warp reads 32
/// consecutive slots: consecutive banks, no conflicts, where neighbored_less read every 2·stride-th.
template <class T>
__global__ void interleaved_kernel(const T* input, std::size_t n, accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
  s[tid] = i < n ? static_cast<Acc>(input[i]) : Acc(0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    const SlotPair p = interleaved_pair(tid, stride);
    if (p.dst >= 0) s[p.dst] += s[p.src];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [interleaved_kernel]

// The tree takes one accumulator of shared memory per thread; the partials are finished on the
// device (two_pass.cuh).
template <class T>
void launch_interleaved(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                        Workspace& workspace, cudaStream_t stream) {
  launch_two_pass<T>(interleaved_kernel<T>, input, n, result, shape, shape.block * sizeof(accumulator_t<T>),
                     workspace, stream);
}

const Variant interleaved_table[] = {
    {"interleaved", "sequential addressing: busy threads contiguous, conflict-free shared reads",
     "reduceInterleaved (Harris reduce2, blog reduce2)", "ceil(n / block)", one_element_per_thread,
     launch_interleaved<int>, launch_interleaved<float>},
};

}  // namespace

std::span<const Variant> interleaved_variants() { return interleaved_table; }

}  // namespace reduce
