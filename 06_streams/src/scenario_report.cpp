#include "scenario_report.hpp"

#include <limits>

namespace streams {

namespace {

// Row::fixed and Row::ratio show a non-finite value as "-" and save it as null: what an absent value is.
double or_absent(const std::optional<double>& value) {
  return value ? *value : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

ScenarioReport::ScenarioReport(const Options& opt, int argc, char** argv)
    : report_("06_streams", argc, argv, opt.common), table_(report_.table()), gantt_width_(opt.gantt_width),
      trace_path_(opt.trace_path) {}

void ScenarioReport::add(const ScenarioRow& r, nlohmann::json more, std::optional<double> duplex_model_ms) {
  // Every column in every row, in one order: the table's columns and the JSON keys never depend on
  // which scenarios ran (figures.py reads the keys; absent values are null).
  course::Row& row = table_.add_row();
  row.text("scenario", r.scenario)
      .text("variant", r.variant)
      .fixed("measured_ms", or_absent(r.measured_ms), 3)
      .fixed("model_ms", or_absent(r.model_ms), 3)
      .ratio("speedup", or_absent(r.speedup))
      .ratio("model_speedup", or_absent(r.model_speedup))
      .fixed("overlap", or_absent(r.overlap), 2)
      .fixed("duplex_model_ms", or_absent(duplex_model_ms), 3);
  for (auto& [key, value] : more.items()) row.json(key, std::move(value));
}

void ScenarioReport::show(const Timeline& timeline) {
  timelines_.push_back(timeline);
  info() << render_gantt(timeline, gantt_width_) << '\n';
}

void ScenarioReport::keep(const Timeline& timeline) { timelines_.push_back(timeline); }

void ScenarioReport::finish(std::ostream& out) {
  nlohmann::json timelines = nlohmann::json::array();
  for (const auto& tl : timelines_) timelines.push_back(to_json(tl));
  results().extra()["timelines"] = timelines;
  report_.finish(out);
  if (!trace_path_.empty()) {
    course::write_file_atomically(trace_path_, chrome_trace(timelines_).dump(1));
    say("trace: " + trace_path_ + " (open it in ui.perfetto.dev)\n");
  }
}

}  // namespace streams
