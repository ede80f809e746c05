// Chapter 04's claims, as tests: the interleaved tree sums every size exactly; its shared-memory
// accesses of one warp fall in distinct banks, where neighbored_less's do not.
#include <doctest/doctest.h>

#include <set>

#include "ladder_checks.cuh"
#include "reduce_interleaved.hpp"

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
