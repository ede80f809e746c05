// The tuned rungs: each has candidates (block shapes, rows per block, copy-ring depths) with the same
// arithmetic; which is fastest depends on the GPU, so it is measured there — by --tune in full, with
// its own table, or by a short search the first time a run needs the rung.
#include <algorithm>
#include <limits>
#include <string>

#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "runs.hpp"

namespace wave {
namespace {

/// The short search's grid: the run's width (the shape's fit across a row matters), at most 4096 rows
/// (enough blocks to fill any GPU several times over, and little memory).
Problem search_problem(const Problem& p) {
  Problem q = p;
  if (q.ny > 4096) {
    q.ny = 4096;
    q.source_y = 2048;
  }
  return q;
}

/// The candidate under the rung's name: the ladder and the results show the rung, with its shape.
Variant as_rung(const Variant& rung, const Variant& candidate) {
  Variant v = rung;
  v.launch = candidate.launch;
  v.pass = candidate.pass;
  v.facts = candidate.facts;
  return v;
}

}  // namespace

Variant tuned_variant(const Variant& rung, const Problem& p, int device, int steps, course::TimingOptions timing,
                      std::vector<TuneTiming>* timings) {
  const std::vector<Variant> candidates = candidates_of(rung);
  if (candidates.empty()) return rung;
  double best_ms = std::numeric_limits<double>::infinity();
  const Variant* best = &candidates.front();
  std::vector<float> first;  // every candidate has run the same steps: the same field, bit for bit
  for (const Variant& c : candidates) {
    course::NvtxRange range((std::string("tune ") + c.name).c_str());
    SlabSolver solver({p, 1, 1, false, &c, device});
    const double ms = time_solver(solver, steps, timing);
    if (timings != nullptr) {
      TuneTiming t{c, ms, {}};
      std::vector<float> field = solver.gather();
      if (first.empty()) first = std::move(field);
      else t.bitwise = bitwise_equal(field, first);
      timings->push_back(t);
    }
    if (ms < best_ms) {
      best_ms = ms;
      best = &c;
    }
  }
  return as_rung(rung, *best);
}

Variant quick_tuned_variant(const Variant& rung, const Problem& p, int device) {
  // 12 steps: whole passes for K = 1 … 4.
  return tuned_variant(rung, search_problem(p), device, 12, {1, 3});
}

Variant RunContext::resolve(const Variant& rung) {
  if (candidates_of(rung).empty()) return rung;  // a fixed shape, or a candidate named as such
  for (const Variant& v : tuned)
    if (std::string_view(v.name) == rung.name) return v;
  const Variant chosen = quick_tuned_variant(rung, settings.problem, settings.common.device);
  tuned.push_back(chosen);
  notes.push_back(std::string(rung.name) + ": " + shape_of(chosen) + " (fastest of " +
                  std::to_string(candidates_of(rung).size()) + " shapes in a short search on this GPU; --tune times them in full)");
  return chosen;
}

bool run_tune(RunContext& ctx) {
  const Settings& s = ctx.settings;
  course::RowTable& table = ctx.report.table("tune");
  bool all_equal = true;
  ctx.stream_ceiling();
  nlohmann::json choices = nlohmann::json::object();
  for (const Variant& rung : s.variants) {
    if (rung.family == nullptr) continue;
    std::vector<TuneTiming> timings;
    const Variant chosen = tuned_variant(rung, s.problem, s.common.device, s.steps, s.common.timing, &timings);
    for (const TuneTiming& t : timings) {
      const Measurement m{"tune", t.candidate.name, "single", s.problem.nx, s.problem.ny, 1, 1, false,
                          t.ms_per_step, t.bitwise, {}, ctx.stream_gcells, t.candidate.steps_per_pass, {}};
      all_equal = all_equal && t.bitwise.value_or(true);
      course::Row& row = table.add_row();
      record(row, m, ctx.ceiling_gbs);
      const bool picked = shape_of(t.candidate) == shape_of(chosen);
      row.text({"rung", "rung"}, rung.name).text({"shape", "shape"}, shape_of(t.candidate))
          .text({"chosen", "chosen"}, picked ? "<-" : "").json("chosen", picked);
    }
    ctx.tuned.push_back(chosen);
    choices[rung.name] = {{"shape", shape_of(chosen)},
                          {"candidate", std::find_if(timings.begin(), timings.end(), [&](const TuneTiming& t) {
                                          return shape_of(t.candidate) == shape_of(chosen);
                                        })->candidate.name}};
  }
  ctx.report.results().extra()["tuned"] = choices;
  return all_equal;
}

}  // namespace wave
