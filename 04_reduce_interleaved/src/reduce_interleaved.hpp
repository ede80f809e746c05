/// \file reduce_interleaved.hpp
/// \brief Chapter 04's rung: the interleaved (sequential-addressing) tree.
#pragma once
#include <span>

#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// The chapter's variant table: interleaved.
std::span<const Variant> interleaved_variants();

}  // namespace reduce
