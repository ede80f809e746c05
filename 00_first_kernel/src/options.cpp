#include "options.hpp"

#include <cstdint>
#include <string>

#include "common/errors.hpp"

namespace first_kernel {

void add_options(CLI::App& app, Options& opt) {
  course::add_common_options(app, opt.common);
  app.add_option("--n", opt.n, "elements of each 1-D array (floats; 2^26 = 256 MiB; at most 2^30)")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--width", opt.width, "columns of the matrix of the 2-D kernels")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--height", opt.height, "rows of the matrix (width x height at most 2^30)")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--stride", opt.stride, "copy_strided: floats between the reads of neighbouring threads (1 ... 4096)")
      ->capture_default_str();
  app.add_option("--block", opt.block, "threads per block of the 1-D kernels (a multiple of 32, 32 ... 1024)")
      ->capture_default_str();
  course::add_variants_option(app, opt.variant_names);
  app.add_flag("--levels", opt.levels, "also measure the memory levels: shared-memory and L1 latency, L2 bandwidth");
}

unsigned parse_decimal(const std::string& text, const std::string& option, unsigned min, unsigned max) {
  const std::string range = " (" + std::to_string(min) + " ... " + std::to_string(max) + ")";
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
      (text.size() > 1 && text[0] == '0'))  // "010" is neither octal 8 nor 10: decimal digits, no leading zero
    throw course::UsageError(option + " '" + text + "': expected a decimal integer" + range);
  const unsigned long value = std::stoul(text);
  if (value < min || value > max) throw course::UsageError(option + " " + text + ": not in range" + range);
  return static_cast<unsigned>(value);
}

Problem check_options(const Options& opt) {
  Problem p;
  p.n = course::parse_count(opt.n);
  if (p.n > max_elements) throw course::UsageError("--n " + opt.n + ": at most 2^30 elements");
  const std::uint64_t width = course::parse_count(opt.width);
  const std::uint64_t height = course::parse_count(opt.height);
  if (width > max_elements || height > max_elements || width * height > max_elements)
    throw course::UsageError("--width " + opt.width + " --height " + opt.height +
                             ": the matrix may hold at most 2^30 elements");
  p.width = static_cast<unsigned>(width);
  p.height = static_cast<unsigned>(height);
  p.stride = parse_decimal(opt.stride, "--stride", 1, 4096);
  p.block = parse_decimal(opt.block, "--block", 32, 1024);
  if (p.block % 32 != 0) throw course::UsageError("--block " + opt.block + ": a multiple of 32 (whole warps)");
  // The grids must be launchable: blocks_for and blocks_for_matrix throw UsageError past CUDA's limits.
  one_thread_per_element(p);
  one_thread_per_matrix_element(p);
  return p;
}

}  // namespace first_kernel
