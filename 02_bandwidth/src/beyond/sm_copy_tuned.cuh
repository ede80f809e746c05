/// \file sm_copy_tuned.cuh
/// \brief Beyond the lesson: other ways to write an SM copy (persistent grids, more loads in flight,
/// cache hints, the bulk copy engine, and one-change variants of the lesson's kernel), which the D2D duel
/// measures in the same interleaved trials as the lesson's kernel (src/sm_copy.cu) and cudaMemcpy, and
/// the program shows in a table of their own. The one-change variants are exercise 02.3's answer with a
/// knob turned: a handout that sets 02.3 leaves them out of the table.
#pragma once
#include <span>

#include "sm_copy.cuh"

namespace bandwidth {

/// Every tuned variant, in the order the duel measures them.
std::span<const SmCopyVariant> tuned_sm_copy_variants();

}  // namespace bandwidth
