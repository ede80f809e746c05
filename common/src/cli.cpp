#include "common/cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <climits>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>
#include <system_error>

namespace course {

void add_common_options(CLI::App& app, CommonOptions& opts, Processor processor) {
  app.add_option("--reps", opts.timing.reps, "timed repetitions; the median is reported")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--warmup", opts.timing.warmup, "untimed warm-up runs before timing")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  if (processor == Processor::gpu)
    app.add_option("--device", opts.device, "CUDA device index")
        ->check(CLI::Range(0, 1023))
        ->capture_default_str();
  app.add_option("--json", opts.json_path, "write the results file (JSON) to FILE")
      ->type_name("FILE")
      ->check(CLI::Validator(
          [](std::string& path) -> std::string { return unwritable_because(path); },
          "FILE", "writable file"));
  app.add_flag("--csv", opts.csv, "print only CSV on stdout (headers and notes go to stderr)");
}

CLI::Option* add_list_option(CLI::App& app, const std::string& name, std::vector<std::string>& items,
                             const std::string& help) {
  // Split here rather than with CLI11's delimiter, which drops empty pieces: "2^24,,2^28" must be
  // refused, never read as a shorter list.
  std::string shown;
  for (const auto& item : items) shown += (shown.empty() ? "" : ",") + item;
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&items, name](const std::vector<std::string>& raw) {
            std::vector<std::string> out;
            for (const auto& text : raw) {
              std::size_t start = 0;
              while (true) {
                const std::size_t comma = text.find(',', start);
                const std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                if (piece.empty()) throw CLI::ValidationError(name, "empty item in '" + text + "'");
                out.push_back(piece);
                if (comma == std::string::npos) break;
                start = comma + 1;
              }
            }
            items = std::move(out);
          },
          help + "; comma-separate or repeat")
      ->default_str(shown)
      ->type_name("LIST");
}

CLI::Option* add_variants_option(CLI::App& app, std::vector<std::string>& names) {
  return add_list_option(app, "--variants", names, "run only these variants (names as in the table)");
}

void check_variant_names(const std::vector<std::string>& names, const std::vector<std::string>& known) {
  for (const auto& name : names) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw UsageError("--variants " + name + ": no such variant; choose from " + list);
  }
}

namespace {
// write_file_atomically writes `<path>.tmp.<pid>` beside the target first: ".tmp." and up to 7 digits
// (Linux pids stay below 2^22). A name that fits only without it would fail after the run.
constexpr std::size_t temporary_suffix_chars = 12;

std::size_t longest_name_in(const std::filesystem::path& folder) {
  const long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  return limit > 0 ? static_cast<std::size_t>(limit) : 255;
}

std::string shortened(const std::string& text) {
  return text.size() <= 60 ? text : text.substr(0, 28) + "..." + text.substr(text.size() - 28);
}
}  // namespace

// Why no results file can be written at `path`, or "" when one can.
std::string unwritable_because(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return "empty file name";
  const std::string shown = shortened(path);
  // Lengths first: the kernel refuses them only when the file is opened, which is after the run.
  const std::size_t path_limit = PATH_MAX - 1;
  if (path.size() + temporary_suffix_chars > path_limit)
    return "the path " + shown + " is " + std::to_string(path.size()) + " characters long: too long (at most " +
           std::to_string(path_limit - temporary_suffix_chars) + ")";
  std::error_code ec;
  const fs::path target(path);
  if (fs::is_directory(target, ec)) return path + " is a folder, not a file";
  if (!target.has_filename()) return path + " names no file";
  // The nearest existing ancestor must be a folder in which a file can really be created: access()
  // says yes to root on /proc and on read-only mounts, so try it.
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  while (!fs::exists(folder, ec)) {
    if (!folder.has_parent_path()) {  // a relative path whose first folder is still to be made
      folder = ".";
      break;
    }
    if (folder.parent_path() == folder) break;
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder, ec)) return shown + ": " + shortened(folder.string()) + " is not a folder";
  const std::size_t name_limit = longest_name_in(folder);
  for (const fs::path& part : target) {
    const std::size_t extra = part == target.filename() ? temporary_suffix_chars : 0;
    if (part.native().size() + extra > name_limit)
      return "the name " + shortened(part.string()) + " is " + std::to_string(part.native().size()) +
             " characters long: too long for a file name (at most " + std::to_string(name_limit - extra) +
             (extra ? ", with room for the temporary file written beside it)" : ")");
  }
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) return shown + " exists and is not a regular file";
  const fs::path probe = folder / (".course-write-test." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return shown + ": cannot create a file in " + shortened(folder.string());
  ::close(fd);
  fs::remove(probe, ec);
  return {};
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  namespace fs = std::filesystem;
  std::vector<std::pair<const std::pair<std::string, std::string>*, fs::path>> seen;
  for (const auto& output : outputs) {
    if (output.second.empty()) continue;
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::absolute(output.second, ec), ec);
    if (ec) resolved = fs::absolute(output.second).lexically_normal();
    for (const auto& [earlier, path] : seen)
      if (path == resolved)
        throw UsageError(earlier->first + " " + earlier->second + " and " + output.first + " " + output.second +
                         " name the same file: give each output its own file");
    seen.emplace_back(&output, resolved);
  }
}

std::string decimal_integer_problem(const std::string& text, bool allow_negative) {
  const std::string what = "'" + shortened(text) + "' is not " +
                           (allow_negative ? "an integer" : "a non-negative integer") + " in decimal digits";
  if (text.empty()) return "an empty value is not " + std::string(allow_negative ? "an integer" : "a non-negative integer");
  const bool negative = text[0] == '-';
  if (negative && !allow_negative) return what;
  const std::string digits = text.substr(negative ? 1 : 0);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
      return what + " (hex is not read)";
    if (digits.find_first_of("eE") != std::string::npos && digits.find_first_of("0123456789") == 0)
      return what + " (no exponent: write 1000, not 1e3)";
    return what + " (no sign +, space, hex, exponent or fraction)";
  }
  if (digits.size() > 1 && digits[0] == '0')
    return what + " (a leading zero: write " + digits.substr(digits.find_first_not_of('0') == std::string::npos
                                                                  ? digits.size() - 1
                                                                  : digits.find_first_not_of('0')) +
           "; nothing is read as octal)";
  const std::string largest = negative ? "9223372036854775808"
                                       : (allow_negative ? "9223372036854775807" : "18446744073709551615");
  if (digits.size() > largest.size() || (digits.size() == largest.size() && digits > largest))
    return "'" + shortened(text) + "' is too large (at most " + (negative ? "-" : "") + largest + ")";
  return {};
}

long long parse_decimal_integer(const std::string& text, const std::string& option, long long min, long long max) {
  const std::string problem = decimal_integer_problem(text, min < 0);
  if (!problem.empty()) throw UsageError(option + " " + shortened(text) + ": " + problem);
  const long long value = std::stoll(text);
  if (value < min || value > max)
    throw UsageError(option + " " + text + ": must be between " + std::to_string(min) + " and " + std::to_string(max));
  return value;
}

CLI::Validator decimal_integer_validator(bool allow_negative) {
  CLI::Validator v(
      [allow_negative](std::string& text) -> std::string { return decimal_integer_problem(text, allow_negative); },
      "");
  v.name("DECIMAL");
  return v;
}

namespace {
// Puts decimal_integer_validator in front of every integer-typed option (CLI11 names their types INT and
// UINT), once: CLI11 itself reads integers with strtoll(..., 0), so "010" is 8 and "0x8" is 8.
void require_decimal_integers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    const bool is_signed = type == "INT" || type.rfind("INT:", 0) == 0;
    const bool is_unsigned = type == "UINT" || type.rfind("UINT:", 0) == 0;
    if (!is_signed && !is_unsigned) continue;
    try {
      (void)option->get_validator("DECIMAL");
      continue;  // already there (parse_command_line ran on this app before)
    } catch (const CLI::OptionNotFound&) {
    }
    CLI::Validator decimal = decimal_integer_validator(is_signed);
    if (option->get_group().empty()) {
      // CLI11 names a hidden option nowhere in its messages: the validator says which option it is.
      const std::string name = option->get_lnames().empty() ? option->get_name(false, true)
                                                            : "--" + option->get_lnames().front();
      decimal = CLI::Validator(
          [is_signed, name](std::string& text) -> std::string {
            const std::string problem = decimal_integer_problem(text, is_signed);
            return problem.empty() ? problem : name + " " + problem;
          },
          "");
      decimal.name("DECIMAL");
    }
    option->transform(decimal);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) require_decimal_integers(*sub);
}
}  // namespace

void check_writable_path(const std::string& path, const std::string& option) {
  const std::string why = unwritable_because(path);
  if (!why.empty()) throw UsageError(option + ": " + why);
}

void parse_command_line(CLI::App& app, int argc, char** argv) {
  require_decimal_integers(app);
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
  if (pos == 0) return fail("expected digits (counts are decimal: no sign, space or letter first)");
  std::string rest = text.substr(pos);
  if (pos > 1 && text[0] == '0') return fail("a leading zero (counts are decimal: nothing is read as octal)");
  if (!rest.empty() && text[0] == '0' && pos == 1 && std::isalpha(static_cast<unsigned char>(rest[0])) &&
      std::toupper(static_cast<unsigned char>(rest[0])) != 'K' && std::toupper(static_cast<unsigned char>(rest[0])) != 'M' &&
      std::toupper(static_cast<unsigned char>(rest[0])) != 'G' && std::toupper(static_cast<unsigned char>(rest[0])) != 'T')
    return fail("hex, octal and binary are not read (counts are decimal)");
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E'))
    return fail("no exponent (counts are decimal digits, 2^N or a K, M, G, T suffix: write 1000 or 1K, not 1e3)");
  if (!rest.empty() && rest[0] == '^') {
    if (value != 2) return fail("only powers of two are written with ^");
    std::uint64_t exponent = 0;
    std::size_t i = 1;
    if (rest.size() > 2 && rest[1] == '0') return fail("a leading zero in the exponent (counts are decimal)");
    for (; i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])); ++i) {
      exponent = exponent * 10 + static_cast<std::uint64_t>(rest[i] - '0');
      if (exponent > 62) return fail("too large");  // checked per digit: no wrap-around past 2^64
    }
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
