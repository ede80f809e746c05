// The SM copy kernel: the lab's reference solution (lab/sm_copy.cu is the student's version).
#include "sm_copy.cuh"

#include <algorithm>
#include <cstdint>

#include "common/check.cuh"

namespace bandwidth {

namespace {

constexpr int copy_threads = 256;
// Independent 16-byte loads each thread issues before its first store. One in flight per thread (the
// naive kernel) leaves HBM waiting: Little's law wants latency × bandwidth ≈ 2–3 MB in flight across
// an H100, i.e. more than the 32 KiB per SM that 2048 threads × 16 B give.
constexpr int vectors_in_flight = 4;

// [sm_copy_kernel]
// dst + head and src + head are both 16-byte aligned; the body is `vector_count` int4s from there,
// then `tail_bytes` (< 16) bytes. The `head_bytes` (< 16) before the body are done byte by byte.
__global__ void __launch_bounds__(copy_threads)
    sm_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                   std::size_t head_bytes, std::size_t vector_count, std::size_t tail_bytes) {
  int4* __restrict__ dst_vec = reinterpret_cast<int4*>(dst + head_bytes);
  const int4* __restrict__ src_vec = reinterpret_cast<const int4*>(src + head_bytes);

  // Full tiles: each block takes tiles of copy_threads × vectors_in_flight int4s, grid-stride. Thread t
  // touches t, t + 256, t + 512, … so every load instruction of a warp reads 512 contiguous bytes.
  constexpr std::size_t tile = std::size_t{copy_threads} * vectors_in_flight;
  const std::size_t full_tiles = vector_count / tile;
  for (std::size_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    const std::size_t base = t * tile + threadIdx.x;
    int4 v[vectors_in_flight];
#pragma unroll
    for (int k = 0; k < vectors_in_flight; ++k) v[k] = src_vec[base + k * copy_threads];  // all loads first
#pragma unroll
    for (int k = 0; k < vectors_in_flight; ++k) dst_vec[base + k * copy_threads] = v[k];  // then the stores
  }

  // What is left (< one tile of int4s, then < 16 bytes at each end) is spread over the whole grid.
  const std::size_t thread = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = full_tiles * tile + thread; i < vector_count; i += threads) dst_vec[i] = src_vec[i];
  if (thread < head_bytes) dst[thread] = src[thread];
  const std::size_t tail_begin = head_bytes + vector_count * 16;
  if (thread < tail_bytes) dst[tail_begin + thread] = src[tail_begin + thread];
}
// [sm_copy_kernel]

// Source and destination disagree modulo 16: no access wider than a byte is aligned on both sides.
__global__ void byte_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                                 std::size_t bytes) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < bytes; i += threads) dst[i] = src[i];
}

}  // namespace

// [sm_copy_launcher]
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(d) % 16;
  const auto src_misalignment = reinterpret_cast<std::uintptr_t>(s) % 16;
  if (dst_misalignment != src_misalignment) {
    const std::size_t blocks_needed = (bytes + copy_threads - 1) / copy_threads;
    const int grid = static_cast<int>(
        std::min<std::size_t>(blocks_needed, static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(byte_copy_kernel), copy_threads))));
    byte_copy_kernel<<<grid, copy_threads, 0, stream>>>(d, s, bytes);
    CUDA_CHECK_LAUNCH();
    return;
  }
  // Bytes until both pointers reach a 16-byte boundary, then whole int4s, then the rest.
  const std::size_t head = std::min<std::size_t>(bytes, (16 - dst_misalignment) % 16);
  const std::size_t vector_count = (bytes - head) / 16;
  const std::size_t tail = bytes - head - vector_count * 16;
  // One block per tile up to what fits on the GPU at once: a larger grid only adds scheduling, a smaller
  // one leaves SMs idle. At least one block, which also covers the head and tail bytes (< 256).
  constexpr std::size_t tile = std::size_t{copy_threads} * vectors_in_flight;
  const std::size_t blocks_needed = std::max<std::size_t>(1, (vector_count + tile - 1) / tile);
  const int grid = static_cast<int>(
      std::min<std::size_t>(blocks_needed, static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(sm_copy_kernel), copy_threads))));
  sm_copy_kernel<<<grid, copy_threads, 0, stream>>>(d, s, head, vector_count, tail);
  CUDA_CHECK_LAUNCH();
}
// [sm_copy_launcher]

}  // namespace bandwidth
