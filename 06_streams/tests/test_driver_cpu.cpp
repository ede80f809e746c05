// CPU side of the streams program's driver: the scenario table, the command line and its checks (every one
// of them judged before a GPU is touched), and the report (one row recorded once: the table, the CSV and
// the JSON rows figures.py reads; under --csv only CSV on stdout).
#include <doctest/doctest.h>

#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "options.hpp"
#include "scenario_report.hpp"
#include "scenarios.hpp"

using namespace streams;

namespace {

struct Parsed {
  Options opt;
  Plan plan;
};

// The program's command line, parsed and checked as main does it.
Parsed parse(const std::vector<std::string>& args) {
  Parsed p;
  CLI::App app;
  add_options(app, p.opt);
  std::vector<std::string> storage = {"streams"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  course::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  p.plan = check_options(p.opt);
  return p;
}

// The cells of one CSV line (RFC 4180 quoting: "a, b" is one cell, "" inside quotes is a quote).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

Timeline two_streams() {
  return {"pipeline N=2", {"stream 0", "stream 1"},
          {{0, 'H', 0, "H2D 0", 0.0, 1.0}, {0, 'K', 0, "K 0", 1.0, 2.0}, {1, 'H', 1, "H2D 1", 1.0, 2.0}}};
}

// One scenario's worth of rows, as the scenarios record them: absent values, a JSON-only extra, a variant
// name with commas.
void record_rows(ScenarioReport& report) {
  report.say("a note for the reader\n");
  report.show(two_streams());
  report.add({"host_device", "launch call returns", 0.0123, {}, {}, {}, {}});
  report.add({"issue_order", "1 queue, 4 streams, depth_first", 9.1, 9.0, 1.0, 1.0, 1.02},
             {{"connections", 1}, {"order", "depth_first"}});
  report.add({"pipeline", "N=2", 6.5, 6.0, 1.5, 1.6, 1.8}, {{"chunks", 2}}, 5.9);
}

// What a run of record_rows left on stdout and stderr, and its results file. The streams are captured
// only while the report runs: doctest prints its own findings on std::cout.
struct ReportRun {
  std::string out, err;
  nlohmann::json results;
};

// Points `stream` at `into` while it lives.
struct Redirect {
  Redirect(std::ostream& stream, std::ostringstream& into) : stream_(stream), old_(stream.rdbuf(into.rdbuf())) {}
  ~Redirect() { stream_.rdbuf(old_); }
  std::ostream& stream_;
  std::streambuf* old_;
};

ReportRun run_report(bool csv) {
  Options opt;
  opt.common.csv = csv;
  char arg0[] = "streams";
  char* argv[] = {arg0, nullptr};
  std::ostringstream out, err;
  ReportRun run;
  {
    const Redirect to_out(std::cout, out), to_err(std::cerr, err);
    ScenarioReport report(opt, 1, argv);
    record_rows(report);
    report.finish(std::cout);
    run.results = report.results().json();
  }
  run.out = out.str();
  run.err = err.str();
  return run;
}

}  // namespace

TEST_CASE("every scenario has a unique name and a claim, and --variants runs them in table order") {
  std::set<std::string> names;
  for (const Scenario& sc : scenarios()) {
    CHECK(std::string(sc.teaches).size() > 20);
    CHECK(static_cast<bool>(sc.run));
    CHECK(names.insert(sc.name).second);
  }
  CHECK(names.size() == 9);
  CHECK(parse({"--variants", "ring_pipeline"}).plan.scenarios == std::vector<std::string>{"ring_pipeline"});
  CHECK(parse({}).plan.scenarios.size() == scenarios().size());
  CHECK(parse({"--variants", "all"}).plan.scenarios.size() == scenarios().size());
  CHECK(parse({"--variants", "host_func,pipeline"}).plan.scenarios == std::vector<std::string>{"pipeline", "host_func"});
  CHECK(parse({"--variants", "pipeline", "--variants", "issue_order"}).plan.scenarios ==
        std::vector<std::string>{"pipeline", "issue_order"});
  CHECK_THROWS_AS(parse({"--variants", "nope"}), course::UsageError);
  CHECK_THROWS_AS(parse({"--variants", "pipeline,,host_func"}), course::UsageError);
  CHECK_THROWS_AS(parse({"--scenario", "pipeline"}), course::UsageError);  // renamed to --variants
}

TEST_CASE("the default command line passes its checks: 256 MiB, the sweep 1..256, no child") {
  const Parsed p = parse({});
  CHECK(p.plan.bytes == (256u << 20));
  CHECK(p.plan.elements == (64u << 20));
  CHECK(p.plan.sweep == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256});
  CHECK_FALSE(p.plan.child);
  CHECK(p.opt.common.timing.reps == 10);
  CHECK(p.opt.common.timing.warmup == 2);
}

TEST_CASE("chunk counts need not divide the size; they must leave no chunk empty") {
  // 100 bytes = 25 floats: 7 chunks of 3 or 4 elements is fine, 26 chunks is not.
  CHECK_NOTHROW(parse({"--size", "100", "--chunks", "7", "--sweep", "1,7,25", "--streams", "3"}));
  CHECK_THROWS_AS(parse({"--size", "100", "--sweep", "26"}), course::UsageError);
  CHECK_THROWS_AS(parse({"--size", "100", "--chunks", "26", "--sweep", "1"}), course::UsageError);
}

TEST_CASE("bad values are usage errors naming the option, found before any GPU call") {
  const std::vector<std::vector<std::string>> bad = {
      {"--size", "0"},          {"--size", "2"},         {"--size", "2^62"},       {"--chunks", "0"},
      {"--streams", "0"},       {"--streams", "65"},     {"--sweep", "1,x"},       {"--sweep", "1,,2"},
      {"--sweep", "0"},         {"--sweep-streams", "0"}, {"--reps", "0"},         {"--device", "-1"},
      {"--trace", ""},          {"--trace", "/proc/x.json"}, {"--json", "/proc/x.json"},
      {"--child-streams", "4"}, {"--child-streams", "4", "--variants", "issue_order_copies"}};
  for (const auto& args : bad) {
    CAPTURE(args.front());
    CHECK_THROWS_AS(parse(args), course::UsageError);
  }
}

TEST_CASE("--trace is judged like --json: an empty name, a folder, or a place no file can be made") {
  CHECK_THROWS_WITH_AS(parse({"--trace", ""}), doctest::Contains("--trace: empty file name"), course::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--trace", "/"}), doctest::Contains("is a folder"), course::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--trace", "/etc/passwd/trace.json"}), doctest::Contains("not a folder"),
                       course::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--json", "b.json", "--trace", "./b.json"}), doctest::Contains("same file"),
                       course::UsageError);
  CHECK_NOTHROW(parse({"--json", "b.json", "--trace", "trace.json"}));
}

TEST_CASE("a child runs exactly one issue_order scenario") {
  const Parsed chains = parse({"--variants", "issue_order", "--child-streams", "4"});
  CHECK(chains.plan.child);
  const Parsed copies = parse({"--variants", "issue_order_copies", "--child-streams", "16", "--kernel-iters", "5"});
  CHECK(copies.plan.child);
  CHECK_THROWS_AS(parse({"--variants", "issue_order,issue_order_copies", "--child-streams", "4"}), course::UsageError);
}

TEST_CASE("--csv: stdout carries only the CSV table; notes and timelines go to stderr") {
  const ReportRun run = run_report(true);
  const std::string& out = run.out;
  const std::string& err = run.err;
  std::istringstream lines(out);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(lines, line)) rows.push_back(csv_cells(line));
  REQUIRE(rows.size() == 4);  // the header and three rows
  CHECK(rows[0] == std::vector<std::string>{"scenario", "variant", "measured_ms", "model_ms", "speedup",
                                            "model_speedup", "overlap", "duplex_model_ms"});
  for (const auto& row : rows) CHECK(row.size() == rows[0].size());
  CHECK(rows[2][1] == "1 queue, 4 streams, depth_first");
  CHECK(rows[1][3] == "-");
  CHECK(err.find("a note for the reader") != std::string::npos);
  CHECK(err.find("stream 1 |") != std::string::npos);  // the Gantt chart
}

TEST_CASE("without --csv the notes, the Gantt chart and then the aligned table share stdout") {
  const ReportRun run = run_report(false);
  const std::string& out = run.out;
  CHECK(run.err.empty());
  CHECK(out.find("a note for the reader") < out.find("stream 1 |"));
  CHECK(out.find("stream 1 |") < out.find("duplex_model_ms"));
}

TEST_CASE("every JSON row has the keys figures.py reads, absent values as null, extras beside them") {
  const nlohmann::json doc = run_report(false).results;
  REQUIRE(doc.at("rows").size() == 3);
  for (const auto& row : doc.at("rows"))
    for (const char* key : {"scenario", "variant", "measured_ms", "model_ms", "speedup", "model_speedup", "overlap",
                            "duplex_model_ms"})
      CHECK(row.contains(key));
  const auto& launch = doc.at("rows")[0];
  CHECK(launch.at("measured_ms").get<double>() == doctest::Approx(0.0123));
  CHECK(launch.at("model_ms").is_null());
  CHECK(launch.at("overlap").is_null());
  CHECK(doc.at("rows")[1].at("connections") == 1);
  CHECK(doc.at("rows")[1].at("order") == "depth_first");
  CHECK(doc.at("rows")[2].at("duplex_model_ms").get<double>() == doctest::Approx(5.9));
  CHECK(doc.at("rows")[2].at("speedup").get<double>() == doctest::Approx(1.5));  // full precision, not "1.50x"
  REQUIRE(doc.at("extra").at("timelines").size() == 1);
  CHECK(doc.at("extra").at("timelines")[0].at("name") == "pipeline N=2");
}
