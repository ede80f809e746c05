/// \file scenario_report.hpp
/// \brief Everything `streams` reports, through one course::RunReport: the scenarios table (each row
/// recorded once, so the terminal table, the CSV and the JSON rows come from the same cells), the notes
/// and Gantt charts (on stdout, or on stderr under --csv so that stdout carries only CSV), and the
/// timelines (in the results file, and as a Chrome trace with --trace). No CUDA here: tested on CI.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/report.hpp"
#include "options.hpp"
#include "timeline.hpp"

namespace streams {

/// The cells every row of the scenarios table has. An empty value shows "-" and is null in the JSON.
struct ScenarioRow {
  std::string scenario, variant;
  std::optional<double> measured_ms, model_ms, speedup, model_speedup, overlap;
};

class ScenarioReport {
 public:
  /// `opt`: --csv, --json, --gantt-width, --trace (checked already).
  ScenarioReport(const Options& opt, int argc, char** argv);

  /// Records a row: the shown cells, `more` in the JSON row only, and `duplex_model_ms` (pipeline rows
  /// only: the model with the measured both-copies time).
  void add(const ScenarioRow& row, nlohmann::json more = nlohmann::json::object(),
           std::optional<double> duplex_model_ms = {});
  /// Keeps a timeline for the results file and the trace, and draws it.
  void show(const Timeline& timeline);
  /// Keeps a timeline for the results file and the trace without drawing it.
  void keep(const Timeline& timeline);
  /// A note for the reader (stdout, or stderr under --csv).
  void say(const std::string& text) const { info() << text; }
  std::ostream& info() const { return report_.info(); }
  /// The results file's device, config and extra.
  course::ResultsFile& results() { return report_.results(); }

  /// The timelines into the results file, then the table on `out` and the results file (--json), then the
  /// Chrome trace (--trace).
  void finish(std::ostream& out);

 private:
  course::RunReport report_;
  course::RowTable& table_;
  std::vector<Timeline> timelines_;
  int gantt_width_;
  std::string trace_path_;
};

}  // namespace streams
