// The single-GPU ladder: the stream ceiling, then every selected rung on the whole grid as one slab,
// slowest first, each as a percentage of the ceiling measured in the same run.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "common/timing.cuh"
#include "runs.hpp"

namespace wave {
namespace {

/// The ladder's targets: the best one-step rung at 90% of the stream ceiling, the best temporal rung
/// past it.
constexpr double single_step_target_pct = 90.0;

}  // namespace

bool run_ladder(RunContext& ctx) {
  const Settings& s = ctx.settings;
  course::RowTable& table = ctx.report.table("ladder");

  // [ceiling_row]
  const double cells = static_cast<double>(s.problem.nx) * s.problem.ny;
  const double ceiling_ms = cells / (ctx.stream_ceiling() * 1e6);
  {
    const Measurement m{"ladder", "stream_ceiling", "single", s.problem.nx, s.problem.ny, 1, 1, false, ceiling_ms,
                        {}, {}, ctx.stream_gcells, 1, {}};
    course::Row& row = table.add_row();
    record(row, m, ctx.ceiling_gbs);
    row.json("teaches", "the ceiling: read two arrays, write one in place (12 bytes per cell), float4, no stencil")
        .json("reads", "global (streaming)").text({"shape", "shape"}, "256 threads, 1 float4 each");
    row.ratio({"vs previous", "speedup_vs_previous"}, std::numeric_limits<double>::quiet_NaN());
  }
  // [ceiling_row]

  std::vector<Measurement> measured;
  std::vector<int> steps_per_pass;  // of each measured rung: one-step and temporal rungs have targets apart
  double previous = 0;
  // Every rung runs the same number of steps with the same arithmetic, so each must end with the first
  // rung's field bit for bit: a rung that is fast because it is wrong fails the run.
  std::vector<float> first_field;
  bool all_equal = true;
  for (const Variant& rung : s.variants) {
    const Variant v = ctx.resolve(rung);
    auto [m, field] = ctx.measure("ladder", v, s.problem, 1, 1, false, s.variants.size() > 1);
    m.stream_gcells = ctx.stream_gcells;
    if (first_field.empty()) {
      first_field = std::move(field);
    } else {
      m.bitwise = bitwise_equal(field, first_field);
      all_equal = all_equal && *m.bitwise;
    }
    course::Row& row = table.add_row();
    record(row, m, ctx.ceiling_gbs);
    row.json("teaches", v.teaches).json("reads", v.reads_memory)
        .text({"shape", "shape"}, shape_of(v));
    // NaN for the first rung: "-" in the table, null in the JSON.
    row.ratio({"vs previous", "speedup_vs_previous"},
              previous > 0 ? previous / m.ms_per_step : std::numeric_limits<double>::quiet_NaN());
    previous = m.ms_per_step;
    measured.push_back(m);
    steps_per_pass.push_back(v.steps_per_pass);
  }

  // The best one-step rung against 90% of the ceiling; the best temporal rung against the ceiling.
  const auto best_of = [&](bool temporal) {
    const Measurement* best = nullptr;
    for (std::size_t i = 0; i < measured.size(); ++i)
      if ((steps_per_pass[i] > 1) == temporal && (best == nullptr || measured[i].ms_per_step < best->ms_per_step))
        best = &measured[i];
    return best;
  };
  const auto percent = [&](const Measurement& m) { return 100.0 * cells / (m.ms_per_step * 1e6) / *ctx.stream_gcells; };
  nlohmann::json& extra = ctx.report.results().extra();
  extra["stream_ceiling_gcells"] = *ctx.stream_gcells;
  if (const Measurement* best = best_of(false)) {
    const double pct = percent(*best);
    const double roofline = 100.0 * course::gb_per_s(bytes_per_cell * cells, best->ms_per_step) / ctx.ceiling_gbs;
    const bool met = pct >= single_step_target_pct;
    ctx.notes.push_back("best one-step rung: " + best->variant + ", " + course::format_fixed(best->ms_per_step, 3) +
                        " ms/step, " + course::format_fixed(pct, 1) + "% of the stream ceiling: " +
                        (met ? "meets" : "misses") + " the 90% target");
    extra["ladder_best"] = {{"variant", best->variant}, {"percent_ceiling", pct}, {"percent_roofline", roofline},
                            {"meets_90", met}};
  }
  if (const Measurement* best = best_of(true)) {
    const double pct = percent(*best);
    ctx.notes.push_back("best temporal rung: " + best->variant + ", " + course::format_fixed(pct / 100.0, 2) +
                        "x the one-step stream ceiling (cells x steps per second)");
    extra["temporal_best"] = {{"variant", best->variant}, {"times_ceiling", pct / 100.0},
                              {"bitwise_equal", best->bitwise ? nlohmann::json(*best->bitwise) : nlohmann::json(nullptr)}};
  }
  if (s.variants.size() > 1)
    ctx.notes.push_back(std::string("bitwise: every rung compared with ") + s.variants.front().name + ": " +
                        (all_equal ? "all equal" : "some DIFFER"));
  return all_equal;
}

}  // namespace wave
