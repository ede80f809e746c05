/// \file options.hpp
/// \brief The command line of `streams` and every check of it. All of them run before the GPU is touched,
/// so bad input ends with one line and exit 2 on a machine without a GPU too (the hostile tests in
/// CMakeLists.txt rely on it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cli.hpp"

namespace streams {

/// The options as given (strings where the program parses them itself, so that it can say what is wrong).
struct Options {
  course::CommonOptions common = [] {
    course::CommonOptions c;
    c.timing = {2, 10};  // warm-up 2, 10 timed repetitions: each run of a scenario is milliseconds long
    return c;
  }();
  std::vector<std::string> variants;      ///< --variants: scenario names; empty (or "all") = every scenario
  std::string size = "256MiB";
  int chunks = 8;
  int streams = 4;
  std::vector<std::string> sweep = {"1", "2", "3", "4", "6", "8", "12", "16", "24", "32", "64", "128", "256"};
  int sweep_streams = 8;
  int kernel_iterations = 0;
  int small_kernels = 8;
  int gantt_width = 96;
  std::string trace_path;
  int child_streams = 0;  ///< internal: this process is a child of an issue_order scenario
};

/// The checked values the run works with.
struct Plan {
  std::uint64_t bytes = 0;            ///< --size
  std::size_t elements = 0;           ///< floats per direction
  std::vector<int> sweep;             ///< chunk counts of the pipeline sweep
  std::vector<std::string> scenarios; ///< the scenarios to run, in table order
  bool child = false;                 ///< run as an issue_order child (see issue_order_child.hpp)
};

/// More streams than this is not a useful experiment (and each one costs a stream, events, a queue slot).
inline constexpr int max_streams = 64;
/// More chunks than this is not a useful experiment: each chunk is three commands and two events each.
inline constexpr int max_chunks = 1 << 16;

/// Binds every option of the program to `opt` (help texts, ranges, the --trace destination check).
void add_options(CLI::App& app, Options& opt);

/// Checks what add_options cannot check alone (values against each other, against the size, against the
/// host's memory) and returns the plan. Throws course::UsageError naming the option at fault.
Plan check_options(const Options& opt);

/// The host's physical memory in bytes (0 if unknown): a buffer pinned beyond it cannot be allocated.
std::uint64_t host_memory_bytes();

}  // namespace streams
