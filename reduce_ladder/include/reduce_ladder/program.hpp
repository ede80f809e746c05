/// \file program.hpp
/// \brief The program every reduction chapter runs: its rungs (one or more variant tables walked as
/// one ladder), the shared command line, each rung checked against the CPU sum and then timed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/report.hpp"
#include "common/stats.hpp"
#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// A chapter program: the rungs of one or more chapters' tables, walked in order as one ladder.
struct LadderProgram {
  const char* chapter;      ///< results file chapter name, e.g. "05_reduce_unroll"
  const char* description;  ///< --help text
  std::vector<std::span<const Variant>> tables;
};

/// The whole program (CLI → validation → device → reference-checked timings → table/JSON), shared by
/// the reduction chapters. Bad input throws UsageError before the GPU is touched.
int run_ladder_program(const LadderProgram& program, int argc, char** argv);

/// One rung measured at one size: what a row of the ladder's table holds.
struct RungResult {
  std::size_t n = 0;
  LaunchShape shape;
  course::Stats time;    ///< milliseconds per run of the rung (both launches of a two-pass rung)
  double step = 1;       ///< speedup over the previous rung at this size
  double cumulative = 1; ///< speedup over the first rung at this size
  double copy_gbs = 0;   ///< the measured copy bandwidth that %copy compares with
  long long sum = 0;     ///< the sum the rung computed (checked against the CPU before timing)
};

/// Records one rung as one row: the table shows n, kernel, time_ms, step, cumulative, grid, block,
/// GB/s and %copy; the JSON row keeps them under the keys the figures read (n, kernel, time_ms,
/// step_speedup, cumulative_speedup, grid, block, gbs, pct_copy) with the crosswalk (book_name,
/// teaches, grid_formula), min_ms, max_ms, cv, bytes_read and sum. A library-chosen shape (0) shows as
/// "library" and stays 0 in the JSON.
void record_rung(course::Row& row, const Variant& variant, const RungResult& r);

/// The largest --n a ladder program takes: 2^32 ints are 16 GiB, on the host and on the device.
inline constexpr std::uint64_t max_elements = std::uint64_t{1} << 32;

/// Parsed and validated command line of a ladder program (exposed for the CPU tests).
struct LadderOptions {
  std::vector<std::size_t> sizes;
  unsigned block = 512;
  std::vector<std::string> variants;  ///< --variants: names to run (all when empty)
};
/// Validates sizes (parse_count, 1 ≤ n ≤ max_elements), block (validate_block) and --variants names
/// against `variants`; throws course::UsageError naming the option at the first bad value.
LadderOptions validate_ladder_options(const std::vector<std::string>& sizes, long long block,
                                      const std::vector<std::string>& names,
                                      std::span<const Variant> variants);

}  // namespace reduce
