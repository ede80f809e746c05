// Chapter 03: the neighbored pair tree (the book's reduceNeighbored / reduceNeighboredLess).
// One kernel, two rules for "which thread adds which pair": the whole difference is divergence.
#include "neighbored_less_slot.cuh"
#include "reduce_divergence.hpp"
#include "reduce_ladder/device.cuh"
#include "reduce_ladder/two_pass.cuh"

namespace reduce {
namespace {

// [neighbored_slot]
/// The book's rule: thread tid adds s[tid + stride] into s[tid] when tid is a multiple of 2·stride.
/// Busy threads are spread over every warp, so each warp takes the branch with a few lanes on.
__host__ __device__ constexpr int neighbored_slot(unsigned tid, unsigned stride, unsigned /*block*/) {
  return tid % (2 * stride) == 0 ? static_cast<int>(tid) : -1;
}
// [neighbored_slot]

struct NeighboredRule {
  __device__ int operator()(unsigned tid, unsigned stride, unsigned block) const {
    return neighbored_slot(tid, stride, block);
  }
};
struct NeighboredLessRule {
  __device__ int operator()(unsigned tid, unsigned stride, unsigned block) const {
    return neighbored_less_slot(tid, stride, block);
  }
};

// [neighbored_kernel]
/// One block sums blockDim.x consecutive elements into partials[blockIdx.x]. Unlike the book, the
/// tree lives in shared memory (the input is left intact, so it can be timed again) and in 64 bits.
template <class T, class Rule>
__global__ void neighbored_kernel(const T* input, std::size_t n, accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
  // The tail block pads with zeros instead of returning early: every thread must reach every
  // __syncthreads() below, or the block deadlocks (or worse, silently reads stale slots).
  s[tid] = i < n ? static_cast<Acc>(input[i]) : Acc(0);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const int slot = Rule{}(tid, stride, blockDim.x);
    if (slot >= 0) s[slot] += s[slot + stride];  // the branch; the barrier stays outside it
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [neighbored_kernel]

// The tree takes one accumulator of shared memory per thread; the partials are finished on the
// device (two_pass.cuh).
template <class T, class Rule>
void launch_neighbored(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                       Workspace& workspace, cudaStream_t stream) {
  launch_two_pass<T>(neighbored_kernel<T, Rule>, input, n, result, shape, shape.block * sizeof(accumulator_t<T>),
                     workspace, stream);
}

// [divergence_variants]
const Variant divergence_table[] = {
    {"neighbored", "divergence: tid % (2*stride) keeps a few lanes of every warp busy",
     "reduceNeighbored (Harris reduce0, blog reduce0)", "ceil(n / block)", neighbored_shape,
     launch_neighbored<int, NeighboredRule>, launch_neighbored<float, NeighboredRule>},
    {"neighbored_less", "no divergence: pair k goes to thread k, whole warps idle together",
     "reduceNeighboredLess (Harris reduce1, blog reduce1)", "ceil(n / block)", neighbored_shape,
     launch_neighbored<int, NeighboredLessRule>, launch_neighbored<float, NeighboredLessRule>},
};
// [divergence_variants]

}  // namespace

std::span<const Variant> divergence_variants() { return divergence_table; }

int neighbored_slot_on_host(unsigned tid, unsigned stride, unsigned block) {
  return neighbored_slot(tid, stride, block);
}
int neighbored_less_slot_on_host(unsigned tid, unsigned stride, unsigned block) {
  return neighbored_less_slot(tid, stride, block);
}

}  // namespace reduce
