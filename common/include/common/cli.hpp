/// \file cli.hpp
/// \brief One command-line style for every chapter (CLI11): --help, sizes, --reps, --warmup, --device,
/// --json FILE, --csv. Bad values end the program with one clear line and exit code 2.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "common/timing.cuh"

namespace course {

/// The options every chapter program shares.
struct CommonOptions {
  TimingOptions timing{};   ///< --warmup, --reps
  int device = 0;           ///< --device
  std::string json_path;    ///< --json FILE: write the results file (schema in report.hpp)
  bool csv = false;         ///< --csv: print the table as CSV instead of aligned text
};

/// Adds --reps, --warmup, --device, --json and --csv to `app`, bound to `opts` (whose current values
/// are the defaults shown by --help).
void add_common_options(CLI::App& app, CommonOptions& opts);

/// Parses the command line. --help prints the help and throws ExitRequest{0}; any parse or validation
/// error throws UsageError carrying CLI11's message (run_main prints it and exits 2).
void parse_command_line(CLI::App& app, int argc, char** argv);

/// Thrown to end the program early with a given code and nothing more to say (e.g. after --help).
struct ExitRequest {
  int code = 0;
};

/// Parses an element or byte count: plain digits ("16777216"), a power of two ("2^24"), or a binary
/// suffix K, M, G, T with optional "i" and "B" ("32M", "32MiB", "1GiB" = 2^30). Throws UsageError on
/// anything else, on zero when `allow_zero` is false, and on overflow.
std::uint64_t parse_count(const std::string& text, bool allow_zero = false);

/// A CLI11 validator wrapping parse_count, for options given as strings.
CLI::Validator count_validator(bool allow_zero = false);

}  // namespace course
