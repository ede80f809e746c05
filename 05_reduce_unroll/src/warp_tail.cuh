/// \file warp_tail.cuh
/// \brief The last 64 partial sums of a block, folded by its first warp alone. The file the chapter's
/// lab replaces (lab/warp_tail.cuh holds the book's racy version).
#pragma once

namespace reduce {

// [warp_tail]
/// Called by the 32 lanes of warp 0 (all of them: it has __syncwarp) once s[0..63] hold the block's
/// last 64 partials. Returns the block's sum in lane 0.
///
/// Since Volta, the lanes of a warp are scheduled independently: nothing guarantees that lane 16 has
/// read s[16] before lane 0 overwrites it, nor that lane 0 sees lane 16's write. The first
/// __syncwarp() orders every read before any write; the second makes the writes visible to the next
/// step's reads. `volatile` (the book) only stops the compiler caching s[] in registers: it orders
/// nothing between lanes.
template <class Acc>
__device__ Acc warp_tail(Acc* s, unsigned lane) {
  Acc value = s[lane];
#pragma unroll
  for (unsigned offset = 32; offset > 0; offset /= 2) {
    value += s[lane + offset];
    __syncwarp();
    s[lane] = value;
    __syncwarp();
  }
  return value;
}
// [warp_tail]

}  // namespace reduce
