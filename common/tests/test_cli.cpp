#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/errors.hpp"

namespace {
// Runs parse_command_line on a vector of words, as main() would get them.
void parse(CLI::App& app, std::vector<std::string> words) {
  words.insert(words.begin(), "prog");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  course::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST_CASE("parse_count reads digits, powers of two and binary suffixes") {
  using course::parse_count;
  CHECK(parse_count("16777216") == 16777216u);
  CHECK(parse_count("2^24") == (1u << 24));
  CHECK(parse_count("2^0") == 1u);
  CHECK(parse_count("32M") == 32u << 20);
  CHECK(parse_count("32MiB") == 32u << 20);
  CHECK(parse_count("1GiB") == 1u << 30);
  CHECK(parse_count("4k") == 4096u);
  CHECK(parse_count("1KB") == 1024u);
  CHECK(parse_count("0", true) == 0u);
}

TEST_CASE("parse_count rejects junk, zero, other bases and overflow") {
  using course::parse_count;
  using course::UsageError;
  CHECK_THROWS_AS(parse_count(""), UsageError);
  CHECK_THROWS_AS(parse_count("abc"), UsageError);
  CHECK_THROWS_AS(parse_count("-5"), UsageError);
  CHECK_THROWS_AS(parse_count("0"), UsageError);
  CHECK_THROWS_AS(parse_count("3^4"), UsageError);
  CHECK_THROWS_AS(parse_count("2^"), UsageError);
  CHECK_THROWS_AS(parse_count("2^63"), UsageError);
  CHECK_THROWS_AS(parse_count("12X"), UsageError);
  CHECK_THROWS_AS(parse_count("12Mx"), UsageError);
  CHECK_THROWS_AS(parse_count("99999999999999999999999"), UsageError);
  CHECK_THROWS_AS(parse_count("17179869184G"), UsageError);
}

TEST_CASE("the common options parse and keep their defaults") {
  CLI::App app{"test"};
  course::CommonOptions opts;
  opts.timing = {2, 7};
  course::add_common_options(app, opts);
  SUBCASE("defaults") {
    parse(app, {});
    CHECK(opts.timing.reps == 7);
    CHECK(opts.timing.warmup == 2);
    CHECK(opts.device == 0);
    CHECK(opts.json_path.empty());
    CHECK_FALSE(opts.csv);
  }
  SUBCASE("given") {
    parse(app, {"--reps", "50", "--warmup", "0", "--device", "1", "--json", "out.json", "--csv"});
    CHECK(opts.timing.reps == 50);
    CHECK(opts.timing.warmup == 0);
    CHECK(opts.device == 1);
    CHECK(opts.json_path == "out.json");
    CHECK(opts.csv);
  }
}

TEST_CASE("bad command lines become UsageError (exit 2), --help an ExitRequest with code 0") {
  CLI::App app{"test"};
  course::CommonOptions opts;
  course::add_common_options(app, opts);
  CHECK_THROWS_AS(parse(app, {"--reps", "0"}), course::UsageError);
  CHECK_THROWS_AS(parse(app, {"--reps", "many"}), course::UsageError);
  CHECK_THROWS_AS(parse(app, {"--device", "-1"}), course::UsageError);
  CHECK_THROWS_AS(parse(app, {"--no-such-option"}), course::UsageError);
  CHECK_THROWS_AS(parse(app, {"stray"}), course::UsageError);
  try {
    parse(app, {"--help"});
    FAIL("--help did not end the program");
  } catch (const course::ExitRequest& e) {
    CHECK(e.code == 0);
  }
}

TEST_CASE("run_main maps errors to exit codes 2, 77 and 1") {
  using course::run_main;
  char name[] = "prog";
  char* argv[] = {name, nullptr};
  CHECK(run_main("t", [](int, char**) { return 0; }, 1, argv) == 0);
  CHECK(run_main("t", [](int, char**) -> int { throw course::UsageError("bad"); }, 1, argv) == 2);
  CHECK(run_main("t", [](int, char**) -> int { throw course::NoDeviceError("none"); }, 1, argv) == 77);
  CHECK(run_main("t", [](int, char**) -> int { throw course::CudaError("boom"); }, 1, argv) == 1);
  CHECK(run_main("t", [](int, char**) -> int { throw course::WrongResultError("sum 1, expected 2"); }, 1, argv) == 1);
  CHECK(run_main("t", [](int, char**) -> int { throw course::ExitRequest{0}; }, 1, argv) == 0);
}

TEST_CASE("count_validator accepts counts and rejects junk inside CLI11") {
  CLI::App app{"test"};
  std::string size = "1";
  app.add_option("--size", size)->check(course::count_validator());
  CHECK_NOTHROW(parse(app, {"--size", "2^20"}));
  CHECK(size == "2^20");
  CHECK_THROWS_AS(parse(app, {"--size", "0"}), course::UsageError);
  CHECK_THROWS_AS(parse(app, {"--size", "lots"}), course::UsageError);
}

TEST_CASE("a 2^N exponent past 62 is refused, however many digits (no wrap-around past 2^64)") {
  using course::parse_count;
  CHECK_THROWS_AS(parse_count("2^63"), course::UsageError);
  CHECK_THROWS_AS(parse_count("2^18446744073709551620"), course::UsageError);  // wrapped to 2^4 once
  CHECK(parse_count("2^62") == (std::uint64_t{1} << 62));
}

TEST_CASE("list options split on commas and repeats, and refuse empty items") {
  std::vector<std::string> items{"2^20", "2^24"};
  {
    CLI::App app;
    course::add_list_option(app, "--n", items, "sizes");
    parse(app, {});
    CHECK(items == std::vector<std::string>{"2^20", "2^24"});  // the default stays
  }
  {
    CLI::App app;
    course::add_list_option(app, "--n", items, "sizes");
    parse(app, {"--n", "1,2", "--n", "3"});
    CHECK(items == std::vector<std::string>{"1", "2", "3"});
  }
  for (const char* bad : {"2^24,,2^28", ",1", "1,", ""}) {
    CAPTURE(bad);
    CLI::App app;
    course::add_list_option(app, "--n", items, "sizes");
    CHECK_THROWS_AS(parse(app, {"--n", bad}), course::UsageError);
  }
}

TEST_CASE("--variants accepts the table's names and names the choices otherwise") {
  CHECK_NOTHROW(course::check_variant_names({"a", "c"}, {"a", "b", "c"}));
  try {
    course::check_variant_names({"a", "zz"}, {"a", "b"});
    FAIL("an unknown name was accepted");
  } catch (const course::UsageError& e) {
    CHECK(std::string(e.what()) == "--variants zz: no such variant; choose from a, b");
  }
}

TEST_CASE("--json is refused before the run when no file can be written there") {
  for (const char* bad : {"", "/tmp", "/proc/x.json", "/etc/hostname/x.json", "/nonexistent-root-dir-file/x/"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(course::check_writable_path(bad), course::UsageError);
    course::CommonOptions opts;
    CLI::App app;
    course::add_common_options(app, opts);
    CHECK_THROWS_AS(parse(app, {"--json", bad}), course::UsageError);
  }
  const std::string fresh = "/tmp/course-cli-test-" + std::to_string(::getpid()) + "/sub/out.json";
  CHECK_NOTHROW(course::check_writable_path(fresh));                 // missing folders are made at write time
  CHECK_NOTHROW(course::check_writable_path("course-no-such-dir/sub/out.json"));  // relative, too
  CHECK_FALSE(std::filesystem::exists("/tmp/course-cli-test-" + std::to_string(::getpid())));  // nothing created
}

TEST_CASE("the CPU-only options have no --device") {
  course::CommonOptions opts;
  CLI::App app;
  course::add_common_options(app, opts, course::Processor::cpu);
  CHECK_THROWS_AS(parse(app, {"--device", "0"}), course::UsageError);
  CLI::App gpu_app;
  course::add_common_options(gpu_app, opts);
  CHECK_THROWS_AS(parse(gpu_app, {"--device", "-1"}), course::UsageError);
  CHECK_NOTHROW(parse(gpu_app, {"--device", "1"}));
  CHECK(opts.device == 1);
}

TEST_CASE("integers are decimal only: every integer option refuses octal, hex, exponents, signs and spaces") {
  using course::decimal_integer_problem;
  CHECK(decimal_integer_problem("0").empty());
  CHECK(decimal_integer_problem("10").empty());
  CHECK(decimal_integer_problem("-3").empty());
  CHECK(decimal_integer_problem("18446744073709551615", false).empty());
  for (const char* bad : {"010", "0x8", "1e3", "+5", " 5", "5 ", "", "1.0", "08", "-010", "0b1"})
    CHECK_MESSAGE(!decimal_integer_problem(bad).empty(), bad);
  CHECK(decimal_integer_problem("-1", false).find("non-negative") != std::string::npos);
  CHECK(decimal_integer_problem("9223372036854775808").find("too large") != std::string::npos);
  CHECK(decimal_integer_problem("18446744073709551616", false).find("too large") != std::string::npos);
  CHECK(course::parse_decimal_integer("42", "--x", 0, 100) == 42);
  CHECK_THROWS_AS(course::parse_decimal_integer("042", "--x", 0, 100), course::UsageError);
  CHECK_THROWS_AS(course::parse_decimal_integer("101", "--x", 0, 100), course::UsageError);

  // parse_command_line puts the rule in front of every integer-typed option, hidden ones included.
  CLI::App app{"test"};
  int count = 0;
  std::uint64_t seed = 0;
  long long hidden = 0;
  app.add_option("--count", count)->check(CLI::Range(0, 1000));
  app.add_option("--seed", seed);
  app.add_option("--hidden", hidden)->group("");
  parse(app, {"--count", "12", "--seed", "18446744073709551615", "--hidden", "-4"});
  CHECK(count == 12);
  CHECK(seed == 18446744073709551615ull);
  CHECK(hidden == -4);
  for (const std::vector<std::string>& words :
       std::vector<std::vector<std::string>>{{"--count", "010"}, {"--count", "0x8"}, {"--count", "1e3"},
                                             {"--seed", "-1"}, {"--seed", "99999999999999999999"}}) {
    CLI::App again{"test"};
    again.add_option("--count", count)->check(CLI::Range(0, 1000));
    again.add_option("--seed", seed);
    try {
      parse(again, words);
      FAIL("accepted " << words[0] << " " << words[1]);
    } catch (const course::UsageError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(words[0]) != std::string::npos, e.what());
    }
  }
  try {
    CLI::App again{"test"};
    again.add_option("--hidden", hidden)->group("");
    parse(again, {"--hidden", "010"});
    FAIL("accepted --hidden 010");
  } catch (const course::UsageError& e) {
    CHECK_MESSAGE(std::string(e.what()).find("--hidden") != std::string::npos, e.what());
  }
}

TEST_CASE("counts are decimal: a leading zero, hex and exponents are refused") {
  for (const char* bad : {"010", "0x8", "1e3", "2^024", "+5", " 5"})
    CHECK_THROWS_WITH_AS(course::parse_count(bad), doctest::Contains("decimal"), course::UsageError);
}

TEST_CASE("an output path too long for itself or for the temporary file beside it is refused up front") {
  CHECK(course::unwritable_because("/tmp/" + std::string(5000, 'p')).find("too long") != std::string::npos);
  const std::string folder = std::filesystem::temp_directory_path().string();
  CHECK(course::unwritable_because(folder + "/" + std::string(255, 'n')).find("too long") != std::string::npos);
  CHECK(course::unwritable_because(folder + "/" + std::string(240, 'n')).empty());
  CHECK(course::unwritable_because("/dev/full").find("not a regular file") != std::string::npos);
}

TEST_CASE("two outputs naming one file are refused, however spelled") {
  CHECK_NOTHROW(course::check_distinct_outputs({{"--json", "a.json"}, {"--trace", "b.json"}, {"--x", ""}}));
  CHECK_THROWS_WITH_AS(course::check_distinct_outputs({{"--json", "a.json"}, {"--trace", "./sub/../a.json"}}),
                       doctest::Contains("name the same file"), course::UsageError);
}
