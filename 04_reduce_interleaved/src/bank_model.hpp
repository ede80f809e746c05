/// \file bank_model.hpp
/// \brief The shared-memory bank model the lesson counts with: how many wavefronts one warp's access
/// needs. Host code, so that the CPU tests check the lesson's numbers with it (exercise 04.2).
#pragma once
#include <span>

namespace reduce {

/// Shared-memory wavefronts one warp needs to access `slots` (one slot per active lane, at most 32) of
/// an array of `element_bytes`-byte elements (4, 8 or 16) that starts on a bank boundary.
///
/// Shared memory is 32 banks of 4 bytes: the 4-byte word w lies in bank w mod 32. One wavefront serves
/// at most one distinct word per bank, so the access needs as many wavefronts as the busiest bank has
/// distinct words to deliver; lanes that read the same word share it (a broadcast). An empty access
/// needs none. Throws std::invalid_argument for another element size or more than 32 slots.
unsigned shared_wavefronts(std::span<const unsigned> slots, unsigned element_bytes);

}  // namespace reduce
