// Chapter 05's claims, as tests: every unrolled, shuffled, vectorised, persistent and single-pass
// rung (and CUB) gives the exact 64-bit sum on every awkward size, block size and misaligned start,
// twice in a row; floats stay within the rounding bound; the persistent grid never exceeds residency.
#include <doctest/doctest.h>

#include <cstring>

#include "ladder_checks.cuh"
#include "reduce_unroll.hpp"

using namespace reduce;

TEST_CASE("the variant tables are well formed and bad options are refused before the GPU") {
  checks::check_table(unroll_variants());
  checks::check_table(beyond_book_variants());
  checks::check_table(library_variants());
  checks::check_validation(unroll_variants());
}

TEST_CASE("the unroll rungs size their grid by the book's formula, tail block included") {
  const Variant& unroll8 = unroll_variants()[2];
  REQUIRE(std::strcmp(unroll8.name, "unroll8") == 0);
  CHECK(unroll8.shape(std::size_t{1} << 24, 512, 132).grid == 4096);  // the book's grid
  CHECK(unroll8.shape((std::size_t{1} << 24) + 1, 512, 132).grid == 4097);
  CHECK(unroll8.shape(1, 512, 132).grid == 1);
}

TEST_SUITE("gpu") {
  TEST_CASE("the book's unroll rungs give the exact int64 sum for every size and block") {
    checks::check_ints(unroll_variants(), checks::all_blocks, true);
  }
  TEST_CASE("shuffle, int4, persistent and single-pass rungs give the exact int64 sum, misaligned too") {
    checks::check_ints(beyond_book_variants(), checks::all_blocks, true);
  }
  TEST_CASE("cub_device_reduce computes the same 64-bit sum as ours") {
    const unsigned block[] = {512};
    checks::check_ints(library_variants(), block, true);
  }
  TEST_CASE("float sums stay within the rounding bound of a long double reference") {
    const unsigned blocks[] = {64, 256, 1024};
    checks::check_floats(unroll_variants(), blocks);
    checks::check_floats(beyond_book_variants(), blocks);
  }
  TEST_CASE("the persistent grid is at most one resident wave and at least one block") {
    const int sm_count = course::require_device(0).sm_count;
    for (const auto& v : beyond_book_variants()) {
      if (std::strncmp(v.name, "single_pass", 11) != 0) continue;
      const LaunchShape big = v.shape(std::size_t{1} << 28, 512, sm_count);
      CHECK(big.grid >= static_cast<unsigned>(sm_count));
      CHECK(big.grid <= static_cast<unsigned>(sm_count) * 2048u / big.block);
      CHECK(v.shape(1, 512, sm_count).grid == 1);
    }
  }
}
