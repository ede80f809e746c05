/// \file reduce_unroll.hpp
/// \brief Chapter 05's rungs: the book's unrolling (2/4/8 blocks per block, last warp, complete and
/// templated unroll), then past the book (warp shuffles, 16-byte loads, a persistent grid, a
/// single-pass reduction) and CUB as the library baseline.
#pragma once
#include <span>

#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// The book's unrolling rungs: unroll2 … unroll8_templated.
std::span<const Variant> unroll_variants();
/// Past the book: shuffle_unroll8, int4_grid_stride, single_pass_x4/x8/x8_b256.
std::span<const Variant> beyond_book_variants();
/// The library baseline: cub::DeviceReduce::Sum, int in, 64-bit sum out.
std::span<const Variant> library_variants();

}  // namespace reduce
