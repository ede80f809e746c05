// The lesson's SM copy: exercise 02.3 (the contract is launch_sm_copy's, in sm_copy.cuh).
#include "sm_copy.cuh"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "common/check.cuh"

namespace bandwidth {

// BEGIN SOLUTION 02.3
#ifndef COURSE_STUB_02_3
namespace {

// One block copies one tile of copy_threads × vectors_per_thread int4s (4 KiB) and exits; the grid has
// one block per tile. There is no loop: the block scheduler is the loop, and it hands tiles out in index
// order, so the tiles being copied at any moment are neighbours in memory. Eight 256-thread blocks fit on
// an SM: 2048 loads of 16 bytes in flight per SM. Why 256 threads and one vector each, and what the same
// kernel does with its tiles in a shuffled order (sm_tile_4KiB_shuffled): the lesson shows the measured
// numbers from the committed results (README, "Copying with the SMs" and "Beyond the lesson").
constexpr int copy_threads = 256;
constexpr int vectors_per_thread = 1;
constexpr std::size_t tile_vectors = std::size_t{copy_threads} * vectors_per_thread;

// dst + head and src + head are both 16-byte aligned; the body is `vector_count` int4s from there,
// then `tail_bytes` (< 16) bytes. The `head_bytes` (< 16) before the body are done byte by byte.
__global__ void __launch_bounds__(copy_threads)
    sm_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src, std::size_t head_bytes,
                   std::size_t vector_count, std::size_t tail_bytes) {
  int4* __restrict__ dst_vec = reinterpret_cast<int4*>(dst + head_bytes);
  const int4* __restrict__ src_vec = reinterpret_cast<const int4*>(src + head_bytes);

  // Block b copies tile b. Thread t touches t, t + copy_threads, … of it, so every load instruction of
  // a warp reads 512 contiguous bytes. Only the last tile can be partial.
  const std::size_t first = std::size_t{blockIdx.x} * tile_vectors + threadIdx.x;
  int4 v[vectors_per_thread];
#pragma unroll
  for (int k = 0; k < vectors_per_thread; ++k)  // all loads first ...
    if (first + k * copy_threads < vector_count) v[k] = src_vec[first + k * copy_threads];
#pragma unroll
  for (int k = 0; k < vectors_per_thread; ++k)  // ... then the stores
    if (first + k * copy_threads < vector_count) dst_vec[first + k * copy_threads] = v[k];

  // The < 16 bytes before and after the body: the first block's first threads.
  if (blockIdx.x == 0) {
    if (threadIdx.x < head_bytes) dst[threadIdx.x] = src[threadIdx.x];
    const std::size_t tail_begin = head_bytes + vector_count * 16;
    if (threadIdx.x < tail_bytes) dst[tail_begin + threadIdx.x] = src[tail_begin + threadIdx.x];
  }
}

}  // namespace

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const VectorSplit split = split_for_vectors(dst, src, bytes);
  if (!split.vectorizable) {
    launch_byte_copy(dst, src, bytes, stream);
    return;
  }
  // One block per tile, at least one: block 0 also copies the head and tail bytes.
  const std::size_t grid = std::max<std::size_t>(1, (split.vector_count + tile_vectors - 1) / tile_vectors);
  if (grid > static_cast<std::size_t>(std::numeric_limits<int>::max()))  // 8 TiB: more than any GPU holds
    throw std::invalid_argument("launch_sm_copy: copy too large for one grid");
  sm_copy_kernel<<<static_cast<unsigned>(grid), copy_threads, 0, stream>>>(static_cast<unsigned char*>(dst),
                                                                          static_cast<const unsigned char*>(src),
      split.head_bytes, split.vector_count, split.tail_bytes);
  CUDA_CHECK_LAUNCH();
}
#else
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  // TODO (exercise 02.3): this moves one byte per thread per step. It is correct for any pointers and
  // any length, and far slower than cudaMemcpy. Replace it with a kernel of your own (and its launch)
  // that copies at cudaMemcpy's speed, for any size and any alignment, writing nothing outside
  // [dst, dst + bytes). split_for_vectors (vector_split.hpp) says which part of a copy can move in
  // 16-byte accesses. Measure with bandwidth_exercise (the lesson's "Exercises" section says how).
  launch_byte_copy(dst, src, bytes, stream);
}
#endif
// END SOLUTION 02.3

}  // namespace bandwidth
