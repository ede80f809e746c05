// LAB: the SM copy kernel. Lab mode (cmake --workflow --preset lab) builds this file in place of
// src/sm_copy.cu; the graded tests are ctest --test-dir build-lab -L lab (they fail until you are done).
//
// The launcher below is complete: it splits a copy of `bytes` bytes into
//   head_bytes   (< 16) bytes until dst and src both reach a 16-byte boundary (it already copies these),
//   vector_count int4s (16 bytes each) from dst + head / src + head, both 16-byte aligned,
//   tail_bytes   (< 16) bytes after the last whole int4.
// Your job is the kernel:
//   TODO 1: copy the vector_count int4s. Make it fast: give each thread `vectors_in_flight` independent
//           int4 loads before its first store (load them all into registers, then store them all),
//           with thread t of a block touching t, t + copy_threads, t + 2 copy_threads, ... so that each
//           warp instruction reads 512 contiguous bytes. Walk tiles of copy_threads * vectors_in_flight
//           int4s with a grid-stride loop over tiles (the grid is only as big as what fits on the GPU).
//   TODO 2: the int4s after the last whole tile (fewer than one tile): spread them over all threads.
//   TODO 3: the tail_bytes bytes after the body.
// Check: the copy tests try sizes 1 ... 3 MiB + 13 at every pair of offsets 0, 1, 3, 8, 15 and check
// that nothing outside the destination is written; the D2D duel in the program (bandwidth) shows your
// kernel against cudaMemcpy and the naive grid-stride rung.
#include "sm_copy.cuh"

#include <algorithm>
#include <cstdint>

#include "common/check.cuh"

namespace bandwidth {

namespace {

constexpr int copy_threads = 256;
constexpr int vectors_in_flight = 4;

__global__ void __launch_bounds__(copy_threads)
    sm_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                   std::size_t head_bytes, std::size_t vector_count, std::size_t tail_bytes) {
  const std::size_t thread = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;

  // TODO 1: full tiles, vectors_in_flight loads per thread before the stores. Start from
  //   int4* dst_vec = reinterpret_cast<int4*>(dst + head_bytes);
  //   const int4* src_vec = reinterpret_cast<const int4*>(src + head_bytes);
  // TODO 2: the int4s after the last full tile, spread over all gridDim.x * blockDim.x threads.
  (void)vector_count;

  if (thread < head_bytes) dst[thread] = src[thread];  // given: the head

  // TODO 3: the tail_bytes bytes that start at head_bytes + 16 * vector_count.
  (void)tail_bytes;
}

__global__ void byte_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                                 std::size_t bytes) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < bytes; i += threads) dst[i] = src[i];
}

}  // namespace

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(d) % 16;
  const auto src_misalignment = reinterpret_cast<std::uintptr_t>(s) % 16;
  if (dst_misalignment != src_misalignment) {  // no access wider than a byte is aligned on both sides
    const std::size_t blocks_needed = (bytes + copy_threads - 1) / copy_threads;
    const int grid = static_cast<int>(std::min<std::size_t>(
        blocks_needed, static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(byte_copy_kernel), copy_threads))));
    byte_copy_kernel<<<grid, copy_threads, 0, stream>>>(d, s, bytes);
    CUDA_CHECK_LAUNCH();
    return;
  }
  const std::size_t head = std::min<std::size_t>(bytes, (16 - dst_misalignment) % 16);
  const std::size_t vector_count = (bytes - head) / 16;
  const std::size_t tail = bytes - head - vector_count * 16;
  constexpr std::size_t tile = std::size_t{copy_threads} * vectors_in_flight;
  const std::size_t blocks_needed = std::max<std::size_t>(1, (vector_count + tile - 1) / tile);
  const int grid = static_cast<int>(std::min<std::size_t>(
      blocks_needed, static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(sm_copy_kernel), copy_threads))));
  sm_copy_kernel<<<grid, copy_threads, 0, stream>>>(d, s, head, vector_count, tail);
  CUDA_CHECK_LAUNCH();
}

}  // namespace bandwidth
