/// \file options.hpp
/// \brief first_kernel's command line: the sizes, the 1-D block, the stride, the ladder's rows, the
/// memory levels, and the options every chapter shares. Every check runs before the GPU is touched.
#pragma once
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

/// The command line as given (sizes as text: "2^26", "64M", "67108864").
struct Options {
  course::CommonOptions common;
  std::string n = "2^26";
  std::string width = "8192";
  std::string height = "8192";
  std::string stride = "32";
  std::string block = "256";
  std::vector<std::string> variant_names;  ///< --variants; empty: the whole ladder
  bool levels = false;                     ///< --levels: also measure the memory levels
};

/// Adds every option to `app`, bound to `opt`.
void add_options(CLI::App& app, Options& opt);

/// The problem the options describe (the device's fields left 0). Throws course::UsageError, naming the
/// option, for anything out of range.
Problem check_options(const Options& opt);

/// A decimal integer in [min, max] and nothing else (no sign, no "0x", no spaces, no fraction). Throws
/// course::UsageError naming `option`.
unsigned parse_decimal(const std::string& text, const std::string& option, unsigned min, unsigned max);

}  // namespace first_kernel
