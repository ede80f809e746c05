/// \file interleaved_pair.cuh
/// \brief Which pair thread `tid` adds at one step of the interleaved tree: the rule of the
/// `interleaved` rung, and exercise 04.1.
#pragma once

#include "reduce_ladder/host_device.hpp"

namespace reduce {

/// One step's work for one thread: s[dst] += s[src]; dst < 0 means "idle at this step".
struct SlotPair {
  int dst;
  int src;
};

/// At the step with distance `stride` (block/2, block/4, …, 1) the values still to be added are
/// s[0 .. 2·stride). The step folds the upper half of them onto the lower half, so that s[0] ends as
/// the block's sum. Returns the pair thread `tid` adds, or {-1, -1} when it idles: the busy threads are
/// 0 … stride − 1, and the 32 threads of a warp read 32 consecutive slots (consecutive banks, no
/// conflicts).
REDUCE_HOST_DEVICE constexpr SlotPair interleaved_pair(unsigned tid, unsigned stride) {
// BEGIN SOLUTION 04.1
#ifndef COURSE_STUB_04_1
  return tid < stride ? SlotPair{static_cast<int>(tid), static_cast<int>(tid + stride)} : SlotPair{-1, -1};
#else
  // TODO (exercise 04.1): give the step's pairs to the threads so that the busy threads are
  // 0 … stride − 1 and a warp reads consecutive slots. As given, the even threads do the work: the sums
  // are right, but half the lanes of every busy warp idle.
  const unsigned pair = tid / 2;
  return tid % 2 == 0 && pair < stride ? SlotPair{static_cast<int>(pair), static_cast<int>(pair + stride)}
                                       : SlotPair{-1, -1};
#endif
// END SOLUTION 04.1
}

}  // namespace reduce
