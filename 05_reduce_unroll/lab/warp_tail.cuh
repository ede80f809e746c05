/// \file warp_tail.cuh
/// \brief LAB (chapter 05, "fix the warp race"): replaces src/warp_tail.cuh when the course is built
/// with `cmake --workflow --preset lab`.
///
/// warp_tail() is called by the 32 lanes of warp 0 once s[0..63] hold a block's last 64 partial
/// sums; it must return the block's sum in lane 0. As given, it is the book's warp-synchronous code:
/// `volatile` shared memory and no synchronisation, relying on the 32 lanes running in lock step.
/// Since Volta (independent thread scheduling) they need not: lane 0 may read s[16] before lane 16
/// has written it, or after lane 16 has already moved on. It usually gives the right sum, which is
/// exactly why it is dangerous.
///
/// TODO: make it correct for independent thread scheduling. Two good answers:
///   (a) keep shared memory, drop `volatile`, and separate every read from the writes that follow it
///       (and every write from the reads that follow it) with __syncwarp();
///   (b) read s[lane] + s[lane + 32] into a register and finish with __shfl_down_sync (see
///       warp_sum() in reduce_ladder/include/reduce_ladder/device.cuh).
/// Graded by: ctest --test-dir build-lab -L lab
///   - reduce_unroll.lab_racecheck: compute-sanitizer --tool racecheck on the three rungs that call
///     warp_tail (unroll8_last_warp, unroll8_complete, unroll8_templated) must report no hazard;
///   - reduce_unroll_tests.gpu: every rung's sum against the CPU on awkward sizes and block sizes.
#pragma once

namespace reduce {

template <class Acc>
__device__ Acc warp_tail(Acc* s, unsigned lane) {
  volatile Acc* vs = s;  // TODO: the race is here (see above)
  vs[lane] = vs[lane] + vs[lane + 32];
  vs[lane] = vs[lane] + vs[lane + 16];
  vs[lane] = vs[lane] + vs[lane + 8];
  vs[lane] = vs[lane] + vs[lane + 4];
  vs[lane] = vs[lane] + vs[lane + 2];
  vs[lane] = vs[lane] + vs[lane + 1];
  return vs[lane];
}

}  // namespace reduce
