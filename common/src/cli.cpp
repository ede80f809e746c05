#include "common/cli.hpp"

#include <cctype>
#include <limits>

#include "common/errors.hpp"

namespace course {

void add_common_options(CLI::App& app, CommonOptions& opts) {
  app.add_option("--reps", opts.timing.reps, "timed repetitions; the median is reported")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--warmup", opts.timing.warmup, "untimed warm-up runs before timing")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--device", opts.device, "CUDA device index")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--json", opts.json_path, "write the results file (JSON) to FILE")->type_name("FILE");
  app.add_flag("--csv", opts.csv, "print the table as CSV");
}

void parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    throw ExitRequest{0};
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    throw ExitRequest{0};
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
}

std::uint64_t parse_count(const std::string& text, bool allow_zero) {
  const auto fail = [&](const char* why) -> std::uint64_t {
    throw UsageError("'" + text + "' is not a valid count: " + why);
  };
  if (text.empty()) return fail("empty");
  std::size_t pos = 0;
  std::uint64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return fail("too large");
    value = value * 10 + digit;
    ++pos;
  }
  if (pos == 0) return fail("expected digits");
  std::string rest = text.substr(pos);
  if (!rest.empty() && rest[0] == '^') {
    if (value != 2) return fail("only powers of two are written with ^");
    std::uint64_t exponent = 0;
    std::size_t i = 1;
    for (; i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])); ++i)
      exponent = exponent * 10 + static_cast<std::uint64_t>(rest[i] - '0');
    if (i == 1 || i != rest.size()) return fail("expected 2^N");
    if (exponent > 62) return fail("too large");
    value = std::uint64_t{1} << exponent;
  } else if (!rest.empty()) {
    int shift = 0;
    switch (std::toupper(static_cast<unsigned char>(rest[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: return fail("unknown suffix (use K, M, G, T)");
    }
    std::string unit = rest.substr(1);
    if (unit != "" && unit != "i" && unit != "B" && unit != "iB") return fail("unknown suffix (use K, M, G, T)");
    if (value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return fail("too large");
    value <<= shift;
  }
  if (value == 0 && !allow_zero) return fail("must be at least 1");
  return value;
}

CLI::Validator count_validator(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& s) -> std::string {
        try {
          (void)parse_count(s, allow_zero);
          return {};
        } catch (const UsageError& e) {
          return e.what();
        }
      },
      "COUNT", "count");
}

}  // namespace course
