// Chapter 04's claims, as tests: the interleaved tree sums every size exactly; its shared-memory
// accesses of one warp fall in distinct banks, where neighbored_less's do not.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "ladder_checks.cuh"
#include "reduce_interleaved.hpp"
// src/interleaved_pair.cuh, or the lab's version in lab mode.
#include REDUCE_INTERLEAVED_PAIR_HEADER

using namespace reduce;

namespace {
// Shared-memory wavefronts one warp needs to read its 32 slots s[first + lane·spacing] of 8-byte
// words: 32 banks of 4 bytes; a wavefront serves at most one distinct 4-byte word per bank.
unsigned wavefronts(unsigned first, unsigned spacing) {
  std::vector<std::set<unsigned>> words(32);
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned byte = (first + lane * spacing) * 8;
    for (unsigned half = 0; half < 2; ++half) words[(byte / 4 + half) % 32].insert(byte / 4 + half);
  }
  std::size_t worst = 0;
  for (const auto& w : words) worst = std::max(worst, w.size());
  return static_cast<unsigned>(worst);
}
}  // namespace

TEST_CASE("interleaved reads of a warp are consecutive: two wavefronts for 8-byte sums, the minimum") {
  // Warp 0 at any step with stride >= 32 reads s[lane + stride]: spacing 1.
  CHECK(wavefronts(32, 1) == 2);
  // neighbored_less at stride s reads s[2·s·lane + s]: spacing 2·s, up to 32 wavefronts.
  CHECK(wavefronts(1, 2) == 4);
  CHECK(wavefronts(2, 4) == 8);
  CHECK(wavefronts(16, 32) == 32);
}

namespace {
// Wavefronts one warp needs to read the 8-byte words s[slot] for the given slots (as above, for any
// list of slots).
unsigned wavefronts_of(const std::vector<int>& slots) {
  std::vector<std::set<unsigned>> words(32);
  for (int slot : slots) {
    const unsigned word = static_cast<unsigned>(slot) * 2;
    for (unsigned half = 0; half < 2; ++half) words[(word + half) % 32].insert(word + half);
  }
  std::size_t worst = 0;
  for (const auto& w : words) worst = std::max(worst, w.size());
  return static_cast<unsigned>(worst);
}
}  // namespace

TEST_CASE("the interleaved pairs fold every slot into s[0] exactly once, without races") {
  for (unsigned block : {64u, 128u, 256u, 512u, 1024u}) {
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

TEST_CASE("a warp's interleaved reads fall in distinct banks and the busy threads are contiguous") {
  for (unsigned block : {64u, 256u, 1024u}) {
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
      for (unsigned warp = 0; warp * 32 < busy; ++warp) {
        std::vector<int> slots;
        for (unsigned lane = 0; lane < 32 && warp * 32 + lane < busy; ++lane)
          slots.push_back(interleaved_pair(warp * 32 + lane, stride).src);
        CHECK(wavefronts_of(slots) <= 2);  // 8-byte words: 2 wavefronts is the minimum for 32 lanes
      }
    }
  }
}

TEST_CASE("the variant table is well formed and bad options are refused before the GPU") {
  checks::check_table(interleaved_variants());
  checks::check_validation(interleaved_variants());
}

TEST_SUITE("gpu") {
  TEST_CASE("interleaved gives the exact int64 sum for every size and block") {
    checks::check_ints(interleaved_variants(), checks::all_blocks, true);
  }
  TEST_CASE("interleaved float sums stay within the rounding bound of a long double reference") {
    checks::check_floats(interleaved_variants(), checks::all_blocks);
  }
}
