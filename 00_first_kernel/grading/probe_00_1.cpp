// Grading probe of exercise 00.1 (common/probe.hpp): the launch shapes the exercise's own
// src/launch_shape.cpp gives, written raw for the grader to compare with the instructor's build.
//
// The contract (blocks · block ≥ n and (blocks − 1) · block < n, along each axis for a matrix) has exactly
// one answer, ceil(n / block), so the block counts themselves are written, exactly: no other answer
// produces them. A size whose grid exceeds CUDA's limit makes blocks_for throw (its code outside the
// solution region); that is written as -1, so an answer that rounds down past the limit shows too.
// CPU only: the test suite's GPU case (saxpy_on_gpu and the rungs on the chapter's grid) runs only on a
// GPU machine and is not part of this verdict; every kernel's grid is these numbers.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../src/launch_shape.hpp"
#include "common/errors.hpp"
#include "common/probe.hpp"

namespace {

using course::probe::Random;

long long blocks_or_refused(std::size_t n, unsigned block) {
  try {
    return first_kernel::blocks_for(n, block);
  } catch (const course::UsageError&) {
    return -1;  // more than max_blocks_x blocks: the launcher refuses the size
  }
}

/// The tests' awkward sizes for a block, and more: multiples of the block (block divides n), one either
/// side of them, primes, 2^32, the largest size CUDA's grid allows and the first one past it.
std::vector<std::size_t> sizes_for(unsigned block, Random& random) {
  std::vector<std::size_t> sizes = {1, 2, 7, 31, 32, 33, 97, block - 1 == 0 ? 1 : block - 1, block, block + 1,
                                    2 * block, 2 * block + 1, 1000, 1000 * std::size_t{block}, 100003, 999983,
                                    (std::size_t{1} << 20) + 7, std::size_t{1} << 32, (std::size_t{1} << 32) + 1};
  const std::size_t limit = first_kernel::max_blocks_x * std::size_t{block};
  sizes.push_back(limit - 1);
  sizes.push_back(limit);
  sizes.push_back(limit + 1);  // one element past the largest grid: refused
  for (int i = 0; i < 24; ++i) sizes.push_back(1 + random.below(std::size_t{1} << 32));
  for (int i = 0; i < 8; ++i) sizes.push_back(1 + random.below(5000));
  for (int i = 0; i < 4; ++i) sizes.push_back(std::size_t{block} * (1 + random.below(100000)));  // divisible
  return sizes;
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "00.1", false);
  Random random(course::probe::mix(options.seed, 0x001));
  course::probe::Cases cases("00.1", options.seed);

  for (const unsigned block : {1u, 3u, 32u, 100u, 128u, 256u, 1000u, 1024u}) {
    std::vector<long long> blocks;
    std::vector<std::string> sizes;
    for (const std::size_t n : sizes_for(block, random)) {
      blocks.push_back(blocks_or_refused(n, block));
      sizes.push_back(std::to_string(n));
    }
    // The sizes come from the seed: written too, so a report names the size of a wrong count.
    cases.add_exact("blocks_for sizes, block=" + std::to_string(block), sizes);
    cases.add_exact("blocks_for(n, block=" + std::to_string(block) + ")", blocks);
  }

  // Matrices: the tests' awkward shapes, tall and wide extremes, and shapes drawn from the seed.
  std::vector<std::pair<unsigned, unsigned>> shapes = {{1, 1},    {31, 33},   {33, 31},  {32, 32},   {1, 1000},
                                                       {1000, 1}, {1000, 999}, {4097, 65}, {64, 4099}, {5000, 5000},
                                                       {8192, 8192}, {65535, 1}, {1, 65535}};
  for (int i = 0; i < 10; ++i)
    shapes.emplace_back(static_cast<unsigned>(1 + random.below(5000)), static_cast<unsigned>(1 + random.below(5000)));
  const std::vector<std::pair<unsigned, unsigned>> tiles = {{32, 32}, {32, 8}, {16, 16}, {1, 1}, {7, 3}};
  for (const auto& [bx, by] : tiles) {
    std::vector<long long> grid;
    for (const auto& [w, h] : shapes) {
      try {
        const first_kernel::Blocks2D b = first_kernel::blocks_for_matrix(w, h, bx, by);
        grid.push_back(b.x);
        grid.push_back(b.y);
      } catch (const course::UsageError&) {
        grid.push_back(-1);  // more than 65535 blocks down the rows: refused
        grid.push_back(-1);
      }
    }
    std::string name = "blocks_for_matrix x,y per shape, blocks " + std::to_string(bx) + "x" + std::to_string(by) + ":";
    for (const auto& [w, h] : shapes) {
      // Appended piece by piece: g++ 12 -Werror=restrict misreads `" " + std::to_string(w)` (a false positive).
      name += ' ';
      name += std::to_string(w);
      name += 'x';
      name += std::to_string(h);
    }
    cases.add_exact(name, grid);
  }
  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_00_1", body, argc, argv); }
