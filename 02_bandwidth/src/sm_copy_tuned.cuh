/// \file sm_copy_tuned.cuh
/// \brief Other ways to write an SM copy (persistent grids, more loads in flight, cache hints, the bulk
/// copy engine, and one-change variants of the lesson's kernel), which the D2D duel measures side by side
/// with the lesson's kernel (src/sm_copy.cu) and cudaMemcpy.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <span>

namespace bandwidth {

/// One tuned SM copy. Every variant copies `bytes` bytes between any two non-overlapping device
/// pointers of the current device, any alignment, any length (0 is a no-op); where `src` and `dst`
/// differ modulo 16 it falls back to a byte-wise kernel. Asynchronous on `stream`.
struct SmCopyVariant {
  const char* name;  ///< the row name in the duel table and the JSON
  const char* idea;  ///< one line: what the variant tries
  void (*launch)(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
};

/// Every tuned variant, in the order the duel measures them.
std::span<const SmCopyVariant> tuned_sm_copy_variants();

}  // namespace bandwidth
