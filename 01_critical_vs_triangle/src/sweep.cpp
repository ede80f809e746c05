#include "sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "common/progress.hpp"

namespace md {

namespace {

constexpr double poison = std::numeric_limits<double>::quiet_NaN();

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Every timed repetition of one variant at one team size, collected one evaluation at a time so that
/// the sweep can interleave variants in rounds (critical, triangle, critical, ...): a slow drift of
/// the machine then hits every variant alike instead of whichever ran during it.
struct ForceSamples {
  std::vector<double> ms, before, after, section, particle, span;
  std::vector<std::vector<ThreadTimes>> timelines;
  double max_error = 0;

  void take(const Variant& variant, const ForceInput& input, int threads, ForceWorkspace& ws, const Reference& ref,
            std::vector<Vec3>& force) {
    // Poisoned before every checked call, outside the timing: an entry the strategy never writes would
    // otherwise keep the previous call's (correct) force and pass the check.
    std::fill(force.begin(), force.end(), Vec3{poison, poison, poison});
    const auto t0 = std::chrono::steady_clock::now();
    variant.compute(input, force, ws, threads);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    const IdleSummary s = summarize(ws.times);
    before.push_back(s.idle_before_s), after.push_back(s.idle_after_s), section.push_back(s.section_mean_s);
    particle.push_back(s.particle_s), span.push_back(s.span_s);
    timelines.push_back(ws.times);
    max_error = std::max(max_error, force_error(force, ref.forces, ref.force_scale));  // outside the timed call
  }

  ForceMeasurement summary(const Variant& variant, const ForceWorkspace& ws) const {
    ForceMeasurement m;
    std::vector<std::size_t> order(ms.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ms[a] < ms[b]; });
    m.ms = ms[order[order.size() / 2]];
    m.min_ms = ms[order.front()];
    m.max_ms = ms[order.back()];
    m.timeline = timelines[order[order.size() / 2]];
    m.idle = {median(before), median(after), median(section), median(particle), median(span)};
    std::vector<double> idle_ms(before.size());
    for (std::size_t i = 0; i < before.size(); ++i) idle_ms[i] = (before[i] + after[i]) * 1e3;
    m.idle_ms = median(idle_ms);
    m.idle_min_ms = *std::min_element(idle_ms.begin(), idle_ms.end());
    m.idle_max_ms = *std::max_element(idle_ms.begin(), idle_ms.end());
    m.max_error = max_error;
    m.triangle_step = variant.name == "triangle" ? ws.triangle_step : 0.0;
    return m;
  }
};

/// A variant whose forces are not the serial ones has nothing to time: stop with one line.
void check_forces(const Variant& variant, int threads, double error) {
  if (error <= force_tolerance) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "%s on %d threads: forces differ from the serial reference by %.2e of the force scale (tolerance %.0e)",
                std::string(variant.name).c_str(), threads, error, force_tolerance);
  throw std::runtime_error(text);
}

}  // namespace

Reference measure_reference(const Config& config, const course::TimingOptions& timing, int list_threads) {
  const double reach = config.cutoff + config.skin;
  Reference ref;
  ref.cutoff = config.cutoff;
  ref.initial = make_system(config);
  {
    System sorted = ref.initial;
    wrap_and_sort_by_cell(sorted, reach);
    ref.step0 = measure_thermo(sorted, build_neighbour_list(sorted, reach, ListKind::half, list_threads), config.cutoff);
  }
  const Variant& serial = *find_variant("serial");
  ref.state = ref.initial;
  ForceWorkspace ws;
  std::vector<Vec3> force;
  const int reference_steps = config.reference_steps < 0 ? config.steps : config.reference_steps;
  ref.serial = {&serial, 1, {}, run_md(ref.state, config, serial, 1, reference_steps, ws, force)};
  wrap_and_sort_by_cell(ref.state, reach);
  ref.half = build_list(ref.state, config, ListKind::half, list_threads);
  ref.full = build_list(ref.state, config, ListKind::full, list_threads);
  ref.end = measure_thermo(ref.state, ref.half, config.cutoff);

  const ForceInput input = ref.input(ListKind::half);
  ref.force_scale = pair_force_scale(input);
  ref.forces.resize(ref.state.size());
  serial.compute(input, ref.forces, ws, 1);
  for (int w = 0; w < timing.warmup; ++w) serial.compute(input, force, ws, 1);
  ForceSamples samples;
  for (int r = 0; r < timing.reps; ++r) samples.take(serial, input, 1, ws, ref, force);
  ref.serial.force = samples.summary(serial, ws);
  check_forces(serial, 1, ref.serial.force.max_error);
  return ref;
}

std::vector<Measurement> sweep(const Config& config, const course::TimingOptions& timing, const Reference& reference,
                               const std::vector<const Variant*>& chosen) {
  std::vector<Measurement> rows;
  std::vector<Vec3> force(reference.state.size());
  course::Progress progress("sweep", config.threads.size() * chosen.size());
  const auto input_of = [&](const Variant& v) { return reference.input(v.list); };
  for (const int threads : config.threads) {
    require_team(threads);  // every strategy splits its work over exactly `threads` threads
    // [interleaved_rounds]
    // Warm-up, then the timed repetitions in rounds: each round evaluates every variant once, in turn.
    std::vector<ForceWorkspace> workspaces(chosen.size());
    std::vector<ForceSamples> samples(chosen.size());
    for (std::size_t k = 0; k < chosen.size(); ++k)  // Δ is measured before any timed call, not inside one
      if (chosen[k]->name == "triangle") calibrate_triangle(input_of(*chosen[k]), force, workspaces[k], threads);
    for (int w = 0; w < timing.warmup; ++w)
      for (std::size_t k = 0; k < chosen.size(); ++k) chosen[k]->compute(input_of(*chosen[k]), force, workspaces[k], threads);
    for (int r = 0; r < timing.reps; ++r)
      for (std::size_t k = 0; k < chosen.size(); ++k)
        samples[k].take(*chosen[k], input_of(*chosen[k]), threads, workspaces[k], reference, force);
    // [interleaved_rounds]
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const Variant& v = *chosen[k];
      progress.step(std::string(v.name) + " x" + std::to_string(threads));
      Measurement row{&v, threads, samples[k].summary(v, workspaces[k]), {}};
      check_forces(v, threads, row.force.max_error);
      System state = reference.initial;
      std::vector<Vec3> loop_force;
      row.loop = run_md(state, config, v, threads, config.steps, workspaces[k], loop_force);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace md
