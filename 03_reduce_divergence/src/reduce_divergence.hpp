/// \file reduce_divergence.hpp
/// \brief Chapter 03's rungs: the neighbored tree, with and without warp divergence.
#pragma once
#include <cstddef>
#include <span>

#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// The chapter's variant table: neighbored, neighbored_less.
std::span<const Variant> divergence_variants();

/// Exercise 03.3's rung, neighbored_less_x2, in a table of its own: the program
/// reduce_divergence_exercise runs it beside the lesson's rungs (the lesson's table and results do not
/// change).
std::span<const Variant> divergence_exercise_variants();

/// The grid of both rungs: one block of `block` threads for every `block` elements, the last, partial
/// block included, so that every n ≥ 1 is summed (exercise 03.2). Throws UsageError past 2^31 − 1
/// blocks.
LaunchShape neighbored_shape(std::size_t n, unsigned block, int sm_count);

/// The divergent rule of the book's first kernel: thread tid works at a step when tid % (2·stride) == 0.
int neighbored_slot_on_host(unsigned tid, unsigned stride, unsigned block);
/// The rule the neighbored_less kernel uses (neighbored_less_slot.cuh, exercise 03.1), for the CPU tests.
int neighbored_less_slot_on_host(unsigned tid, unsigned stride, unsigned block);

}  // namespace reduce
