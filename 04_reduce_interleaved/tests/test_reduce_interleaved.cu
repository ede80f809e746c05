// Chapter 04's claims, as tests: the interleaved tree folds every slot exactly once with its busy
// threads contiguous and a warp's reads consecutive; the bank model gives the lesson's wavefront counts
// (two for a warp reading consecutive 8-byte sums; for neighbored_less at block 512, 32 at stride 8 with
// 8-byte sums, never more than 16 with 4-byte floats); in the book's in-place kernels an interleaved
// warp's global loads are the fewest sectors; every rung sums every size exactly (the suite "gpu", which
// the test preset runs). The claims that rest on an exercise's code are that exercise's suite (exercise
// 04.1, 04.2, 04.3): a handout's stubs fail them, the chapter's own runs leave them out.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bank_model.hpp"
#include "common/device.cuh"
#include "interleaved_pair.cuh"
#include "ladder_checks.cuh"
#include "reduce_interleaved.hpp"

using namespace reduce;

namespace {
// The slots a warp reads when lane l reads slot first + l·spacing.
std::vector<unsigned> strided(unsigned first, unsigned spacing, unsigned lanes = 32) {
  std::vector<unsigned> slots;
  for (unsigned lane = 0; lane < lanes; ++lane) slots.push_back(first + lane * spacing);
  return slots;
}
unsigned wavefronts(unsigned first, unsigned spacing, unsigned element_bytes) {
  return shared_wavefronts(strided(first, spacing), element_bytes);
}
// The slots warp 0 of neighbored_less reads at one step (the right-hand element of each busy lane's
// pair, as in chapter 03): block / (2·stride) threads are busy, at most the warp's 32, their slots
// 2·stride apart from slot `stride`.
std::vector<unsigned> neighbored_less_reads(unsigned stride, unsigned block) {
  return strided(stride, 2 * stride, std::min(32u, block / (2 * stride)));
}
// The 32-byte global-memory sectors a warp's loads of the 4-byte ints idata[index] touch: what the
// book's in-place kernels, whose tree works on global memory, pay per request.
unsigned sectors_of(const std::vector<unsigned>& indices) {
  std::set<unsigned> sectors;
  for (const unsigned i : indices) sectors.insert(i * 4 / 32);
  return static_cast<unsigned>(sectors.size());
}
}  // namespace

TEST_CASE("the variant tables are well formed and bad options are refused before the GPU") {
  checks::check_table(interleaved_variants());
  checks::check_table(interleaved_exercise_variants());
  checks::check_validation(interleaved_variants());
}

TEST_CASE("the bank model refuses what it does not model: other element sizes, more than 32 lanes") {
  CHECK(shared_wavefronts({}, 8) == 0);
  CHECK_THROWS_AS(shared_wavefronts(strided(0, 1), 2), std::invalid_argument);
  CHECK_THROWS_AS(shared_wavefronts(strided(0, 1), 32), std::invalid_argument);
  CHECK_THROWS_AS(shared_wavefronts(strided(0, 1, 33), 4), std::invalid_argument);
}

TEST_SUITE("gpu") {
  TEST_CASE("every rung of the chapter's tables sums every awkward size, block and start: ints exactly, floats within the rounding bound") {
    // The lesson's rung and exercise 04.3's, each on its own grid (no stub of this chapter changes a
    // grid or a sum: 04.1's and 04.3's are right and slow, 04.2 is the CPU bank model).
    std::vector<Variant> rungs;
    for (const auto table : {interleaved_variants(), interleaved_exercise_variants()})
      rungs.insert(rungs.end(), table.begin(), table.end());
    checks::check_every_rung(rungs);
  }

  TEST_CASE("interleaved_grid_stride's grid is one resident wave at most, and at least one block") {
    const int sm_count = course::require_device(0).sm_count;
    const Variant& v = interleaved_exercise_variants()[0];
    for (const unsigned block : checks::all_blocks) {
      const LaunchShape big = v.shape(std::size_t{1} << 28, block, sm_count);
      CAPTURE(block);
      CHECK(big.block == block);
      CHECK(big.grid >= static_cast<unsigned>(sm_count));
      CHECK(big.grid <= static_cast<unsigned>(sm_count) * 2048u / block);
      CHECK(v.shape(1, block, sm_count).grid == 1);
      CHECK(v.shape(3 * block, block, sm_count).grid == 3);
    }
  }
}

TEST_SUITE("exercise 04.1") {
  TEST_CASE("the interleaved pairs fold every slot into s[0] exactly once, without races") {
    for (unsigned block : checks::all_blocks) {
      CAPTURE(block);
      // contributions[i][j]: how many times slot j's original value is in s[i].
      std::vector<std::vector<int>> contributions(block, std::vector<int>(block, 0));
      for (unsigned i = 0; i < block; ++i) contributions[i][i] = 1;
      for (unsigned stride = block / 2; stride > 0; stride /= 2) {
        CAPTURE(stride);
        std::set<int> written, read;
        std::vector<std::pair<int, int>> ops;
        for (unsigned tid = 0; tid < block; ++tid) {
          const SlotPair p = interleaved_pair(tid, stride);
          if (p.dst < 0) continue;
          REQUIRE(p.dst < static_cast<int>(block));
          REQUIRE(p.src >= 0);
          REQUIRE(p.src < static_cast<int>(block));
          CHECK(written.insert(p.dst).second);  // two threads never write one slot in the same step
          read.insert(p.src);
          ops.emplace_back(p.dst, p.src);
        }
        for (int w : written) CHECK(read.count(w) == 0);  // no slot is read and written in one step
        for (const auto& [dst, src] : ops)
          for (unsigned j = 0; j < block; ++j) contributions[dst][j] += contributions[src][j];
      }
      CHECK(std::all_of(contributions[0].begin(), contributions[0].end(), [](int c) { return c == 1; }));
    }
  }

  TEST_CASE("the busy threads are 0 … stride − 1 and each busy warp reads and writes consecutive slots") {
    for (unsigned block : checks::all_blocks)
      for (unsigned stride = block / 2; stride > 0; stride /= 2) {
        CAPTURE(block);
        CAPTURE(stride);
        unsigned busy = 0;
        for (unsigned tid = 0; tid < block; ++tid) {
          if (interleaved_pair(tid, stride).dst < 0) continue;
          CHECK(tid == busy);  // busy threads are 0, 1, 2, … with no gaps
          ++busy;
        }
        CHECK(busy == stride);
        // A warp's slots form one run of consecutive slots (in either order): consecutive 8-byte words,
        // the fewest wavefronts 32 lanes can need.
        for (unsigned warp = 0; warp * 32 < busy; ++warp) {
          std::set<int> sources, destinations;
          const unsigned lanes = std::min(32u, busy - warp * 32);
          for (unsigned lane = 0; lane < lanes; ++lane) {
            const SlotPair pair = interleaved_pair(warp * 32 + lane, stride);
            sources.insert(pair.src);
            destinations.insert(pair.dst);
          }
          CAPTURE(warp);
          CHECK(sources.size() == lanes);
          CHECK(*sources.rbegin() - *sources.begin() + 1 == static_cast<int>(lanes));
          CHECK(destinations.size() == lanes);
          CHECK(*destinations.rbegin() - *destinations.begin() + 1 == static_cast<int>(lanes));
        }
      }
  }

  TEST_CASE("in the book's in-place kernels, an interleaved warp reads 4 global sectors, the fewest for 32 ints") {
    // The book's reduceInterleaved runs this pair rule on global ints, in place: a warp's loads and its
    // store are 32 consecutive ints, 128 bytes, 4 sectors of 32 bytes.
    for (unsigned stride = 32; stride <= 512; stride *= 2) {
      std::vector<unsigned> dst, src;
      for (unsigned lane = 0; lane < 32; ++lane) {
        const SlotPair pair = interleaved_pair(lane, stride);
        REQUIRE(pair.dst >= 0);
        dst.push_back(static_cast<unsigned>(pair.dst));
        src.push_back(static_cast<unsigned>(pair.src));
      }
      CAPTURE(stride);
      CHECK(sectors_of(dst) == 4);
      CHECK(sectors_of(src) == 4);
    }
    // reduceNeighboredLess's busy lanes read ints 2·stride apart, 8·stride bytes: the same 128 useful
    // bytes come from 8, 16, then 32 sectors (50 %, 25 %, 12.5 % of the fetched bytes used).
    CHECK(sectors_of(neighbored_less_reads(1, 512)) == 8);
    CHECK(sectors_of(neighbored_less_reads(2, 512)) == 16);
    CHECK(sectors_of(neighbored_less_reads(4, 512)) == 32);
  }

  TEST_CASE("interleaved gives the exact int64 sum for every size and block (on a GPU, when there is one)") {
    if (!checks::gpu_present_for_cpu_exercise()) return;
    const std::uint64_t seed = checks::seed_from_env(41);
    const auto sizes = checks::random_sizes(seed, 6, checks::big);
    checks::check_ints(interleaved_variants(), checks::all_blocks, true, seed, sizes);
    checks::check_floats(interleaved_variants(), checks::all_blocks, seed + 1);
  }
}

TEST_SUITE("exercise 04.2") {
  TEST_CASE("interleaved reads of a warp are consecutive: two wavefronts for 8-byte sums, the minimum") {
    // A busy interleaved warp (any step with stride >= 32) reads 32 consecutive slots: spacing 1.
    CHECK(wavefronts(32, 1, 8) == 2);
    // neighbored_less at stride s, a full warp busy: lanes 2·s slots apart, up to 32 wavefronts (at
    // stride 16 that takes a block of 1024; the next case is the benchmark's block of 512).
    CHECK(wavefronts(1, 2, 8) == 4);
    CHECK(wavefronts(2, 4, 8) == 8);
    CHECK(wavefronts(16, 32, 8) == 32);
  }

  TEST_CASE("neighbored_less's reads at block 512: all 32 lanes share a bank at stride 8 for 8-byte sums, never for floats") {
    // The lesson's table. 8-byte sums: lanes 16·stride bytes apart; the minimum is 2 (16 lanes busy: 1).
    const unsigned sums[] = {4, 8, 16, 32, 16, 8, 4, 2, 1};  // strides 1, 2, 4, …, 256
    // 4-byte floats: lanes 8·stride bytes apart; the minimum is 1.
    const unsigned floats[] = {2, 4, 8, 16, 16, 8, 4, 2, 1};
    unsigned i = 0;
    for (unsigned stride = 1; stride < 512; stride *= 2, ++i) {
      CAPTURE(stride);
      CHECK(shared_wavefronts(neighbored_less_reads(stride, 512), 8) == sums[i]);
      CHECK(shared_wavefronts(neighbored_less_reads(stride, 512), 4) == floats[i]);
    }
    // 4-byte elements reach 32 lanes in one bank only with a 1024-thread block (stride 16, 32 busy lanes).
    CHECK(shared_wavefronts(neighbored_less_reads(16, 1024), 4) == 32);
  }

  TEST_CASE("a strided warp needs gcd(spacing · words per element, 32) wavefronts, for 4-, 8- and 16-byte elements") {
    const std::uint64_t seed = checks::seed_from_env(42);
    const std::vector<int> firsts = random_ints(64, 0, 1 << 20, seed);
    for (const unsigned element_bytes : {4u, 8u, 16u})
      for (unsigned spacing = 1; spacing <= 64; ++spacing) {
        const unsigned first = static_cast<unsigned>(firsts[spacing - 1]);
        const unsigned expected = std::gcd(spacing * (element_bytes / 4), 32u);
        INFO(element_bytes, "-byte elements, spacing ", spacing, ", first slot ", first);
        CHECK(wavefronts(first, spacing, element_bytes) == expected);
      }
  }

  TEST_CASE("lanes that read the same word share it: a broadcast costs one wavefront") {
    for (const unsigned element_bytes : {4u, 8u, 16u}) {
      CAPTURE(element_bytes);
      CHECK(wavefronts(5, 0, element_bytes) == 1);  // all 32 lanes read slot 5
      // Half the lanes read slot 0, half the slot 32 words further on: same bank, two distinct words.
      std::vector<unsigned> two(32, 0);
      for (unsigned lane = 16; lane < 32; ++lane) two[lane] = 32 / (element_bytes / 4);
      CHECK(shared_wavefronts(two, element_bytes) == 2);
    }
  }

  TEST_CASE("the count is the busiest bank's number of distinct words, in any lane order") {
    // Accesses built bank by bank from the seed: the slots of one group share their banks, each group
    // gets a chosen number of distinct slots, each read by one to three lanes; the answer is the
    // largest number of distinct slots any group ended up with.
    std::mt19937_64 rng(checks::seed_from_env(43));
    for (int trial = 0; trial < 200; ++trial)
      for (const unsigned element_bytes : {4u, 8u, 16u}) {
        const unsigned groups = 32 / (element_bytes / 4);  // slots s and s + groups share their banks
        std::vector<unsigned> slots;
        std::vector<std::set<unsigned>> distinct(groups);
        for (unsigned group = 0; group < groups && slots.size() < 32; ++group) {
          const unsigned wanted = static_cast<unsigned>(rng() % 5);
          for (unsigned k = 0; k < wanted && slots.size() < 32; ++k) {
            const unsigned slot = group + groups * static_cast<unsigned>(k * 7 + rng() % 5 + 1);
            const unsigned readers = 1 + static_cast<unsigned>(rng() % 3);
            for (unsigned r = 0; r < readers && slots.size() < 32; ++r) {
              slots.push_back(slot);
              distinct[group].insert(slot);
            }
          }
        }
        std::shuffle(slots.begin(), slots.end(), rng);
        std::size_t expected = 0;
        for (const auto& group : distinct) expected = std::max(expected, group.size());
        INFO(element_bytes, "-byte elements, trial ", trial, ", ", slots.size(), " lanes");
        CHECK(shared_wavefronts(slots, element_bytes) == expected);
      }
  }
}

TEST_SUITE("exercise 04.3") {
  TEST_CASE("interleaved_grid_stride gives the exact int64 sum for every size, block and start") {
    const std::uint64_t seed = checks::seed_from_env(44);
    const auto sizes = checks::random_sizes(seed, 8, checks::big);
    checks::check_ints(interleaved_exercise_variants(), checks::all_blocks, true, seed, sizes);
  }
  TEST_CASE("interleaved_grid_stride's float sums stay within the rounding bound of a long double reference") {
    checks::check_floats(interleaved_exercise_variants(), checks::all_blocks, checks::seed_from_env(45));
  }
}
