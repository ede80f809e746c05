/// \file launch_shape.hpp
/// \brief How many blocks a launch needs for one thread per element: exercise 00.1. Host code (no CUDA),
/// so that the CPU tests check it on any size without a GPU.
#pragma once
#include <cstddef>

namespace first_kernel {

/// The largest grid.x the launcher accepts (CUDA allows 2^31 − 1 blocks along x).
inline constexpr std::size_t max_blocks_x = 0x7fffffff;
/// The largest grid.y (CUDA allows 65,535 blocks along y and z).
inline constexpr std::size_t max_blocks_y = 65535;

/// A grid in two dimensions: `x` blocks across the columns of a matrix, `y` blocks down its rows.
struct Blocks2D {
  unsigned x = 0;
  unsigned y = 0;
};

/// The number of blocks of `block` threads that gives each of `n` elements its own thread (exercise 00.1).
/// Contract, for n ≥ 1 and block ≥ 1: blocks · block ≥ n (every element has a thread) and
/// (blocks − 1) · block < n (no block is launched without an element). Throws course::UsageError when
/// the grid would need more than max_blocks_x blocks.
unsigned blocks_for(std::size_t n, unsigned block);

/// The 2-D grid for a `width` × `height` matrix with blocks of `block_x` × `block_y` threads, one thread
/// per element: blocks_for's contract along each axis (exercise 00.1). Throws course::UsageError past
/// max_blocks_y blocks down the rows.
Blocks2D blocks_for_matrix(unsigned width, unsigned height, unsigned block_x, unsigned block_y);

}  // namespace first_kernel
