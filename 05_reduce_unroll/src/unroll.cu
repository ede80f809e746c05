// Chapter 05, the book's part: each block first adds kUnroll blocks' worth of elements, then folds
// its shared tree with fewer and fewer barriers (last warp, complete unroll, block size as a template).
#include <stdexcept>

#include "common/check.cuh"
#include "reduce_ladder/device.cuh"
#include "reduce_unroll.hpp"
#include "unroll_load.cuh"
#include "warp_tail.cuh"

namespace reduce {
namespace {

// [unroll_kernel]
/// The book's reduceUnrolling2/4/8: kUnroll elements per thread on the way in, then the interleaved
/// tree of chapter 04. The grid shrinks kUnroll times, and so does the tree work per element.
template <class T, int kUnroll>
__global__ void unroll_kernel(const T* __restrict__ input, std::size_t n, accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  s[tid] = unrolled_load_sum<T, kUnroll>(input, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [unroll_kernel]

// [last_warp_kernel]
/// The book's reduceUnrollWarps8: barriers only while more than one warp has work; the last 64
/// partials are folded by warp 0 alone (warp_tail, with __syncwarp: see warp_tail.cuh).
template <class T, int kUnroll>
__global__ void last_warp_kernel(const T* __restrict__ input, std::size_t n, accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  s[tid] = unrolled_load_sum<T, kUnroll>(input, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid < 32) {  // a whole warp: warp_tail's __syncwarp() sees all 32 lanes
    const Acc sum = warp_tail(s, tid);
    if (tid == 0) partials[blockIdx.x] = sum;
  }
}
// [last_warp_kernel]

// [complete_unroll_kernel]
/// The book's reduceCompleteUnrollWarps8: the loop written out for every block size up to 1024. The
/// conditions on blockDim.x are the same for the whole block, and every barrier is outside them.
template <class T, int kUnroll>
__global__ void complete_unroll_kernel(const T* __restrict__ input, std::size_t n, accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  Acc* s = shared_scratch<Acc>();
  const unsigned tid = threadIdx.x;
  s[tid] = unrolled_load_sum<T, kUnroll>(input, n);
  __syncthreads();
  if (blockDim.x >= 1024 && tid < 512) s[tid] += s[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) s[tid] += s[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) s[tid] += s[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32) {
    const Acc sum = warp_tail(s, tid);
    if (tid == 0) partials[blockIdx.x] = sum;
  }
}
// [complete_unroll_kernel]

// [templated_kernel]
/// The book's reduceCompleteUnroll<iBlockSize>: the block size is a template argument, so the
/// comparisons fold away at compile time and only the needed steps are emitted.
template <class T, int kUnroll, unsigned kBlock>
__global__ void __launch_bounds__(kBlock) templated_kernel(const T* __restrict__ input, std::size_t n,
                                                           accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  static_assert(kBlock >= 64 && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0);
  __shared__ Acc s[kBlock];
  const unsigned tid = threadIdx.x;
  s[tid] = unrolled_load_sum<T, kUnroll>(input, n);
  __syncthreads();
  if constexpr (kBlock >= 1024) {
    if (tid < 512) s[tid] += s[tid + 512];
    __syncthreads();
  }
  if constexpr (kBlock >= 512) {
    if (tid < 256) s[tid] += s[tid + 256];
    __syncthreads();
  }
  if constexpr (kBlock >= 256) {
    if (tid < 128) s[tid] += s[tid + 128];
    __syncthreads();
  }
  if constexpr (kBlock >= 128) {
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
  }
  if (tid < 32) {
    const Acc sum = warp_tail(s, tid);
    if (tid == 0) partials[blockIdx.x] = sum;
  }
}
// [templated_kernel]

enum class Tree { interleaved, last_warp, complete };

template <class T, int kUnroll, Tree kTree>
void launch_unroll(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                   Workspace& workspace, cudaStream_t stream) {
  using Acc = accumulator_t<T>;
  Acc* partials = workspace.partials<Acc>(shape.grid);
  const std::size_t shared = shape.block * sizeof(Acc);
  if constexpr (kTree == Tree::interleaved)
    unroll_kernel<T, kUnroll><<<shape.grid, shape.block, shared, stream>>>(input, n, partials);
  else if constexpr (kTree == Tree::last_warp)
    last_warp_kernel<T, kUnroll><<<shape.grid, shape.block, shared, stream>>>(input, n, partials);
  else
    complete_unroll_kernel<T, kUnroll><<<shape.grid, shape.block, shared, stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  launch_sum_partials(partials, shape.grid, result, stream);
}

template <class T, unsigned kBlock>
void launch_templated_block(const T* input, std::size_t n, accumulator_t<T>* partials, unsigned grid,
                            cudaStream_t stream) {
  templated_kernel<T, 8, kBlock><<<grid, kBlock, 0, stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_templated(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                      Workspace& workspace, cudaStream_t stream) {
  using Acc = accumulator_t<T>;
  Acc* partials = workspace.partials<Acc>(shape.grid);
  // The run-time block size picks one of the compiled kernels.
  switch (shape.block) {
    case 64: launch_templated_block<T, 64>(input, n, partials, shape.grid, stream); break;
    case 128: launch_templated_block<T, 128>(input, n, partials, shape.grid, stream); break;
    case 256: launch_templated_block<T, 256>(input, n, partials, shape.grid, stream); break;
    case 512: launch_templated_block<T, 512>(input, n, partials, shape.grid, stream); break;
    case 1024: launch_templated_block<T, 1024>(input, n, partials, shape.grid, stream); break;
    default: throw std::logic_error("unroll8_templated: block size not compiled");
  }
  launch_sum_partials(partials, shape.grid, result, stream);
}

template <int kUnroll>
LaunchShape unrolled_blocks(std::size_t n, unsigned block, int /*sm_count*/) {
  return blocks_covering(n, block, std::size_t{block} * kUnroll);
}

// [unroll_variants]
const Variant unroll_table[] = {
    {"unroll2", "two elements per thread on load: half the blocks idle no more", "reduceUnrolling2 (Harris reduce3)",
     "ceil(n / (2*block))", unrolled_blocks<2>, launch_unroll<int, 2, Tree::interleaved>,
     launch_unroll<float, 2, Tree::interleaved>},
    {"unroll4", "four loads in flight per thread", "reduceUnrolling4", "ceil(n / (4*block))", unrolled_blocks<4>,
     launch_unroll<int, 4, Tree::interleaved>, launch_unroll<float, 4, Tree::interleaved>},
    {"unroll8", "eight loads in flight per thread: memory-level parallelism", "reduceUnrolling8",
     "ceil(n / (8*block))", unrolled_blocks<8>, launch_unroll<int, 8, Tree::interleaved>,
     launch_unroll<float, 8, Tree::interleaved>},
    {"unroll8_last_warp", "last warp without block barriers (__syncwarp, not volatile)",
     "reduceUnrollWarps8 (Harris reduce4)", "ceil(n / (8*block))", unrolled_blocks<8>,
     launch_unroll<int, 8, Tree::last_warp>, launch_unroll<float, 8, Tree::last_warp>},
    {"unroll8_complete", "the tree loop written out: no loop overhead", "reduceCompleteUnrollWarps8 (Harris reduce5)",
     "ceil(n / (8*block))", unrolled_blocks<8>, launch_unroll<int, 8, Tree::complete>,
     launch_unroll<float, 8, Tree::complete>},
    {"unroll8_templated", "block size known at compile time: dead steps vanish",
     "reduceCompleteUnroll<iBlockSize> (Harris reduce5, template)", "ceil(n / (8*block))", unrolled_blocks<8>,
     launch_templated<int>, launch_templated<float>},
};
// [unroll_variants]

}  // namespace

std::span<const Variant> unroll_variants() { return unroll_table; }

}  // namespace reduce
