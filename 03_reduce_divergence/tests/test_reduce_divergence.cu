// Chapter 03's claims, as tests: the two rules add the same pairs; only the non-divergent one keeps
// the busy threads in whole warps; what each rule costs in shared-memory bank conflicts (the lesson
// compares this model with the profiler's counts); the tree's order changes a float sum; every rung of
// the chapter's tables sums every size exactly (the suite "gpu", which the test preset runs). The claims
// that rest on an exercise's code are that exercise's suite (exercise 03.1, 03.2, 03.3): a handout's
// stubs fail them, the chapter's own runs leave them out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
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

// Shared memory as the profiler counts it: 32 banks of 4-byte words; one pass (a wavefront) serves at
// most one distinct word per bank, so a warp's request takes as many wavefronts as its busiest bank
// has distinct words. An element of `element_bytes` (8: our int sums; 4: our float rungs, or ints
// summed in 32 bits) spans element_bytes / 4 words.
unsigned wavefronts(const std::vector<unsigned>& slots, unsigned element_bytes) {
  std::vector<std::set<unsigned>> words(32);
  for (const unsigned slot : slots)
    for (unsigned w = slot * element_bytes / 4; w < (slot + 1) * element_bytes / 4; ++w) words[w % 32].insert(w);
  std::size_t worst = 0;
  for (const auto& bank : words) worst = std::max(worst, bank.size());
  return static_cast<unsigned>(worst);
}
// Wavefronts beyond the fewest that could carry the request (128 bytes each): the bank conflicts.
unsigned extra_wavefronts(const std::vector<unsigned>& slots, unsigned element_bytes) {
  if (slots.empty()) return 0;
  const auto fewest = static_cast<unsigned>((slots.size() * element_bytes + 127) / 128);
  return wavefronts(slots, element_bytes) - fewest;
}
// The bank conflicts of one block's tree loads under a rule: at every step each warp with busy lanes
// loads s[slot] and s[slot + stride] (two requests), as `s[slot] += s[slot + stride]` compiles.
template <class Rule>
unsigned tree_load_conflicts(Rule rule, unsigned block, unsigned element_bytes) {
  unsigned conflicts = 0;
  for (unsigned stride = 1; stride < block; stride *= 2)
    for (unsigned warp = 0; warp < block / 32; ++warp) {
      std::vector<unsigned> dst, src;
      for (unsigned lane = 0; lane < 32; ++lane)
        if (const int slot = rule(warp * 32 + lane, stride, block); slot >= 0) {
          dst.push_back(static_cast<unsigned>(slot));
          src.push_back(static_cast<unsigned>(slot) + stride);
        }
      conflicts += extra_wavefronts(dst, element_bytes) + extra_wavefronts(src, element_bytes);
    }
  return conflicts;
}

// One block's tree on the CPU, in the order the kernel adds: the rule picks the pairs of each step
// (the pairs of one step are disjoint, so doing them one after another changes nothing).
template <class Rule>
float tree_sum(std::vector<float> s, Rule rule) {
  const auto block = static_cast<unsigned>(s.size());
  for (unsigned stride = 1; stride < block; stride *= 2)
    for (unsigned tid = 0; tid < block; ++tid)
      if (const int slot = rule(tid, stride, block); slot >= 0) s[slot] += s[slot + stride];
  return s[0];
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

// The lesson's claims about neighbored_less rest on exercise 03.1's rule: they grade it too.
TEST_SUITE("exercise 03.1") {
TEST_CASE("with 8-byte sums, the book's rule already has bank conflicts; neighbored_less has about twice as many") {
  // Block 512, the benchmark's: extra wavefronts of a block's tree loads. The lesson sets these beside
  // the profiler's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum divided by the blocks.
  CHECK(tree_load_conflicts(neighbored_slot_on_host, 512, 8) == 128);
  CHECK(tree_load_conflicts(neighbored_less_slot_on_host, 512, 8) == 248);
  // Where the book's rule loses: at strides 1 to 8 every warp's busy lanes (16/stride of them, 16·stride
  // bytes apart) ask for two words in some bank, 2 wavefronts where 1 would carry the bytes.
  for (unsigned stride = 1; stride <= 8; stride *= 2) {
    std::vector<unsigned> src;
    for (unsigned lane = 0; lane < 32; ++lane)
      if (const int slot = neighbored_slot_on_host(lane, stride, 512); slot >= 0) src.push_back(slot + stride);
    INFO("stride ", stride);
    CHECK(wavefronts(src, 8) == 2);
    CHECK(extra_wavefronts(src, 8) == 1);
  }
}

TEST_CASE("with 4-byte elements (our float rungs, 32-bit ints) only neighbored_less has bank conflicts") {
  CHECK(tree_load_conflicts(neighbored_slot_on_host, 512, 4) == 0);
  CHECK(tree_load_conflicts(neighbored_less_slot_on_host, 512, 4) == 150);
}

TEST_CASE("float addition is not associative: 2^25 ones summed in order stop at 2^24, the block tree gets 2^25") {
  constexpr std::size_t n = std::size_t{1} << 25;
  constexpr unsigned block = 512;
  float in_order = 0.0f;
  for (std::size_t i = 0; i < n; ++i) in_order += 1.0f;  // from 2^24 on, 2^24 + 1 rounds back to 2^24
  CHECK(in_order == 16777216.0f);
  // The kernel's order: each block's tree (every partial is 512, exact), then the partials.
  float by_blocks = 0.0f;
  const std::vector<float> ones(block, 1.0f);
  for (std::size_t b = 0; b < n / block; ++b) by_blocks += tree_sum(ones, neighbored_less_slot_on_host);
  CHECK(by_blocks == 33554432.0f);
}

TEST_CASE("the two rules add the same pairs, so they give the same float sum to the last bit") {
  // Only the thread that does each addition changes, not the grouping: removing divergence cannot
  // change a float result (chapter 04's interleaved tree groups differently, and can).
  std::vector<float> values(512);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.0f / static_cast<float>(i + 3) * (i % 3 == 0 ? -1e4f : 1.0f);
  CHECK(tree_sum(values, neighbored_slot_on_host) == tree_sum(values, neighbored_less_slot_on_host));
}
}  // TEST_SUITE("exercise 03.1")

TEST_CASE("the variant tables are well formed and bad options are refused before the GPU") {
  checks::check_table(divergence_variants());
  checks::check_table(divergence_exercise_variants());
  checks::check_validation(divergence_variants());
}

TEST_SUITE("gpu") {
  TEST_CASE("every rung of the chapter's tables sums every awkward size, block and start: ints exactly, floats within the rounding bound") {
    // The lesson's rungs and exercise 03.3's. The rungs sized by neighbored_shape run on the ladder's
    // grid instead (the same ceil(n / block) blocks): that function is exercise 03.2, whose stub drops
    // the tail block, and this suite must pass in a handout too. Its suite checks the chapter's grid.
    std::vector<Variant> rungs;
    for (const auto& v : divergence_variants()) rungs.push_back(v.shape == neighbored_shape ? with_ladder_grid(v) : v);
    for (const auto& v : divergence_exercise_variants()) rungs.push_back(v);
    checks::check_every_rung(rungs);
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
