// The single-GPU ladder: every selected rung on the whole grid as one slab, slowest first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "common/timing.cuh"
#include "runs.hpp"

namespace wave {

bool run_ladder(RunContext& ctx) {
  const Settings& s = ctx.settings;
  course::RowTable& table = ctx.report.table("ladder");
  std::vector<Measurement> measured;
  double previous = 0;
  // Every rung runs the same number of steps with the same arithmetic, so each must end with the first
  // rung's field bit for bit: a rung that is fast because it is wrong fails the run.
  std::vector<float> first_field;
  bool all_equal = true;
  for (const Variant& v : s.variants) {
    auto [m, field] = ctx.measure("ladder", v, s.problem, 1, 1, false, s.variants.size() > 1);
    if (first_field.empty()) {
      first_field = std::move(field);
    } else {
      m.bitwise = bitwise_equal(field, first_field);
      all_equal = all_equal && *m.bitwise;
    }
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
  if (s.variants.size() > 1)
    ctx.notes.push_back(std::string("bitwise: every rung compared with ") + s.variants.front().name + ": " +
                        (all_equal ? "all equal" : "some DIFFER"));
  return all_equal;
}

}  // namespace wave
