// Grading probe of exercise 05.1 (issue 30; common/include/common/probe.hpp): the raw facts of the
// student's unrolled_index, which the grader compares with the answer's for the same seed.
//
// Several indexings are correct (a block may take its unroll groups of block_dim elements in any order), so
// the probe writes only what every correct one shares:
//  - each block's reads, sorted and counted from the block's first element (b·unroll·block_dim): exactly
//    0 … unroll·block_dim − 1 when the block reads every element of its tile once and nothing outside it;
//    at blocks 0, 1 and one drawn from the seed, for unroll 1, 2, 4, 8 and blocks of 64 … 1024 threads;
//  - for every warp and every load k of those blocks, the steps between neighbouring lanes' elements (all 1
//    when the warp's load is 32 consecutive elements, lane l at first + l: one coalesced load);
//  - the sums the unrolled rungs' blocks compute (unrolled_load_sum, run on the CPU: elements at or past n
//    skipped) of random ints, per block, for the tests' awkward sizes and sizes drawn from the seed.
// CPU only (a .cu file because unroll_load.cuh holds device code too; no CUDA call is made): the GPU rungs
// add exactly these elements, so their sums follow from the last item.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "unroll_load.cuh"

namespace {

using course::probe::Cases;
using course::probe::Random;
using reduce::unrolled_index;

constexpr unsigned unrolls[] = {1, 2, 4, 8};
constexpr unsigned blocks[] = {64, 128, 256, 512, 1024};

long long as_signed(std::size_t value) { return static_cast<long long>(value); }

std::string shape_name(unsigned unroll, unsigned block) {
  return "unroll " + std::to_string(unroll) + ", block " + std::to_string(block);
}

void add_tiles_and_warps(Cases& cases, std::uint64_t seed) {
  Random random(course::probe::mix(seed, 0x0501a001ULL));
  for (const unsigned unroll : unrolls)
    for (const unsigned block : blocks) {
      const std::size_t tile = std::size_t{unroll} * block;
      // Block indices: the first two, and one far into a grid of 2^28 + elements.
      const std::size_t far = 2 + random.below((std::size_t{1} << 29) / tile);
      std::vector<long long> reads, steps;
      for (const std::size_t b : {std::size_t{0}, std::size_t{1}, far}) {
        std::vector<long long> block_reads;
        for (unsigned tid = 0; tid < block; ++tid)
          for (unsigned k = 0; k < unroll; ++k)
            block_reads.push_back(as_signed(unrolled_index(b, block, tid, k, unroll)) - as_signed(b * tile));
        std::sort(block_reads.begin(), block_reads.end());
        reads.insert(reads.end(), block_reads.begin(), block_reads.end());
        for (unsigned warp = 0; warp < block / 32; ++warp)
          for (unsigned k = 0; k < unroll; ++k)
            for (unsigned lane = 1; lane < 32; ++lane)
              steps.push_back(as_signed(unrolled_index(b, block, warp * 32 + lane, k, unroll)) -
                              as_signed(unrolled_index(b, block, warp * 32 + lane - 1, k, unroll)));
      }
      cases.add_exact("reads of blocks 0, 1 and a seed-drawn block, sorted, from the block's tile start, " +
                          shape_name(unroll, block),
                      reads);
      cases.add_exact("steps between neighbouring lanes' elements, every warp and load of those blocks, " +
                          shape_name(unroll, block),
                      steps);
    }
}

// unrolled_load_sum on the CPU: thread tid of block b adds its unroll elements below n.
std::vector<long long> block_sums(const std::vector<int>& data, std::size_t n, unsigned unroll, unsigned block) {
  const std::size_t tile = std::size_t{unroll} * block;
  const std::size_t grid = (n + tile - 1) / tile;  // the rungs' grid: ceil(n / (unroll·block))
  std::vector<long long> sums(grid, 0);
  for (std::size_t b = 0; b < grid; ++b)
    for (unsigned tid = 0; tid < block; ++tid)
      for (unsigned k = 0; k < unroll; ++k) {
        const std::size_t i = unrolled_index(b, block, tid, k, unroll);
        if (i < n) sums[b] += data[i];
      }
  return sums;
}

void add_block_sums(Cases& cases, std::uint64_t seed) {
  constexpr std::size_t largest = 200000;  // the tests' drawn sizes reach 200000
  Random random(course::probe::mix(seed, 0x0501b002ULL));
  std::vector<int> data(largest);
  for (int& x : data) x = static_cast<int>(random.below(std::uint64_t{3} << 30)) - (1 << 30);
  for (const unsigned unroll : unrolls)
    for (const unsigned block : blocks) {
      std::vector<std::size_t> sizes{1, 31, 33, block - 1u, block + 1u, unroll * block, unroll * block + 1u,
                                     3u * unroll * block + 17u};
      for (int drawn = 0; drawn < 3; ++drawn) sizes.push_back(1 + random.below(largest));
      for (const std::size_t n : sizes)
        cases.add_exact("block sums of random ints, n = " + std::to_string(n) + ", " + shape_name(unroll, block),
                        block_sums(data, n, unroll, block));
    }
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "05.1", false);
  if (options.timed()) throw course::UsageError("exercise 05.1 is not timed: use --out FILE");
  Cases cases("05.1", options.seed);
  add_tiles_and_warps(cases, options.seed);
  add_block_sums(cases, options.seed);
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_05_1", body, argc, argv); }
