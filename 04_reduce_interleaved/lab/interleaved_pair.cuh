/// \file interleaved_pair.cuh
/// \brief LAB (chapter 04, "sequential addressing"): this file replaces src/interleaved_pair.cuh when the
/// course is built with `cmake --workflow --preset lab`.
///
/// The interleaved kernel runs `for (stride = block/2; stride > 0; stride /= 2)` and, at each step, lets
/// thread tid do s[dst] += s[src] with the pair this function returns ({-1, -1}: idle this step).
/// Before the step, the values still to be added are s[0 .. 2·stride).
///
/// TODO: return the pair that
///   1. folds the upper half of the live values onto the lower half, so that s[0] ends as the sum, and
///   2. makes the 32 threads of a warp read 32 *consecutive* slots (consecutive banks: no conflicts),
///      with the busy threads contiguous from 0.
/// As given, every thread idles: the sums are wrong and the tests fail.
/// Graded by: ctest --test-dir build-lab -L lab
///   - "the interleaved pairs fold every slot into s[0] exactly once" (CPU);
///   - "a warp's interleaved reads fall in distinct banks" (CPU);
///   - the GPU sums against the CPU on awkward sizes (needs a GPU).
#pragma once

#include "reduce_ladder/host_device.hpp"

namespace reduce {

/// One step's work for one thread: s[dst] += s[src]; dst < 0 means "idle at this step".
struct SlotPair {
  int dst;
  int src;
};

REDUCE_HOST_DEVICE constexpr SlotPair interleaved_pair(unsigned tid, unsigned stride) {
  (void)tid;
  (void)stride;
  return SlotPair{-1, -1};  // TODO: your pair here.
}

}  // namespace reduce
