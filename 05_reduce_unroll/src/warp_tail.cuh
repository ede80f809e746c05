/// \file warp_tail.cuh
/// \brief The last 64 partial sums of a block, folded by its first warp alone (exercise 05.2).
#pragma once

namespace reduce {

/// Called by the 32 lanes of warp 0 (all of them: it has __syncwarp) once s[0..63] hold the block's
/// last 64 partials. Returns the block's sum in lane 0.
///
/// Since Volta, the lanes of a warp are scheduled independently: nothing guarantees that lane 16 has
/// read s[16] before lane 0 overwrites it, nor that lane 0 sees lane 16's write, unless the code says
/// so. `volatile` (the book) only stops the compiler caching s[] in registers: it orders nothing
/// between lanes.
template <class Acc>
__device__ Acc warp_tail(Acc* s, unsigned lane) {
// BEGIN SOLUTION 05.2
#ifndef COURSE_STUB_05_2
  // The first __syncwarp() orders every lane's read before any lane's write; the second makes the
  // writes visible to the next step's reads.
  Acc value = s[lane];
#pragma unroll
  for (unsigned offset = 32; offset > 0; offset /= 2) {
    value += s[lane + offset];
    __syncwarp();
    s[lane] = value;
    __syncwarp();
  }
  return value;
#else
  // TODO (exercise 05.2): the book's warp-synchronous code. It usually returns the right sum, and it
  // has a data race; make it correct under independent thread scheduling (see the task).
  volatile Acc* vs = s;
  vs[lane] = vs[lane] + vs[lane + 32];
  vs[lane] = vs[lane] + vs[lane + 16];
  vs[lane] = vs[lane] + vs[lane + 8];
  vs[lane] = vs[lane] + vs[lane + 4];
  vs[lane] = vs[lane] + vs[lane + 2];
  vs[lane] = vs[lane] + vs[lane + 1];
  return vs[lane];
#endif
// END SOLUTION 05.2
}

}  // namespace reduce
