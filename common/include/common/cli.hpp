/// \file cli.hpp
/// \brief One command-line style for every chapter (CLI11): --help, sizes, --reps, --warmup, --json FILE,
/// --csv, and --device on GPU chapters. Bad values end the program with one clear line and exit code 2,
/// before any long work starts. No CUDA header is included: the CPU-only chapter uses it too.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/timing_options.hpp"

namespace course {

/// Whether a program runs on a GPU (and so takes --device) or on the CPU only.
enum class Processor { gpu, cpu };

/// The options every chapter program shares.
struct CommonOptions {
  TimingOptions timing{};   ///< --warmup, --reps
  int device = 0;           ///< --device (GPU programs only)
  std::string json_path;    ///< --json FILE: write the results file (schema in report.hpp)
  bool csv = false;         ///< --csv: stdout carries only CSV; everything else goes to stderr
};

/// Adds --reps, --warmup, --json and --csv to `app`, and --device when `processor` is gpu, bound to
/// `opts` (whose current values are the defaults shown by --help). --json is checked while parsing: an
/// empty path, a folder, or a place where no file can be created is a usage error (exit 2) before the
/// run, not a failure after it.
void add_common_options(CLI::App& app, CommonOptions& opts, Processor processor = Processor::gpu);

/// Adds a list option ("--n 2^20,2^24" or "--n 2^20 --n 2^24"): items are comma-separated or repeated,
/// and an empty item ("2^20,,2^24", "--n ''") is a usage error rather than silently dropped.
CLI::Option* add_list_option(CLI::App& app, const std::string& name, std::vector<std::string>& items,
                             const std::string& help);

/// The one option every ladder chapter uses to run part of its table: "--variants a,b" (names as in the
/// table; unknown names are a usage error naming the valid ones, see check_variant_names).
CLI::Option* add_variants_option(CLI::App& app, std::vector<std::string>& names);

/// Throws UsageError("--variants X: no such variant; choose from a, b, c") for any name not in `known`.
void check_variant_names(const std::vector<std::string>& names, const std::vector<std::string>& known);

/// Parses the command line. --help prints the help and throws ExitRequest{0}; any parse or validation
/// error throws UsageError carrying CLI11's message (run_main prints it and exits 2). Every option whose
/// value is an integer type (CLI11's INT / UINT) is first read by decimal_integer_problem's rule, so that
/// no option takes "010" as octal, "0x8" as hex, "-1" as 2^64 - 1 or a too-large number as its maximum.
void parse_command_line(CLI::App& app, int argc, char** argv);

/// Throws UsageError unless a results file can be written at `path`: not empty, not a folder, and the
/// nearest existing folder on its path accepts a new file (checked by creating and removing one).
void check_writable_path(const std::string& path, const std::string& option = "--json");

/// Why `path` cannot be written as a new file, or "" when it can: not empty, not a folder or device, a
/// name and a path short enough for the file and for the temporary written beside it
/// (`<path>.tmp.<pid>`, see write_file_atomically), and the nearest existing folder on its path accepts a
/// new file (checked by creating and removing one). check_writable_path throws it as a UsageError.
std::string unwritable_because(const std::string& path);

/// Throws UsageError unless the given outputs ({option, path} pairs; empty paths are skipped) name
/// different files: "--json x.json and --snapshot ./x.json name the same file". Two spellings of one
/// file (relative, absolute, through a symlink) count as the same.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// Why `text` is not a plain decimal integer, or "" when it is: decimal digits only, with a leading '-'
/// only when `allow_negative`; no '+', space, leading zero ("010" is not read as octal 8 or as 10), hex
/// ("0x8"), exponent ("1e3") or fraction; and within 64 bits. Every integer option of every program is
/// read through this rule (parse_command_line applies it to each integer-typed option).
std::string decimal_integer_problem(const std::string& text, bool allow_negative = true);

/// Parses `text` by decimal_integer_problem's rule into [min, max]; throws UsageError
/// "<option> <text>: ..." otherwise. For integers inside list options (--threads 1,2,4; --sweep 1,8).
long long parse_decimal_integer(const std::string& text, const std::string& option, long long min, long long max);

/// A CLI11 validator applying decimal_integer_problem (negative numbers allowed when `allow_negative`).
CLI::Validator decimal_integer_validator(bool allow_negative = true);

/// Parses an element or byte count: plain decimal digits ("16777216"), a power of two ("2^24"), or a
/// binary suffix K, M, G, T with optional "i" and "B" ("32M", "32MiB", "1GiB" = 2^30). Throws UsageError
/// on anything else (a leading zero, hex, an exponent: counts are decimal), on zero when `allow_zero` is
/// false, and on overflow.
std::uint64_t parse_count(const std::string& text, bool allow_zero = false);

/// A CLI11 validator wrapping parse_count, for options given as strings.
CLI::Validator count_validator(bool allow_zero = false);

}  // namespace course
