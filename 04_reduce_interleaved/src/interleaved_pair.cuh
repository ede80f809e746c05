/// \file interleaved_pair.cuh
/// \brief Which pair thread `tid` adds at one step of the interleaved tree. This is the file the
/// chapter's lab replaces (lab/interleaved_pair.cuh).
#pragma once

#include "reduce_ladder/host_device.hpp"

namespace reduce {

/// One step's work for one thread: s[dst] += s[src]; dst < 0 means "idle at this step".
struct SlotPair {
  int dst;
  int src;
};

// [interleaved_pair]
/// At the step with distance `stride` (block/2, block/4, …, 1) the live values are s[0 .. 2·stride).
/// Thread tid < stride folds the upper half onto the lower: s[tid] += s[tid + stride]. A warp reads
/// 32 consecutive slots, so 32 consecutive banks: no conflicts, and the busy threads are contiguous.
REDUCE_HOST_DEVICE constexpr SlotPair interleaved_pair(unsigned tid, unsigned stride) {
  return tid < stride ? SlotPair{static_cast<int>(tid), static_cast<int>(tid + stride)} : SlotPair{-1, -1};
}
// [interleaved_pair]

}  // namespace reduce
