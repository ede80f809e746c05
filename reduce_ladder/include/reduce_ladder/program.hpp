/// \file program.hpp
/// \brief The program every reduction chapter runs: its rungs (one or more variant tables walked as
/// one ladder), the shared command line, each rung checked against the CPU sum and then timed.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

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

/// Parsed and validated command line of a ladder program (exposed for the CPU tests).
struct LadderOptions {
  std::vector<std::size_t> sizes;
  unsigned block = 512;
  std::vector<std::string> only;
};
/// Validates sizes (parse_count, n ≥ 1), block (validate_block) and --only names against `variants`.
LadderOptions validate_ladder_options(const std::vector<std::string>& sizes, long long block,
                                      const std::vector<std::string>& only,
                                      std::span<const Variant> variants);

}  // namespace reduce
