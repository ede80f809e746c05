/// \file options.hpp
/// \brief The command line of `bandwidth` and the plan it gives: every size, name and count checked
/// before any GPU is touched (so CI, which has none, tests all of it). No CUDA here.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "model.hpp"
#include "variants.hpp"

namespace bandwidth {

/// The options as typed (sizes stay text until make_plan parses them).
struct Options {
  course::CommonOptions common;
  std::vector<std::string> variants;  ///< --variants; empty: everything
  std::string min_size = "1KiB";
  std::string max_size = "1GiB";
  std::string source_size = "33554432";
  std::size_t step = 4;
  std::string p2p = "auto";
  std::string p2p_size = "256MiB";
  std::uint64_t seed = 20240613;
};

/// Adds the common options, --variants and the chapter's own options to `app`, bound to `options`.
/// `beyond_names`: the names of the tuned SM copies, listed in --variants' help.
void add_options(CLI::App& app, Options& options, const std::vector<std::string>& beyond_names);

/// What one run measures.
struct Plan {
  SweepConfig sweep;                ///< the sweep's sizes, checked
  std::vector<std::size_t> sizes;   ///< sweep_sizes of `sweep`, the book's size included
  std::vector<std::size_t> call_return_sizes;  ///< where the "copy_return" scenario runs (call_return_sizes)
  Selection selection;              ///< the row families --variants chose
  bool p2p = true;                  ///< --p2p auto: the peer matrix when 2 or more GPUs are present
  std::size_t p2p_bytes = 0;
  std::uint64_t seed = 0;
  course::TimingOptions timing{};
};

/// Parses and checks `options`; throws course::UsageError on a bad size or an unknown variant name.
/// `beyond_names`: the names of the tuned SM copies, valid in --variants too.
Plan make_plan(const Options& options, const std::vector<std::string>& beyond_names);

/// The results file's "config": the plan, and whether the peer matrix runs.
nlohmann::json config_json(const Plan& plan, bool run_p2p);

}  // namespace bandwidth
