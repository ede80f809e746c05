/// \file reduce_interleaved.hpp
/// \brief Chapter 04's rung: the interleaved (sequential-addressing) tree.
#pragma once
#include <span>

#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// The chapter's variant table: interleaved.
std::span<const Variant> interleaved_variants();

/// Exercise 04.3's rung, interleaved_grid_stride, in a table of its own: the program
/// reduce_interleaved_exercise runs it beside the lesson's rung (the lesson's table and results do not
/// change).
std::span<const Variant> interleaved_exercise_variants();

}  // namespace reduce
