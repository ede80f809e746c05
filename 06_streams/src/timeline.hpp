/// \file timeline.hpp
/// \brief A recorded (or predicted) timeline: intervals on rows (one row per stream), rendered as an ASCII
/// Gantt chart for the terminal and as Chrome-trace JSON for Perfetto (ui.perfetto.dev), so that overlap
/// is visible without Nsight Systems. Host-only, tested on CI with synthetic intervals.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace streams {

/// One operation on one row, in milliseconds since the timeline's base (time 0).
struct Interval {
  int row = 0;           ///< index into Timeline::rows
  char kind = 'K';       ///< H host→device copy, K kernel, D device→host copy, C host function, S spin
  int chunk = -1;        ///< the chunk it belongs to, or -1
  std::string label;     ///< e.g. "H2D 3"
  double start_ms = 0;
  double end_ms = 0;
  double duration_ms() const { return end_ms - start_ms; }
};

/// A named set of intervals on named rows.
struct Timeline {
  std::string name;
  std::vector<std::string> rows;
  std::vector<Interval> intervals;

  /// The latest end (time 0 is the base), 0 when empty.
  double end_ms() const;
  /// The earliest start, 0 when empty.
  double begin_ms() const;
  /// Sum of all interval durations.
  double busy_ms() const;
  /// busy_ms / (end − begin): 1 means one thing at a time, 2 means on average two operations at once.
  double overlap_factor() const;
  /// The interval of `kind` for `chunk`, or nullptr.
  const Interval* find(char kind, int chunk) const;
};

/// The Gantt chart, `width` columns for the time axis (0 to end_ms):
/// \code
/// depth_first: 9.00 ms, 1 column = 1.000 ms
/// stream 0 |HKD......|
/// stream 1 |..HKD....|
///           0  9.00 ms
/// H = host to device copy, K = kernel, D = device to host copy
/// \endcode
/// An interval covers the columns from floor(start/T·W) to ceil(end/T·W) − 1, at least one column;
/// later intervals draw over earlier ones; '.' is idle.
std::string render_gantt(const Timeline& timeline, int width);

/// Chrome trace events for several timelines (one "process" per timeline, one "thread" per row); the
/// object opens in Perfetto or chrome://tracing.
nlohmann::json chrome_trace(const std::vector<Timeline>& timelines);

/// Timeline <-> JSON ({"name", "rows", "intervals": [{"row","kind","chunk","label","start_ms","end_ms"}]}).
nlohmann::json to_json(const Timeline& timeline);
Timeline timeline_from_json(const nlohmann::json& j);

/// For each chunk i ≥ 1: how long before the end of kernel i−1 the host→device copy of chunk i started
/// (K(i−1).end − H(i).start). Positive: the copy overlapped the previous kernel. Zero or negative: the
/// copy waited for a kernel it does not depend on, the false dependency of a shared hardware queue.
std::vector<double> h2d_lead_over_previous_kernel_ms(const Timeline& timeline, int chunks);

}  // namespace streams
