#include "timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace streams {

double Timeline::end_ms() const {
  double end = 0;
  for (const auto& i : intervals) end = std::max(end, i.end_ms);
  return end;
}

double Timeline::begin_ms() const {
  if (intervals.empty()) return 0;
  double begin = intervals.front().start_ms;
  for (const auto& i : intervals) begin = std::min(begin, i.start_ms);
  return begin;
}

double Timeline::busy_ms() const {
  double busy = 0;
  for (const auto& i : intervals) busy += i.duration_ms();
  return busy;
}

double Timeline::overlap_factor() const {
  const double span = end_ms() - begin_ms();
  return span > 0 ? busy_ms() / span : 0.0;
}

const Interval* Timeline::find(char kind, int chunk) const {
  for (const auto& i : intervals)
    if (i.kind == kind && i.chunk == chunk) return &i;
  return nullptr;
}

namespace {
std::string fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

const char* kind_meaning(char kind) {
  switch (kind) {
    case 'H': return "host to device copy";
    case 'K': return "kernel";
    case 'D': return "device to host copy";
    case 'C': return "host function";
    case 'S': return "spin kernel";
    default: return nullptr;
  }
}
}  // namespace

// [render_gantt]
std::string render_gantt(const Timeline& timeline, int width) {
  if (width < 1) throw std::invalid_argument("render_gantt: width must be at least 1");
  const double total = timeline.end_ms();
  if (timeline.intervals.empty() || total <= 0) return timeline.name + ": empty\n";
  std::size_t label_width = 0;
  for (const auto& r : timeline.rows) label_width = std::max(label_width, r.size());

  std::vector<std::string> cells(timeline.rows.size(), std::string(static_cast<std::size_t>(width), '.'));
  const double columns_per_ms = width / total;
  for (const auto& iv : timeline.intervals) {
    if (iv.row < 0 || static_cast<std::size_t>(iv.row) >= cells.size())
      throw std::invalid_argument("render_gantt: interval on a row that does not exist");
    int first = static_cast<int>(std::floor(std::max(0.0, iv.start_ms) * columns_per_ms));
    int last = static_cast<int>(std::ceil(iv.end_ms * columns_per_ms)) - 1;  // inclusive
    first = std::min(first, width - 1);
    last = std::clamp(last, first, width - 1);  // even the shortest operation gets one column
    for (int c = first; c <= last; ++c) cells[static_cast<std::size_t>(iv.row)][static_cast<std::size_t>(c)] = iv.kind;
  }

  std::string out = timeline.name + ": " + fixed(total, 2) + " ms, 1 column = " + fixed(total / width, 3) + " ms\n";
  for (std::size_t r = 0; r < cells.size(); ++r) {
    out += timeline.rows[r] + std::string(label_width - timeline.rows[r].size(), ' ') + " |" + cells[r] + "|\n";
  }
  // The time axis: 0 under the first column, the end time ending under the last one.
  const std::string end_label = fixed(total, 2) + " ms";
  std::string axis = "0";
  const std::size_t field = static_cast<std::size_t>(width);
  if (field > axis.size() + end_label.size()) axis += std::string(field - axis.size() - end_label.size(), ' ');
  else axis += ' ';
  axis += end_label;
  out += std::string(label_width + 2, ' ') + axis + "\n";

  std::string legend;
  for (char kind : {'H', 'K', 'D', 'C', 'S'}) {
    const bool present = std::any_of(timeline.intervals.begin(), timeline.intervals.end(),
                                     [kind](const Interval& i) { return i.kind == kind; });
    if (!present) continue;
    if (!legend.empty()) legend += ", ";
    legend += std::string(1, kind) + " = " + kind_meaning(kind);
  }
  return out + legend + "\n";
}
// [render_gantt]

nlohmann::json chrome_trace(const std::vector<Timeline>& timelines) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t p = 0; p < timelines.size(); ++p) {
    const Timeline& tl = timelines[p];
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", p}, {"tid", 0}, {"args", {{"name", tl.name}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", p}, {"tid", 0}, {"args", {{"sort_index", p}}}});
    for (std::size_t r = 0; r < tl.rows.size(); ++r)
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", p}, {"tid", r}, {"args", {{"name", tl.rows[r]}}}});
    for (const auto& iv : tl.intervals) {
      // Trace timestamps are microseconds.
      events.push_back({{"ph", "X"}, {"name", iv.label}, {"cat", std::string(1, iv.kind)}, {"pid", p},
                        {"tid", iv.row}, {"ts", iv.start_ms * 1000.0}, {"dur", iv.duration_ms() * 1000.0}});
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

nlohmann::json to_json(const Timeline& timeline) {
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& iv : timeline.intervals)
    intervals.push_back({{"row", iv.row}, {"kind", std::string(1, iv.kind)}, {"chunk", iv.chunk}, {"label", iv.label},
                         {"start_ms", iv.start_ms}, {"end_ms", iv.end_ms}});
  return {{"name", timeline.name}, {"rows", timeline.rows}, {"intervals", intervals}};
}

Timeline timeline_from_json(const nlohmann::json& j) {
  Timeline tl;
  tl.name = j.at("name").get<std::string>();
  tl.rows = j.at("rows").get<std::vector<std::string>>();
  for (const auto& iv : j.at("intervals")) {
    const auto kind = iv.at("kind").get<std::string>();
    tl.intervals.push_back({iv.at("row").get<int>(), kind.empty() ? '?' : kind[0], iv.at("chunk").get<int>(),
                            iv.at("label").get<std::string>(), iv.at("start_ms").get<double>(),
                            iv.at("end_ms").get<double>()});
  }
  return tl;
}

std::vector<double> h2d_lead_over_previous_kernel_ms(const Timeline& timeline, int chunks) {
  std::vector<double> lead;
  for (int c = 1; c < chunks; ++c) {
    const Interval* kernel = timeline.find('K', c - 1);
    const Interval* copy = timeline.find('H', c);
    if (!kernel || !copy) throw std::invalid_argument("h2d_lead_over_previous_kernel_ms: chunk missing");
    lead.push_back(kernel->end_ms - copy->start_ms);
  }
  return lead;
}

}  // namespace streams
