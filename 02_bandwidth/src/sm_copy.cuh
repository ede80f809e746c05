/// \file sm_copy.cuh
/// \brief Device→device copies done by the SMs (a kernel) rather than by cudaMemcpy's own path.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "vector_split.hpp"

namespace bandwidth {

/// Copies `bytes` bytes from `src` to `dst` (device pointers on the current device, any alignment, any
/// length, not overlapping) with kernels of src/sm_copy.cu's own, enqueued on `stream`: no cudaMemcpy, no
/// library, none of the chapter's other copies (launch_byte_copy excepted, for pointers that disagree
/// modulo 16). Asynchronous on `stream`; 0 bytes is a no-op. src/sm_copy.cu is exercise 02.3: as handed
/// out it copies byte by byte (correct, slow); the goal is cudaMemcpy's speed.
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream = nullptr);

/// An SM copy as a table entry: the tuned copies beyond the lesson (beyond/sm_copy_tuned.cuh) are a table
/// of these, which the duel (CopyBench::d2d_duel) and the tests walk. Every entry copies `bytes` bytes
/// between any two non-overlapping device pointers of the current device, any alignment, any length (0 is
/// a no-op); where `src` and `dst` differ modulo 16 it falls back to a byte-wise kernel. Asynchronous on
/// `stream`.
struct SmCopyVariant {
  const char* name;     ///< the row name in the duel's tables and the JSON, and for --variants
  const char* teaches;  ///< one line: what the variant tries
  void (*launch)(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
};

/// The naive rung: one 16-byte access per thread per grid-stride step, nothing else in flight.
/// Requires `dst` and `src` 16-byte aligned (throws std::invalid_argument otherwise); any length.
void launch_grid_stride_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream = nullptr);

/// Copies byte by byte on a grid that fills the GPU once: the fallback of every SM copy for pointers
/// that disagree modulo 16 (correct, slow). Asynchronous on `stream`; 0 bytes is a no-op.
void launch_byte_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream = nullptr);

/// Blocks of `threads` threads that fit on the current device at once (SMs × resident blocks per SM
/// for `kernel`): the grid size that fills the GPU exactly once. Cached per device.
int resident_blocks(const void* kernel, int threads);

}  // namespace bandwidth
