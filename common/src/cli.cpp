#include "common/cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <system_error>

namespace course {

namespace {
std::string unwritable_because(const std::string& path);
}  // namespace

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
// Why no results file can be written at `path`, or "" when one can.
std::string unwritable_because(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return "empty file name";
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
  if (!fs::is_directory(folder, ec)) return path + ": " + folder.string() + " is not a folder";
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) return path + " exists and is not a regular file";
  const fs::path probe = folder / (".course-write-test." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return path + ": cannot create a file in " + folder.string();
  ::close(fd);
  fs::remove(probe, ec);
  return {};
}
}  // namespace

void check_writable_path(const std::string& path, const std::string& option) {
  const std::string why = unwritable_because(path);
  if (!why.empty()) throw UsageError(option + ": " + why);
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
