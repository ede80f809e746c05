/// \file neighbored_less_slot.cuh
/// \brief Which shared-memory slot thread `tid` folds into at one step of the neighbored tree, without
/// divergence. This is the file the chapter's lab replaces (lab/neighbored_less_slot.cuh).
#pragma once

#include "reduce_ladder/host_device.hpp"

namespace reduce {

// [neighbored_less_slot]
/// At the step with distance `stride`, the pairs to add are (k·2·stride, k·2·stride + stride). Give
/// pair k to thread k: the busy threads are 0, 1, 2, … — whole warps work and whole warps idle, so a
/// warp never has to run both sides of the branch.
REDUCE_HOST_DEVICE constexpr int neighbored_less_slot(unsigned tid, unsigned stride, unsigned block) {
  const unsigned slot = 2 * stride * tid;
  return slot < block ? static_cast<int>(slot) : -1;
}
// [neighbored_less_slot]

}  // namespace reduce
