/// \file neighbored_less_slot.cuh
/// \brief Which shared-memory slot thread `tid` folds into at one step of the neighbored tree, without
/// divergence: the rule of the `neighbored_less` rung, and exercise 03.1.
#pragma once

#include "reduce_ladder/host_device.hpp"

namespace reduce {

/// At the step with distance `stride` (1, 2, 4, … < block) the pairs to add are
/// (k·2·stride, k·2·stride + stride) for k = 0, 1, …: the same pairs as the book's rule
/// (neighbored_slot). Returns the slot thread `tid` adds into, s[slot] += s[slot + stride], or -1 when
/// `tid` idles at this step. Here the busy threads are 0, 1, 2, …, one pair each, so that whole warps
/// work and whole warps idle: a warp never has to run both sides of the branch.
REDUCE_HOST_DEVICE constexpr int neighbored_less_slot(unsigned tid, unsigned stride, unsigned block) {
// BEGIN SOLUTION 03.1
#ifndef COURSE_STUB_03_1
  const unsigned slot = 2 * stride * tid;
  return slot < block ? static_cast<int>(slot) : -1;
#else
  // TODO (exercise 03.1): keep the pairs, change which thread adds which pair, so that the busy threads
  // are 0, 1, 2, … and every other thread returns -1. As given, this is the book's divergent rule: the
  // sums are right, but at every step below 32 each warp has busy and idle lanes.
  (void)block;
  return tid % (2 * stride) == 0 ? static_cast<int>(tid) : -1;
#endif
// END SOLUTION 03.1
}

}  // namespace reduce
