// Chapter 03's claims, as tests: the two rules add the same pairs; only the non-divergent one keeps
// the busy threads in whole warps; both kernels sum every size exactly.
#include <doctest/doctest.h>

#include <set>

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
}  // namespace

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

TEST_CASE("the book's rule splits every warp while stride < 32") {
  for (const unsigned block : checks::all_blocks)
    for (unsigned stride = 1; stride < 32; stride *= 2)
      CHECK(divergent_warps(neighbored_slot_on_host, stride, block) == block / 32);
}

TEST_CASE("the variant table is well formed and bad options are refused before the GPU") {
  checks::check_table(divergence_variants());
  checks::check_validation(divergence_variants());
}

TEST_SUITE("gpu") {
  TEST_CASE("neighbored and neighbored_less give the exact int64 sum for every size and block") {
    checks::check_ints(divergence_variants(), checks::all_blocks, true);
  }
  TEST_CASE("float sums stay within the rounding bound of a long double reference") {
    checks::check_floats(divergence_variants(), checks::all_blocks);
  }
}
