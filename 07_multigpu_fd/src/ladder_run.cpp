// The single-GPU ladder: every selected rung on the whole grid as one slab, slowest first.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/timing.cuh"
#include "runs.hpp"

namespace wave {

bool run_ladder(RunContext& ctx) {
  const Settings& s = ctx.settings;
  course::RowTable& table = ctx.report.table("ladder");
  std::vector<Measurement> measured;
  double previous = 0;
  for (const Variant& v : s.variants) {
    const Measurement m = ctx.measure("ladder", v, s.problem, 1, 1, false).first;
    course::Row& row = table.add_row();
    record(row, m, ctx.ceiling_gbs);
    row.json("teaches", v.teaches).json("reads", v.reads_memory);
    // NaN for the first rung: "-" in the table, null in the JSON.
    row.ratio({"vs previous", "speedup_vs_previous"},
              previous > 0 ? previous / m.ms_per_step : std::numeric_limits<double>::quiet_NaN());
    previous = m.ms_per_step;
    measured.push_back(m);
  }
  // The target of the ladder: 85% of the 12-byte roofline for the fastest rung.
  const auto best = std::min_element(measured.begin(), measured.end(), [](const Measurement& l, const Measurement& r) {
    return l.ms_per_step < r.ms_per_step;
  });
  const double gbs = course::gb_per_s(bytes_per_cell * best->nx * static_cast<double>(best->ny), best->ms_per_step);
  const double percent = 100.0 * gbs / ctx.ceiling_gbs;
  const bool met = percent >= 85.0;
  ctx.notes.push_back("best rung: " + best->variant + ", " + course::format_fixed(best->ms_per_step, 3) +
                      " ms/step, " + course::format_fixed(percent, 1) + "% of roofline: " +
                      (met ? "meets" : "misses") + " the 85% target");
  ctx.report.results().extra()["ladder_best"] = {
      {"variant", best->variant}, {"percent_roofline", percent}, {"meets_85", met}};
  return true;
}

}  // namespace wave
