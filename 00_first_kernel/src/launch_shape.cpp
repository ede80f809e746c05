// The number of blocks of a launch (exercise 00.1): host code, tested on the CPU.
#include "launch_shape.hpp"

#include <string>

#include "common/errors.hpp"

namespace first_kernel {

unsigned blocks_for(std::size_t n, unsigned block) {
// BEGIN SOLUTION 00.1
#ifndef COURSE_STUB_00_1
  const std::size_t blocks = (n + block - 1) / block;  // rounded up: the last, partial block is launched
#else
  // TODO (exercise 00.1): for some sizes the kernels leave elements untouched, or cannot be launched at
  // all (see the task in exercises.json). Find the bug in this line and fix it.
  const std::size_t blocks = n / block;  // one block for every `block` elements
#endif
// END SOLUTION 00.1
  if (blocks > max_blocks_x)
    throw course::UsageError(std::to_string(n) + " elements need more than 2^31 - 1 blocks of " +
                             std::to_string(block) + " threads");
  return static_cast<unsigned>(blocks);
}

Blocks2D blocks_for_matrix(unsigned width, unsigned height, unsigned block_x, unsigned block_y) {
  const unsigned down = blocks_for(height, block_y);
  if (down > max_blocks_y)
    throw course::UsageError("a matrix of " + std::to_string(height) + " rows needs more than 65535 blocks of " +
                             std::to_string(block_y) + " rows");
  return {blocks_for(width, block_x), down};
}

}  // namespace first_kernel
