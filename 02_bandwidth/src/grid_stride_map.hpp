/// \file grid_stride_map.hpp
/// \brief Which int4 each thread of a grid-stride copy moves on each trip through its loop (exercise 02.1).
/// Plain arithmetic, compiled for the host and the device: the naive copy kernel (copies.cu) calls it on
/// the GPU, and the tests walk it on the CPU to check coverage and coalescing without a GPU.
#pragma once
#include <cstddef>

#if defined(__CUDACC__)
#define BANDWIDTH_HOST_DEVICE __host__ __device__
#else
#define BANDWIDTH_HOST_DEVICE
#endif

namespace bandwidth {

/// The threads of one warp: 32 on every NVIDIA GPU the course runs on.
inline constexpr std::size_t warp_size = 32;

/// The index of the int4 that thread `thread` of block `block` copies on trip `trip` (0, 1, 2, …) of a
/// grid-stride loop over `vector_count` int4s, with a grid of `blocks` blocks of `threads` threads each.
/// An index of `vector_count` or more means the thread is done; its loop stops at the first such trip:
///
///     for (std::size_t trip = 0;; ++trip) {
///       const std::size_t i = grid_stride_vector(blockIdx.x, threadIdx.x, trip, gridDim.x, blockDim.x, n);
///       if (i >= n) break;
///       dst[i] = src[i];
///     }
///
/// Contract (tests/test_grid_stride_map.cpp checks each part):
/// - every index in [0, vector_count) is copied exactly once by that loop, for any grid shape (blocks ≥ 1,
///   threads ≥ 1) and any vector_count, 0 included;
/// - a thread's indices grow from trip to trip (so stopping at the first index past the end loses nothing);
/// - coalesced: on every trip, the 32 threads of a warp (threads 32w … 32w + 31 of a block) copy 32
///   consecutive int4s, lane 0 the lowest, wherever all 32 are below vector_count. A warp's load is then
///   512 contiguous bytes: four 128-byte lines, the fewest possible;
/// - no overflow for vector_count up to 2^58 (4 EiB of int4s, more than any GPU holds) and any trip the
///   loop reaches.
// BEGIN SOLUTION 02.1
#ifndef COURSE_STUB_02_1
BANDWIDTH_HOST_DEVICE inline std::size_t grid_stride_vector(std::size_t block, std::size_t thread, std::size_t trip,
                                                            std::size_t blocks, std::size_t threads,
                                                            std::size_t vector_count) {
  (void)vector_count;  // the stride does not depend on the length: the loop's bound stops the thread
  // Trip k of the whole grid covers the k-th window of blocks × threads int4s; inside it block b owns
  // threads int4s from b × threads, and thread t the t-th of those: neighbours in a warp, neighbours in
  // memory.
  return (trip * blocks + block) * threads + thread;
}
#else
BANDWIDTH_HOST_DEVICE inline std::size_t grid_stride_vector(std::size_t block, std::size_t thread, std::size_t trip,
                                                            std::size_t blocks, std::size_t threads,
                                                            std::size_t vector_count) {
  // TODO (exercise 02.1): this gives every thread a contiguous chunk of its own. Every int4 is copied
  // once, so the copy is right, but on each trip the 32 threads of a warp read 32 addresses a whole
  // chunk apart: 32 separate 128-byte lines for 512 useful bytes. Map (block, thread, trip) so that a
  // warp's 32 threads copy 32 neighbouring int4s on every trip, as the lesson's grid-stride loop does.
  const std::size_t all_threads = blocks * threads;
  const std::size_t chunk = vector_count / all_threads + (vector_count % all_threads != 0 ? 1 : 0);
  if (trip >= chunk) return vector_count;  // this thread's chunk is done
  return (block * threads + thread) * chunk + trip;
}
#endif
// END SOLUTION 02.1

}  // namespace bandwidth
