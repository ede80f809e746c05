// Chapter 04's claims, as tests: the interleaved tree sums every size exactly; its shared-memory
// accesses of one warp fall in distinct banks, where neighbored_less's do not (for 8-byte sums and for
// 4-byte floats); in the book's in-place version its global loads are the fewest sectors.
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
// Shared-memory wavefronts one warp needs to read the elements s[slot] for the given slots: 32 banks of
// 4-byte words; a wavefront serves at most one distinct word per bank, so the busiest bank sets the
// count. An element of `element_bytes` (8: our int sums; 4: our float rungs, or ints summed in 32
// bits) spans element_bytes / 4 words. 32 lanes need at least 32 · element_bytes / 128 wavefronts.
unsigned wavefronts_of(const std::vector<int>& slots, unsigned element_bytes) {
  std::vector<std::set<unsigned>> words(32);
  for (const int slot : slots) {
    const unsigned first = static_cast<unsigned>(slot) * element_bytes / 4;
    for (unsigned w = first; w < first + element_bytes / 4; ++w) words[w % 32].insert(w);
  }
  std::size_t worst = 0;
  for (const auto& w : words) worst = std::max(worst, w.size());
  return static_cast<unsigned>(worst);
}

// The slots neighbored_less's busy lanes of warp 0 read at one step (s[2·stride·lane + stride]), as
// in chapter 03: block / (2·stride) threads are busy, at most the warp's 32.
std::vector<int> neighbored_less_reads(unsigned stride, unsigned block) {
  std::vector<int> slots;
  for (unsigned lane = 0; lane < 32 && lane < block / (2 * stride); ++lane)
    slots.push_back(static_cast<int>(2 * stride * lane + stride));
  return slots;
}

// The 32-byte global-memory sectors a warp's loads of the 4-byte ints idata[index] touch: what the
// book's in-place kernels, whose tree works on global memory, pay per request.
unsigned sectors_of(const std::vector<int>& indices) {
  std::set<int> sectors;
  for (const int i : indices) sectors.insert(i * 4 / 32);
  return static_cast<unsigned>(sectors.size());
}
}  // namespace

TEST_CASE("interleaved reads of a warp are consecutive: the fewest wavefronts, for 8-byte and 4-byte elements") {
  for (unsigned stride = 32; stride <= 512; stride *= 2) {
    std::vector<int> src;
    for (unsigned lane = 0; lane < 32; ++lane) src.push_back(interleaved_pair(lane, stride).src);
    CAPTURE(stride);
    CHECK(wavefronts_of(src, 8) == 2);  // 256 bytes: two 128-byte passes, the minimum
    CHECK(wavefronts_of(src, 4) == 1);
  }
}

TEST_CASE("neighbored_less's reads at block 512: all 32 lanes share a bank at stride 8 for 8-byte sums, never for floats") {
  // 8-byte elements: lanes 16·stride bytes apart; the minimum is 2 (16 lanes busy: 1).
  const unsigned sums[] = {4, 8, 16, 32, 16, 8, 4, 2, 1};  // strides 1, 2, 4, …, 256
  // 4-byte elements: lanes 8·stride bytes apart; the minimum is 1.
  const unsigned floats[] = {2, 4, 8, 16, 16, 8, 4, 2, 1};
  unsigned i = 0;
  for (unsigned stride = 1; stride < 512; stride *= 2, ++i) {
    CAPTURE(stride);
    CHECK(wavefronts_of(neighbored_less_reads(stride, 512), 8) == sums[i]);
    CHECK(wavefronts_of(neighbored_less_reads(stride, 512), 4) == floats[i]);
  }
  // 4-byte elements reach 32 lanes in one bank only with a 1024-thread block (stride 16, 32 busy lanes).
  CHECK(wavefronts_of(neighbored_less_reads(16, 1024), 4) == 32);
}

TEST_CASE("in the book's in-place kernels, an interleaved warp reads 4 global sectors, the fewest for 32 ints") {
  // The book's reduceInterleaved adds idata[tid + stride] into idata[tid] in global memory: a warp's
  // loads are 32 consecutive ints, 128 bytes, 4 sectors; its store idata[tid] likewise.
  for (unsigned stride = 32; stride <= 256; stride *= 2) {
    std::vector<int> dst, src;
    for (unsigned lane = 0; lane < 32; ++lane) {
      dst.push_back(interleaved_pair(lane, stride).dst);
      src.push_back(interleaved_pair(lane, stride).src);
    }
    CAPTURE(stride);
    CHECK(sectors_of(dst) == 4);
    CHECK(sectors_of(src) == 4);
  }
  // reduceNeighboredLess reads idata[2·stride·tid + stride]: lanes 8·stride bytes apart, so the same
  // 128 useful bytes come from 8, 16, then 32 sectors (50 %, 25 %, 12.5 % of the fetched bytes used).
  CHECK(sectors_of(neighbored_less_reads(1, 512)) == 8);
  CHECK(sectors_of(neighbored_less_reads(2, 512)) == 16);
  CHECK(sectors_of(neighbored_less_reads(4, 512)) == 32);
}

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
        CHECK(wavefronts_of(slots, 8) <= 2);  // 8-byte words: 2 wavefronts is the minimum for 32 lanes
        CHECK(wavefronts_of(slots, 4) <= 1);  // the float rungs' 4-byte words: 1
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
