// CPU side of chapter 02's report: every table recorded once, from made-up measurements shaped like a
// real run, and the results file it gives checked against the committed ones (results/<gpu>/), which
// figures.py turns into the lesson's tables. Runs on CI (no GPU).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/report.hpp"
#include "model.hpp"
#include "options.hpp"
#include "tables.hpp"

using namespace bandwidth;

namespace {

course::Stats stats(double median_ms, double cv) {
  course::Stats s;
  s.count = 20;
  s.median = s.mean = median_ms;
  s.min = 0.98 * median_ms;
  s.max = 1.05 * median_ms;
  s.stddev = cv * median_ms;
  s.cv = cv;
  return s;
}

// A point of a copy that takes `latency_us` + bytes / `gbs`: the shape the fit expects.
CopyMeasurement point(std::size_t bytes, double latency_us, double gbs) {
  const double ms = latency_us * 1e-3 + static_cast<double>(bytes) / (gbs * 1e6);
  return {bytes, {stats(ms + 0.004, 0.02), 1, 1.0, {}}, {stats(ms, 0.01), copies_per_trial(bytes), 1.0, {}}};
}

Series series(const std::string& copy, const std::string& memory, const std::vector<std::size_t>& sizes, double gbs) {
  Series s{copy, memory, {}};
  for (const std::size_t n : sizes) s.points.push_back(point(n, 2.5, gbs));
  return s;
}

// A call that returns after `returned_us`, whose copy is complete `after_us` later; waiting with nothing
// queued costs 1 µs.
CallReturn call_return(double returned_us, double after_us) {
  return {stats(returned_us * 1e-3, 0.05), stats((returned_us + after_us) * 1e-3, 0.04), stats(after_us * 1e-3, 0.1),
          stats(1e-3, 0.1)};
}

// A run like the committed ones: four host kinds, two swept device copies, a duel of the lesson's three
// copies and two beyond it, and (with `devices` = 2) a peer matrix with access off and enabled.
Measurements made_up_run(int devices) {
  const std::size_t source = K80Reference::bytes;
  const auto sizes = sweep_sizes(1024, std::size_t{1} << 30, 4, source);
  Measurements m;
  m.peaks = {2991.0, std::size_t{1} << 30, 63.0};
  m.source_bytes = source;
  for (const char* memory : {"pageable", "pinned", "write-combined", "registered"}) {
    m.sweep.series.push_back(series("h2d", memory, sizes, 54.0));
    m.sweep.series.push_back(series("d2h", memory, sizes, 54.0));
    m.sweep.both_ways.push_back({memory, point(source, 5.0, 100.0)});
    // Each direction to its own end: H2D done a little before D2H.
    const double pair_ms = m.sweep.both_ways.back().measurement.spin_blocked.ms.median;
    m.sweep.both_ways.back().measurement.spin_blocked.lane_ms = {stats(0.97 * pair_ms, 0.01), stats(pair_ms, 0.01)};
    // cudaMemcpy waits for its copy (after return: the 1 µs floor); cudaMemcpyAsync returns at once.
    for (const char* copy : {"h2d", "d2h"})
      for (const char* call : {"cudaMemcpy", "cudaMemcpyAsync"})
        for (const std::size_t n : {std::size_t{4096}, source}) {
          const double copy_us = 2.5 + static_cast<double>(n) / 54e3;
          const bool waits = std::string(call) == "cudaMemcpy";
          m.sweep.call_returns.push_back(
              {copy, memory, call, n, waits ? call_return(3 + copy_us, 1) : call_return(2, copy_us)});
        }
    // Host to host: both calls return with the copy done.
    if (std::string(memory) == "pageable" || std::string(memory) == "pinned")
      for (const char* call : {"cudaMemcpy", "cudaMemcpyAsync"})
        for (const std::size_t n : {std::size_t{4096}, source})
          m.sweep.call_returns.push_back({"h2h", memory, call, n, call_return(1 + static_cast<double>(n) / 10e3, 1)});
  }
  // Device to device: both calls return at once.
  for (const char* call : {"cudaMemcpy", "cudaMemcpyAsync"})
    for (const std::size_t n : {std::size_t{4096}, source})
      m.sweep.call_returns.push_back({"d2d", "device", call, n, call_return(2, 2.5 + static_cast<double>(n) / 1.5e6)});
  m.sweep.series.push_back(series("d2d_memcpy", "device", sizes, 1500.0));
  m.sweep.series.push_back(series("d2d_sm_kernel", "device", sizes, 1510.0));
  m.duel.bytes = std::size_t{1} << 30;
  m.duel.lesson_count = 3;
  double ms = 0.73;
  for (const char* copy : {"d2d_memcpy", "d2d_sm_kernel", "d2d_grid_stride", "sm_tuned_a", "sm_tuned_b"})
    m.duel.entries.push_back({copy, stats(ms -= 0.01, 0.006)});
  m.device_count = devices;
  m.p2p_ran = devices >= 2;
  m.p2p_bytes = std::size_t{256} << 20;
  for (const bool access : {false, true})
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}})
      if (m.p2p_ran)
        m.peers.push_back({src, dst, access, true, point(m.p2p_bytes, 10, access ? 390 : 38),
                           point(m.p2p_bytes, 10, access ? 390 : 30)});
  return m;
}

struct Recorded {
  nlohmann::json results;
  std::string printed;
  std::vector<std::string> notes;
};

Recorded record(const Measurements& m, bool csv = false, const std::string& json_path = "") {
  char program[] = "bandwidth";
  char* argv[] = {program};
  course::CommonOptions options;
  options.csv = csv;
  options.json_path = json_path;
  course::RunReport report("02_bandwidth", 1, argv, options);
  course::DeviceInfo info;
  info.pcie_generation = 5;
  info.pcie_width = 16;
  Recorded r;
  r.notes = record_run(report, m, info);
  std::ostringstream out;
  report.finish(out);
  r.printed = out.str();
  r.results = report.results().json();
  return r;
}

nlohmann::json committed(const std::string& gpu) {
  std::ifstream in(std::string(BANDWIDTH_RESULTS_DIR) + "/" + gpu + "/02_bandwidth.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// Every key `old` has, `now` has too, of the same kind, all the way down (arrays: their first elements).
void check_keys_kept(const nlohmann::json& old, const nlohmann::json& now, const std::string& where) {
  CAPTURE(where);
  if (old.is_object()) {
    REQUIRE(now.is_object());
    for (const auto& [key, value] : old.items()) {
      CAPTURE(key);
      REQUIRE(now.contains(key));
      check_keys_kept(value, now.at(key), where + "." + key);
    }
  } else if (old.is_array()) {
    REQUIRE(now.is_array());
    if (!old.empty()) {
      REQUIRE(!now.empty());
      check_keys_kept(old.front(), now.front(), where + "[0]");
    }
  } else if (!old.is_null() && !now.is_null()) {
    CHECK(old.is_number() == now.is_number());
    CHECK(old.is_string() == now.is_string());
  }
}

// The first row of each scenario.
nlohmann::json rows_by_scenario(const nlohmann::json& results) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& row : results.at("rows"))
    if (!out.contains(row.at("scenario").get<std::string>())) out[row.at("scenario").get<std::string>()] = row;
  return out;
}

void check_like_committed(const nlohmann::json& now, const nlohmann::json& old) {
  check_keys_kept(rows_by_scenario(old), rows_by_scenario(now), "rows");
  check_keys_kept(old.at("extra"), now.at("extra"), "extra");
  const Options defaults;
  check_keys_kept(old.at("config"), config_json(make_plan(defaults, {}), true), "config");
}

}  // namespace

TEST_CASE("the results file keeps every key of the committed ones, rows and extra, so figures.py reads it") {
  SUBCASE("one GPU, as results/h100") { check_like_committed(record(made_up_run(1)).results, committed("h100")); }
  SUBCASE("two GPUs, as results/h200x2") { check_like_committed(record(made_up_run(2)).results, committed("h200x2")); }
}

TEST_CASE("the results file is written for figures.py (tests/figures_read_results.py reads it next)") {
  const std::string path = BANDWIDTH_MADE_UP_RESULTS;
  std::filesystem::remove(path);
  const Recorded r = record(made_up_run(2), false, path);
  std::ifstream in(path);
  REQUIRE(in.good());
  CHECK(nlohmann::json::parse(in) == r.results);
}

TEST_CASE("a row is recorded once: the table shows what the JSON holds, and extra copies the row") {
  const Recorded r = record(made_up_run(2));
  const auto& extra = r.results.at("extra");
  std::size_t sweep_rows = 0;
  for (const auto& row : r.results.at("rows"))
    if (row.at("scenario") == "sweep") {
      ++sweep_rows;
      CHECK(row.at("verified") == true);
      CHECK(row.at("lanes") == 1);
    }
  CHECK(sweep_rows == 10 * 12);  // 4 kinds x 2 directions + 2 device copies, 12 sizes
  // The book's size row of pinned H2D: the same GB/s in the printed table, the row and extra.
  nlohmann::json book_row;
  for (const auto& row : r.results.at("rows"))
    if (row.at("scenario") == "book_size" && row.at("copy") == "h2d" && row.at("memory") == "pinned") book_row = row;
  REQUIRE(book_row.is_object());
  CHECK(r.printed.find(course::format_fixed(book_row.at("gbs").get<double>(), 2)) != std::string::npos);
  bool in_extra = false;
  for (const auto& e : extra.at("book_size"))
    in_extra = in_extra || (e.at("copy") == "h2d" && e.at("memory") == "pinned" && e.at("gbs") == book_row.at("gbs") &&
                            e.at("k80_legacy_mbs") == K80Reference::h2d_legacy_mbs);
  CHECK(in_extra);
  // The duel: lesson first, then beyond, in extra as in the tables; the fastest SM copy named.
  REQUIRE(extra.at("d2d_duel").size() == 5);
  CHECK(extra.at("d2d_duel")[0].at("copy") == "d2d_memcpy");
  CHECK(extra.at("d2d_duel")[3].at("copy") == "sm_tuned_a");
  CHECK(extra.at("d2d_best_sm_copy").at("copy") == "sm_tuned_b");
  CHECK(extra.at("fits").size() == 10);
  CHECK(extra.at("p2p").at("pairs").size() == 4);
  CHECK(r.notes == std::vector<std::string>{"fastest SM copy: sm_tuned_b at 1.06x cudaMemcpy"});
}

TEST_CASE("both ways at once: each direction's rate comes from its own lane's time, beside its one-way rate") {
  const Measurements m = made_up_run(1);
  const Recorded r = record(m);
  const BothWays* pinned = nullptr;
  for (const BothWays& b : m.sweep.both_ways)
    if (b.memory == "pinned") pinned = &b;
  REQUIRE(pinned != nullptr);
  const auto& lanes = pinned->measurement.spin_blocked.lane_ms;
  REQUIRE(lanes.size() == 2);
  const double bytes = static_cast<double>(pinned->measurement.bytes);
  nlohmann::json entry;
  for (const auto& e : r.results.at("extra").at("bidirectional"))
    if (e.at("memory") == "pinned") entry = e;
  REQUIRE(entry.is_object());
  // Lane 0 is H2D, lane 1 D2H: each direction's bytes over its own lane's median (decimal GB/s).
  CHECK(entry.at("gbs_h2d_during").get<double>() == doctest::Approx(bytes / (lanes[0].median * 1e-3) / 1e9));
  CHECK(entry.at("gbs_d2h_during").get<double>() == doctest::Approx(bytes / (lanes[1].median * 1e-3) / 1e9));
  // Both together: twice the bytes over the pair's time, until both are done.
  CHECK(entry.at("gbs_both_ways").get<double>() ==
        doctest::Approx(2 * bytes / (pinned->measurement.spin_blocked.ms.median * 1e-3) / 1e9));
  // The one-way rates are the sweep's at the same size, the sum of which the row compares with.
  CHECK(entry.at("gbs_h2d_one_way").get<double>() + entry.at("gbs_d2h_one_way").get<double>() ==
        doctest::Approx(entry.at("gbs_one_way_sum").get<double>()));
  // Without lane times (lanes on two devices), no per-direction rate: null in the JSON, "-" in the table.
  Measurements no_lanes = m;
  for (BothWays& b : no_lanes.sweep.both_ways) b.measurement.spin_blocked.lane_ms.clear();
  for (const auto& e : record(no_lanes).results.at("extra").at("bidirectional")) CHECK(e.at("gbs_h2d_during").is_null());
}

TEST_CASE("when the copy call returns: a row per memory, copy, call and size, in µs as measured") {
  const Recorded r = record(made_up_run(1));
  std::vector<nlohmann::json> rows;
  for (const auto& row : r.results.at("rows"))
    if (row.at("scenario") == "copy_return") rows.push_back(row);
  // host kinds x directions x calls x sizes, host to host for two kinds, device to device once
  REQUIRE(rows.size() == 4 * 2 * 2 * 2 + 2 * 2 * 2 + 2 * 2);
  CHECK(rows.front().at("memory") == "pageable");
  CHECK(rows.back().at("memory") == "device");
  const auto find = [&](const char* memory, const char* copy, const char* call, std::size_t bytes) {
    for (const auto& row : rows)
      if (row.at("memory") == memory && row.at("copy") == copy && row.at("call") == call && row.at("bytes") == bytes)
        return row;
    FAIL("no copy_return row for " << memory << " " << copy << " " << call << " " << bytes);
    return nlohmann::json();
  };
  const double copy_us = 2.5 + K80Reference::bytes / 54e3;
  const auto async = find("pinned", "h2d", "cudaMemcpyAsync", K80Reference::bytes);
  CHECK(async.at("return_us").get<double>() == doctest::Approx(2));
  CHECK(async.at("complete_us").get<double>() == doctest::Approx(2 + copy_us));
  CHECK(async.at("after_return_us").get<double>() == doctest::Approx(copy_us));
  CHECK(async.at("wait_floor_us").get<double>() == doctest::Approx(1));
  CHECK(async.at("complete_cv").get<double>() == doctest::Approx(0.04));
  CHECK(async.at("samples") == 20);
  CHECK(async.at("verified") == true);
  CHECK(find("pinned", "h2h", "cudaMemcpyAsync", 4096).at("after_return_us").get<double>() == doctest::Approx(1));
  CHECK(find("device", "d2d", "cudaMemcpy", 4096).at("return_us").get<double>() == doctest::Approx(2));
  const auto blocking = find("pageable", "d2h", "cudaMemcpy", 4096);
  CHECK(blocking.at("return_us").get<double>() == doctest::Approx(3 + 2.5 + 4096 / 54e3));
  CHECK(blocking.at("after_return_us").get<double>() == doctest::Approx(1));
  // The terminal shows the same µs, under the table's own title.
  const auto title = r.printed.find("When the copy call returns");
  REQUIRE(title != std::string::npos);
  CHECK(r.printed.find(course::format_fixed(2 + copy_us, 2), title) != std::string::npos);
  // No host kind chosen, no table.
  Measurements device_only = made_up_run(1);
  device_only.sweep.call_returns.clear();
  CHECK(record(device_only).printed.find("When the copy call returns") == std::string::npos);
}

TEST_CASE("beyond the lesson comes last, under its own title, after every table of the lesson") {
  const std::string printed = record(made_up_run(2)).printed;
  const auto beyond = printed.find("Beyond the lesson");
  REQUIRE(beyond != std::string::npos);
  for (const char* lesson_title : {"Sweep:", "H2D and D2H at once", "When the copy call returns",
                                   "Device to device at 1 GiB", "Fit T(n)",
                                   "At the K80 blog post's size", "Peer to peer"}) {
    CAPTURE(lesson_title);
    const auto at = printed.find(lesson_title);
    REQUIRE(at != std::string::npos);
    CHECK(at < beyond);
  }
  CHECK(printed.find("sm_tuned_a", beyond) != std::string::npos);
  CHECK(printed.find("sm_tuned_a") > beyond);  // not in the lesson's duel table
}

TEST_CASE("a part --variants left out leaves no table, no row and no entry in extra") {
  Measurements host_only = made_up_run(1);
  host_only.duel = {};
  host_only.sweep.series.resize(8);  // host kinds only
  // As measure_sweep does without d2d_memcpy: no device → device call-return rows either.
  std::erase_if(host_only.sweep.call_returns, [](const CallReturnPoint& p) { return p.memory == "device"; });
  const Recorded r = record(host_only);
  CHECK(!r.results.at("extra").contains("d2d_duel"));
  CHECK(!r.results.at("extra").contains("d2d_best_sm_copy"));
  CHECK(r.printed.find("Device to device") == std::string::npos);
  CHECK(r.printed.find("Beyond the lesson") == std::string::npos);
  for (const auto& row : r.results.at("rows")) CHECK(row.at("memory") != "device");
  CHECK(r.notes == std::vector<std::string>{"peer to peer: one GPU: no peer-to-peer matrix"});
}

TEST_CASE("with --csv the tables are one CSV: a header, then rows of as many fields, each naming its table") {
  const Recorded r = record(made_up_run(2), true);
  std::istringstream in(r.printed);
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line.rfind("table,", 0) == 0);
  // Titles hold commas, so count fields outside quotes.
  const auto fields = [](const std::string& l) {
    std::size_t n = 1;
    bool quoted = false;
    for (const char c : l) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  const std::size_t width = fields(line);
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    CAPTURE(line);
    CHECK(fields(line) == width);
    ++rows;
  }
  CHECK(rows == r.results.at("rows").size());
}
