// Grading probe of exercise 03.2 (common/probe.hpp): neighbored_shape (src/neighbored_shape.cpp, the
// student's file, in the chapter's library as the tests link it) for sizes and blocks drawn from the
// grader's seed. The contract fixes the grid (grid·block ≥ n and (grid − 1)·block < n: grid = ceil(n /
// block)), so the probe writes, raw and exactly, per block size:
//  - "shape": (grid, block) for every size (a size the function refuses: (-1, -1));
//  - "covered": for the smaller sizes, the sum that the neighbored rung adds on that grid (the ints below
//    min(n, grid·block), drawn from the seed): what the shape does to a sum.
// It judges nothing; the grader compares the values with the instructor build's for the same seed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "reduce_divergence.hpp"

namespace {

using course::probe::mix;
using course::probe::Random;

constexpr unsigned blocks[] = {64, 128, 256, 512, 1024};
constexpr std::size_t covered_limit = std::size_t{1} << 21;  // sums written for sizes up to here

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "03.2", false);
  course::probe::Cases cases("03.2", options.seed);
  Random random(mix(options.seed, 0x0302));
  std::vector<long long> data(covered_limit + 1024);
  for (auto& x : data) x = static_cast<long long>(random.below(1u << 31)) - (1LL << 30);

  for (const unsigned block : blocks) {
    // The tests' awkward sizes, multiples of the block and either side, 2^32, and sizes drawn from the seed
    // on a log scale up to 2^32.
    std::vector<std::size_t> sizes{1, 2, 3, 5, 31, 32, 33, block - 1u, block, block + 1u, 2u * block - 1u, 2u * block,
                                   8u * block + 7u, 70001, 1000003, 3u * 65536u + 17u, std::size_t{1} << 24,
                                   (std::size_t{1} << 24) + 3, (std::size_t{1} << 32) - 1, std::size_t{1} << 32};
    for (int k = 0; k < 20; ++k) {
      const double fraction = random.uniform(0.0, 1.0);
      sizes.push_back(std::clamp<std::size_t>(static_cast<std::size_t>(std::pow(4294967296.0, fraction)), 1,
                                              std::size_t{1} << 32));
    }
    for (int k = 0; k < 4; ++k) {
      const std::size_t whole = (1 + random.below((std::size_t{1} << 32) / block - 1)) * block;
      sizes.push_back(whole);
      sizes.push_back(whole - 1);
      sizes.push_back(whole + 1);
    }
    std::string sizes_text;
    std::vector<long long> shapes, covered;
    for (const std::size_t n : sizes) {
      if (!sizes_text.empty()) sizes_text += ",";
      sizes_text += std::to_string(n);
      reduce::LaunchShape shape{};
      bool refused = false;
      try {
        shape = reduce::neighbored_shape(n, block, 132);
      } catch (const course::UsageError&) {
        refused = true;
      }
      shapes.push_back(refused ? -1 : static_cast<long long>(shape.grid));
      shapes.push_back(refused ? -1 : static_cast<long long>(shape.block));
      if (n <= covered_limit) {
        const std::size_t threads = refused ? 0 : std::size_t{shape.grid} * shape.block;
        long long sum = 0;
        for (std::size_t i = 0; i < std::min(n, threads); ++i) sum += data[i];
        covered.push_back(sum);
      }
    }
    cases.add_exact("shape block=" + std::to_string(block) + " n=" + sizes_text, shapes);
    cases.add_exact("covered sum block=" + std::to_string(block) + " n<=2^21 of those sizes", covered);
  }
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_03_2", body, argc, argv); }
