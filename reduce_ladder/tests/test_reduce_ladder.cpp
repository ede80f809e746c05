// The harness's own claims, on the CPU: a recorded rung carries exactly the JSON keys the figures and
// the committed results use, with full-precision values, and the table shows what the lesson prints;
// bad sizes, blocks and names are refused with a message naming the option.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "common/errors.hpp"
#include "reduce_ladder/program.hpp"

using namespace reduce;

namespace {
LaunchShape no_shape(std::size_t, unsigned, int) { return {}; }

const Variant ladder_of_two[] = {
    {"first", "teaches one thing", "bookFirst", "ceil(n / block)", no_shape, nullptr, nullptr},
    {"second", "teaches another", "bookSecond", "chosen by a library", no_shape, nullptr, nullptr},
};

std::string message_of(const std::vector<std::string>& sizes, long long block, const std::vector<std::string>& names) {
  try {
    (void)validate_ladder_options(sizes, block, names, ladder_of_two);
  } catch (const course::UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a recorded rung has the JSON keys the figures read, and the table the lesson shows") {
  course::Stats time;
  time.median = 0.5;
  time.min = 0.25;
  time.max = 1.0;
  time.cv = 0.01;
  course::RowTable table;
  record_rung(table.add_row(), ladder_of_two[0], {std::size_t{1} << 24, {32768, 512}, time, 1.5, 3.0, 2000.0, -42});
  record_rung(table.add_row(), ladder_of_two[1], {std::size_t{1} << 24, {0, 0}, time, 1.0, 3.0, 2000.0, -42});

  const nlohmann::json& row = table.rows()[0].to_json();
  std::set<std::string> keys;
  for (const auto& item : row.items()) keys.insert(item.key());
  CHECK(keys == std::set<std::string>{"n", "kernel", "book_name", "teaches", "grid_formula", "time_ms", "min_ms",
                                      "max_ms", "cv", "step_speedup", "cumulative_speedup", "grid", "block",
                                      "bytes_read", "gbs", "pct_copy", "sum"});
  CHECK(row["n"] == 16777216);
  CHECK(row["kernel"] == "first");
  CHECK(row["book_name"] == "bookFirst");
  CHECK(row["time_ms"] == 0.5);
  CHECK(row["step_speedup"] == 1.5);
  CHECK(row["bytes_read"].is_number_float());  // n × 4 as a double, as the committed results hold it
  CHECK(row["gbs"].get<double>() == doctest::Approx(67108864.0 / 0.5e6));
  CHECK(row["pct_copy"].get<double>() == doctest::Approx(100.0 * 67108864.0 / 0.5e6 / 2000.0));
  CHECK(row["sum"] == -42);

  const course::Table shown = table.to_table();
  CHECK(shown.headers() ==
        std::vector<std::string>{"n", "kernel", "time_ms", "step", "cumulative", "grid", "block", "GB/s", "%copy"});
  CHECK(shown.rows()[0] ==
        std::vector<std::string>{"16777216", "first", "0.5000", "1.50x", "3.00x", "32768", "512", "134", "6.7"});
  // The library row: its shape shows as "library" and stays 0 in the JSON (figures.py reads 0).
  CHECK(shown.rows()[1][5] == "library");
  CHECK(shown.rows()[1][6] == "library");
  CHECK(table.rows()[1].to_json()["grid"] == 0);
  CHECK(table.rows()[1].to_json()["block"] == 0);
}

TEST_CASE("bad sizes, blocks and variant names are refused with a message naming the option") {
  CHECK(message_of({"2^24", "33"}, 256, {}) == "");
  CHECK(message_of({"2^32"}, 1024, {"second", "first"}) == "");  // the largest size is allowed
  CHECK(message_of({"4294967297"}, 256, {}).find("--n 4294967297: too large") == 0);
  CHECK(message_of({"2^18446744073709551620"}, 256, {}).find("too large") != std::string::npos);
  CHECK(message_of({"0"}, 256, {}).find("--n 0:") == 0);
  CHECK(message_of({"-5"}, 256, {}).find("--n -5:") == 0);
  CHECK(message_of({}, 256, {}).find("--n") == 0);
  for (const long long block : {0LL, -64LL, 32LL, 100LL, 2048LL})
    CHECK(message_of({"2^10"}, block, {}).find("power of two") != std::string::npos);
  const std::string unknown = message_of({"2^10"}, 256, {"first", "third"});
  CHECK(unknown.find("--variants third: no such variant") == 0);
  CHECK(unknown.find("first, second") != std::string::npos);  // the valid names, in table order
}
