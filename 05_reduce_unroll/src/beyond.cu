// Chapter 05, past the book: the shared tree gives way to warp shuffles, scalar loads to 16-byte
// loads, the one-block-per-tile grid to a persistent grid, and the second launch to a last-block finish.
#include <algorithm>
#include <cstdint>

#include "common/check.cuh"
#include "reduce_ladder/device.cuh"
#include "reduce_unroll.hpp"
#include "unroll_load.cuh"

namespace reduce {
namespace {

// [shuffle_kernel]
/// unroll8's loads, then the block's sum through registers (warp_sum / block_sum): one barrier per
/// block instead of log2(block), and no shared-memory tree at all.
template <class T>
__global__ void __launch_bounds__(1024) shuffle_unroll8_kernel(const T* __restrict__ input, std::size_t n,
                                                               accumulator_t<T>* partials) {
  using Acc = accumulator_t<T>;
  __shared__ Acc warp_sums[32];
  const Acc sum = block_sum(unrolled_load_sum<T, 8>(input, n), warp_sums);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}
// [shuffle_kernel]

template <class T>
struct Vector4;
template <>
struct Vector4<int> {
  using type = int4;
};
template <>
struct Vector4<float> {
  using type = float4;
};

// [wide_fetch]
/// A 16-byte load that asks L2 to fetch the whole 256-byte block around it from DRAM (PTX's
/// .L2::256B prefetch size) and not to keep the line in L1 (each byte is read once).
__device__ __forceinline__ int4 load_fetching_256(const int4* p) {
  int4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ float4 load_fetching_256(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
}
// [wide_fetch]

// [persistent_kernel]
/// A fixed, resident grid walks the whole array (grid-stride loop) in 16-byte vectors, kLoads of them
/// in flight per thread per trip (all loads issued before the adds; out-of-range ones predicated off).
///
/// Alignment: cudaMalloc returns 256-byte aligned memory, but `input` may be any int inside it. The
/// first `head` (0–3) elements up to a 16-byte boundary and the last `tail` (0–3) elements are added
/// one by one; everything between is whole vectors.
///
/// kSinglePass: the block sums go to `partials`, then the last block to arrive (an atomic ticket)
/// adds them up and writes `*result`: one launch in all. Otherwise a second launch finishes.
template <class T, int kLoads, bool kSinglePass, bool kWideFetch = false>
__global__ void __launch_bounds__(1024) persistent_kernel(const T* __restrict__ input, std::size_t n,
                                                          accumulator_t<T>* partials, unsigned* ticket,
                                                          accumulator_t<T>* result) {
  using Acc = accumulator_t<T>;
  using Vec = typename Vector4<T>::type;
  __shared__ Acc warp_sums[32];
  __shared__ bool is_last_block;

  const std::size_t thread = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(input) % sizeof(Vec)) / sizeof(T);
  const std::size_t head = std::min(n, misaligned == 0 ? std::size_t{0} : 4 - misaligned);
  const std::size_t vectors = (n - head) / 4;
  const std::size_t tail_begin = head + vectors * 4;
  const Vec* body = reinterpret_cast<const Vec*>(input + head);

  Acc sum = 0;
// [persistent_kernel]
// BEGIN SOLUTION 05.3
#ifndef COURSE_STUB_05_3
  for (std::size_t first = thread; first < vectors; first += threads * kLoads) {
    // Loads first, unconditionally (an index past the end is clamped to the last vector and its value
    // dropped below): a load inside an `if` tends to be paired with its add, one load in flight.
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const Vec* p = body + std::min(first + static_cast<std::size_t>(k) * threads, vectors - 1);
      if constexpr (kWideFetch) v[k] = load_fetching_256(p);
      else v[k] = *p;
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const Acc four = static_cast<Acc>(v[k].x) + static_cast<Acc>(v[k].y) + static_cast<Acc>(v[k].z) +
                       static_cast<Acc>(v[k].w);
      if (first + static_cast<std::size_t>(k) * threads < vectors) sum += four;
    }
  }
#else
  // TODO (exercise 05.3): add the 4·vectors elements of the body (from input + head, 16-byte aligned)
  // into `sum`, each exactly once across the grid. As given this is right but slow: one 4-byte load in
  // flight per thread at a time, far too few bytes in flight to keep the memory busy (see the task).
  const T* words = input + head;
#pragma unroll 1
  for (std::size_t i = thread; i < 4 * vectors; i += threads) sum += static_cast<Acc>(words[i]);
  (void)body;
#endif
// END SOLUTION 05.3
// [persistent_kernel_finish]
  if (thread < head) sum += static_cast<Acc>(input[thread]);
  if (thread < n - tail_begin) sum += static_cast<Acc>(input[tail_begin + thread]);

  sum = block_sum(sum, warp_sums);
  if constexpr (!kSinglePass) {
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
  } else if (gridDim.x == 1) {  // a grid of one (a small array): its sum is the total, no ticket
    if (threadIdx.x == 0) *result = sum;
  } else {
    if (threadIdx.x == 0) {
      partials[blockIdx.x] = sum;
      __threadfence();  // our partial is visible device-wide before our ticket is counted
      const unsigned arrived = atomicAdd(ticket, 1u);
      is_last_block = arrived == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last_block) {  // the same value in every thread of the block: the barrier below is safe
      __threadfence();    // every other block's partial, counted before our ticket, is visible to us
      Acc total = 0;
      for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += __ldcg(&partials[b]);
      total = block_sum(total, warp_sums);
      if (threadIdx.x == 0) {
        *result = total;
        *ticket = 0;  // ready for the next launch (kernels on one stream do not overlap)
      }
    }
  }
}
// [persistent_kernel_finish]

template <class T>
void launch_shuffle_unroll8(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                            Workspace& workspace, cudaStream_t stream) {
  using Acc = accumulator_t<T>;
  Acc* partials = workspace.partials<Acc>(shape.grid);
  shuffle_unroll8_kernel<T><<<shape.grid, shape.block, 0, stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  launch_sum_partials(partials, shape.grid, result, stream);
}

template <class T, int kLoads, bool kSinglePass, bool kWideFetch = false>
void launch_persistent(const T* input, std::size_t n, accumulator_t<T>* result, LaunchShape shape,
                       Workspace& workspace, cudaStream_t stream) {
  using Acc = accumulator_t<T>;
  Acc* partials = workspace.partials<Acc>(shape.grid);
  persistent_kernel<T, kLoads, kSinglePass, kWideFetch>
      <<<shape.grid, shape.block, 0, stream>>>(input, n, partials, workspace.ticket(), result);
  CUDA_CHECK_LAUNCH();
  if constexpr (!kSinglePass) launch_sum_partials(partials, shape.grid, result, stream);
}

LaunchShape eight_per_thread(std::size_t n, unsigned block, int /*sm_count*/) {
  return blocks_covering(n, block, std::size_t{block} * 8);
}

// [persistent_shape]
/// As many blocks as fit on the device at once (SMs × resident blocks per SM, from the occupancy
/// API), never more than one 16-byte vector per thread needs. kFixedBlock != 0 overrides --block.
template <int kLoads, bool kSinglePass, unsigned kFixedBlock>
LaunchShape persistent_shape(std::size_t n, unsigned block, int sm_count) {
  if constexpr (kFixedBlock != 0) block = kFixedBlock;
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel<int, kLoads, kSinglePass>,
                                                           static_cast<int>(block), 0));
  const std::size_t resident = static_cast<std::size_t>(std::max(sm_count, 1)) * std::max(per_sm, 1);
  const std::size_t needed = ceil_div(n, std::size_t{4} * block);
  // One block when its first trip (kLoads vectors per thread) covers the array: a single-pass kernel
  // then writes the total itself, with no partials and no ticket (what CUB's single-tile path does), and
  // the block is only as large as that trip needs (whole warps): fewer warps to sum at the end.
  if (kSinglePass && needed <= static_cast<std::size_t>(kLoads)) {
    const std::size_t threads = ceil_div(n, std::size_t{4} * kLoads);
    return {1, static_cast<unsigned>(std::min<std::size_t>(block, std::max<std::size_t>(32, ceil_div(threads, 32) * 32)))};
  }
  return {static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, needed))), block};
}
// [persistent_shape]

// [beyond_variants]
constexpr const char* persistent_grid = "min(SMs * resident blocks/SM, ceil(n / (4*block)))";
constexpr const char* single_pass_grid =
    "min(SMs * resident blocks/SM, ceil(n / (4*block))); 1 block of ceil(n / (4*loads)) threads (whole warps) "
    "where n <= 4*block*loads";
const Variant beyond_table[] = {
    {"shuffle_unroll8", "warp shuffles replace the shared tree: one barrier per block",
     "(past the book; NVIDIA sample reduce6/7 idea)", "ceil(n / (8*block))", eight_per_thread,
     launch_shuffle_unroll8<int>, launch_shuffle_unroll8<float>},
    {"int4_grid_stride", "persistent grid + 16-byte loads; still two launches", "(past the book)", persistent_grid,
     persistent_shape<1, false, 0>, launch_persistent<int, 1, false>, launch_persistent<float, 1, false>},
    {"single_pass_x4", "one launch: last block finishes; 4 x 16 B in flight per thread", "(past the book)",
     single_pass_grid, persistent_shape<4, true, 0>, launch_persistent<int, 4, true>,
     launch_persistent<float, 4, true>},
    {"single_pass_x8", "one launch; 8 x 16 B in flight per thread", "(past the book)", single_pass_grid,
     persistent_shape<8, true, 0>, launch_persistent<int, 8, true>, launch_persistent<float, 8, true>},
    {"single_pass_x8_b256", "as single_pass_x8, block fixed at 256: more, smaller blocks", "(past the book)",
     single_pass_grid, persistent_shape<8, true, 256>, launch_persistent<int, 8, true>,
     launch_persistent<float, 8, true>},
    {"single_pass_x8_fetch256", "as single_pass_x8, each load asking L2 for its whole 256-byte block",
     "(past the book)", single_pass_grid, persistent_shape<8, true, 0>, launch_persistent<int, 8, true, true>,
     launch_persistent<float, 8, true, true>},
};
// [beyond_variants]

}  // namespace

std::span<const Variant> beyond_book_variants() { return beyond_table; }

}  // namespace reduce
