/// \file reduce_divergence.hpp
/// \brief Chapter 03's rungs: the neighbored tree, with and without warp divergence.
#pragma once
#include <span>

#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// The chapter's variant table: neighbored, neighbored_less.
std::span<const Variant> divergence_variants();

/// The divergent rule of the book's first kernel: thread tid works at a step when tid % (2·stride) == 0.
int neighbored_slot_on_host(unsigned tid, unsigned stride, unsigned block);
/// The rule the neighbored_less kernel uses (the lab's function), callable from CPU tests.
int neighbored_less_slot_on_host(unsigned tid, unsigned stride, unsigned block);

}  // namespace reduce
