// Chapter 03's claims, as tests: the two rules add the same pairs; only the non-divergent one keeps
// the busy threads in whole warps; both kernels sum every size exactly. The claims that rest on an
// exercise's code are that exercise's suite (exercise 03.1, 03.2, 03.3): a handout's stubs fail them,
// the chapter's own runs leave them out.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "ladder_checks.cuh"
#include "reduce_divergence.hpp"

using namespace reduce;

namespace {
// Threads of a block that do work at one step, under a rule.
template <class Rule>
std::vector<unsigned> busy_threads(Rule rule, unsigned stride, unsigned block) {
  std::vector<unsigned> busy;
  for (unsigned tid = 0; tid < block; ++tid)
    if (rule(tid, stride, block) >= 0) busy.push_back(tid);
  return busy;
}
// Warps that hold busy and idle threads at once: those run the branch divergently.
template <class Rule>
unsigned divergent_warps(Rule rule, unsigned stride, unsigned block) {
  unsigned count = 0;
  for (unsigned warp = 0; warp < block / 32; ++warp) {
    unsigned busy = 0;
    for (unsigned lane = 0; lane < 32; ++lane) busy += rule(warp * 32 + lane, stride, block) >= 0;
    count += busy != 0 && busy != 32;
  }
  return count;
}

const Variant& rung(std::span<const Variant> table, const char* name) {
  for (const auto& v : table)
    if (std::string(v.name) == name) return v;
  FAIL("no rung named ", name);
  return table.front();
}

// A rung with the ladder's own grid (ceil(n / block) blocks) in place of the chapter's: its kernel is
// checked whatever state exercise 03.2's grid is in.
Variant with_ladder_grid(const Variant& v) {
  Variant copy = v;
  copy.shape = one_element_per_thread;
  return copy;
}
}  // namespace

TEST_CASE("the book's rule splits every warp while stride < 32") {
  for (const unsigned block : checks::all_blocks)
    for (unsigned stride = 1; stride < 32; stride *= 2)
      CHECK(divergent_warps(neighbored_slot_on_host, stride, block) == block / 32);
}

TEST_CASE("the variant tables are well formed and bad options are refused before the GPU") {
  checks::check_table(divergence_variants());
  checks::check_table(divergence_exercise_variants());
  checks::check_validation(divergence_variants());
}

TEST_SUITE("gpu") {
  TEST_CASE("the neighbored kernel gives the exact int64 sum for every size and block") {
    const Variant neighbored = with_ladder_grid(rung(divergence_variants(), "neighbored"));
    checks::check_ints({&neighbored, 1}, checks::all_blocks, true);
  }
  TEST_CASE("the neighbored kernel's float sums stay within the rounding bound of a long double reference") {
    const Variant neighbored = with_ladder_grid(rung(divergence_variants(), "neighbored"));
    checks::check_floats({&neighbored, 1}, checks::all_blocks);
  }
}

TEST_SUITE("exercise 03.1") {
  TEST_CASE("neighbored_less visits every pair once, like the divergent rule") {
    for (const unsigned block : checks::all_blocks)
      for (unsigned stride = 1; stride < block; stride *= 2) {
        std::multiset<int> less_slots, divergent_slots;
        for (unsigned tid = 0; tid < block; ++tid) {
          if (const int s = neighbored_less_slot_on_host(tid, stride, block); s >= 0) less_slots.insert(s);
          if (const int s = neighbored_slot_on_host(tid, stride, block); s >= 0) divergent_slots.insert(s);
        }
        INFO("block ", block, ", stride ", stride);
        CHECK(less_slots == divergent_slots);
        CHECK(less_slots.size() == block / (2 * stride));
        for (const int s : less_slots) CHECK(static_cast<unsigned>(s) + stride < block);
      }
  }

  TEST_CASE("neighbored_less keeps the busy threads contiguous, so at most one warp diverges per step") {
    for (const unsigned block : checks::all_blocks)
      for (unsigned stride = 1; stride < block; stride *= 2) {
        const auto busy = busy_threads(neighbored_less_slot_on_host, stride, block);
        INFO("block ", block, ", stride ", stride);
        REQUIRE(!busy.empty());
        CHECK(busy.front() == 0);
        CHECK(busy.back() == busy.size() - 1);  // 0, 1, …, k−1
        CHECK(divergent_warps(neighbored_less_slot_on_host, stride, block) <= 1);
      }
  }

  TEST_CASE("neighbored_less gives the exact int64 sum for every size and block (on a GPU, when there is one)") {
    if (!checks::gpu_present_for_cpu_exercise()) return;
    const std::uint64_t seed = checks::seed_from_env(31);
    const Variant less = with_ladder_grid(rung(divergence_variants(), "neighbored_less"));
    const auto sizes = checks::random_sizes(seed, 6, checks::big);
    checks::check_ints({&less, 1}, checks::all_blocks, true, seed, sizes);
    checks::check_floats({&less, 1}, checks::all_blocks, seed + 1);
  }
}

TEST_SUITE("exercise 03.2") {
  TEST_CASE("the grid covers every element, the last partial block included, and no more") {
    const std::uint64_t seed = checks::seed_from_env(32);
    for (const unsigned block : checks::all_blocks) {
      std::vector<std::size_t> sizes = checks::awkward_sizes(block, true);
      const auto drawn = checks::random_sizes(seed + block, 20, std::size_t{1} << 32);
      sizes.insert(sizes.end(), drawn.begin(), drawn.end());
      sizes.push_back(std::size_t{1} << 32);
      for (const std::size_t n : sizes) {
        const LaunchShape shape = neighbored_shape(n, block, 132);
        const std::size_t covered = std::size_t{shape.grid} * shape.block;
        INFO("n = ", n, ", block = ", block, ", grid = ", shape.grid);
        CHECK(shape.block == block);
        CHECK(covered >= n);                              // every element has a thread
        CHECK(covered - shape.block < n);                 // and the last block has at least one element
      }
    }
  }

  TEST_CASE("the neighbored rung gives the exact int64 sum for every size on the chapter's grid (on a GPU, when there is one)") {
    if (!checks::gpu_present_for_cpu_exercise()) return;
    const std::uint64_t seed = checks::seed_from_env(33);
    // The book's rule: this case checks the grid, not exercise 03.1's rule.
    const Variant& neighbored = rung(divergence_variants(), "neighbored");
    const auto sizes = checks::random_sizes(seed, 6, checks::big);
    checks::check_ints({&neighbored, 1}, checks::all_blocks, true, seed, sizes);
  }
}

TEST_SUITE("exercise 03.3") {
  TEST_CASE("neighbored_less_x2 gives the exact int64 sum for every size, block and start") {
    const std::uint64_t seed = checks::seed_from_env(34);
    const auto sizes = checks::random_sizes(seed, 8, checks::big);
    checks::check_ints(divergence_exercise_variants(), checks::all_blocks, true, seed, sizes);
  }
  TEST_CASE("neighbored_less_x2's float sums stay within the rounding bound of a long double reference") {
    checks::check_floats(divergence_exercise_variants(), checks::all_blocks, checks::seed_from_env(35));
  }
}
