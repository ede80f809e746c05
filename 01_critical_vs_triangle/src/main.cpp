// Chapter 01 driver: the Lennard-Jones benchmark (LAMMPS' in.lj) with every force strategy over a
// sweep of OpenMP team sizes. Prints the step-0 check against LAMMPS, then one table (force-part time,
// speedup, idle time measured beside the model, whole-loop timesteps/s), then the per-thread timeline
// of one force evaluation as a text Gantt chart; --json writes all of it.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/progress.hpp"
#include "common/report.hpp"
#include "forces.hpp"
#include "partition.hpp"
#include "simulation.hpp"

namespace {

// LAMMPS' in.lj (32,000 atoms, T = 1.44): thermo output at step 0.
constexpr double lammps_potential_per_atom = -6.7733681;
constexpr double lammps_pressure = -5.0197073;
// Forces from different summation orders must agree to round-off.
constexpr double force_tolerance = 1e-10;

/// The largest |f_i − f_ref,i| component over the largest |f_ref| component: a relative error on the
/// scale of the forces. Per-component ratios would be meaningless for components near zero.
double max_relative_error(const std::vector<md::Vec3>& f, const std::vector<md::Vec3>& ref) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    diff = std::max({diff, std::abs(f[i].x - ref[i].x), std::abs(f[i].y - ref[i].y), std::abs(f[i].z - ref[i].z)});
    scale = std::max({scale, std::abs(ref[i].x), std::abs(ref[i].y), std::abs(ref[i].z)});
  }
  return scale > 0 ? diff / scale : diff;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// The force part of one strategy at one team size: medians over the timed repetitions, with the
/// spread (min and max) beside them, since one evaluation on a shared or virtual machine says little.
struct ForceMeasurement {
  double ms = 0, min_ms = 0, max_ms = 0;
  md::IdleSummary idle;                 ///< medians over the repetitions, component by component
  double idle_ms = 0;                   ///< median of the per-repetition totals (before + after)
  double idle_min_ms = 0, idle_max_ms = 0;
  std::vector<md::ThreadTimes> timeline;  ///< the repetition whose time is the median
  double max_error = 0;                   ///< the worst repetition
  double triangle_step = 0;               ///< Δ = Tc / t_p as calibrated (before the clamp)
};

/// Every timed repetition of one strategy at one team size, collected one evaluation at a time so that
/// the driver can interleave strategies in rounds (critical, triangle, critical, ...): a slow drift of
/// the machine then hits every strategy alike instead of whichever ran during it.
struct ForceSamples {
  std::vector<double> ms, before, after, section, particle, span;
  std::vector<std::vector<md::ThreadTimes>> timelines;
  double max_error = 0;

  void take(const md::ForceStrategy& strategy, const md::ForceInput& input, int threads, md::ForceWorkspace& ws,
            const std::vector<md::Vec3>& reference, std::vector<md::Vec3>& force) {
    const auto t0 = std::chrono::steady_clock::now();
    strategy.compute(input, force, ws, threads);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    const md::IdleSummary s = md::summarize(ws.times);
    before.push_back(s.idle_before_s), after.push_back(s.idle_after_s), section.push_back(s.section_mean_s);
    particle.push_back(s.particle_s), span.push_back(s.span_s);
    timelines.push_back(ws.times);
    max_error = std::max(max_error, max_relative_error(force, reference));  // outside the timed call
  }

  ForceMeasurement summary(const md::ForceStrategy& strategy, const md::ForceWorkspace& ws) const {
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
    m.triangle_step = strategy.name == "triangle" ? ws.triangle_step : 0.0;
    return m;
  }
};

/// One thread's line of the Gantt chart: '-' zeroing its private array, '=' pair loop, '.' waiting,
/// '#' inside the critical section (or the parallel reduction). Phases are painted in that order, each
/// at least one column wide, so a section shorter than a column still shows.
std::string gantt_line(const md::ThreadTimes& t, double span, int width) {
  std::string line(static_cast<std::size_t>(width), ' ');
  const auto column = [&](double at) { return std::clamp(static_cast<int>(at / span * width), 0, width - 1); };
  const auto paint = [&](double from, double to, char mark) {
    if (to <= from) return;
    const int last = to >= span ? width - 1 : std::max(column(from), column(to) - 1);
    for (int c = column(from); c <= last; ++c) line[static_cast<std::size_t>(c)] = mark;
  };
  paint(t.compute_end, span, '.');
  paint(t.start, t.loop_begin, '-');
  paint(t.loop_begin, t.compute_end, '=');
  paint(t.section_enter, t.section_exit, '#');
  return line;
}

void print_gantt(const std::string& title, const std::vector<md::ThreadTimes>& times) {
  double span = 0;
  for (const auto& t : times) span = std::max(span, t.section_exit);
  constexpr int width = 64;
  std::printf("\n%s: one force evaluation, %.0f us wide ('-' zero private array, '=' pair loop, "
              "'.' idle, '#' critical section / reduction)\n", title.c_str(), span * 1e6);
  for (std::size_t k = 0; k < times.size(); ++k)
    std::printf("  thread %2zu |%s| %6zu particles\n", k, gantt_line(times[k], span, width).c_str(), times[k].particles);
}

nlohmann::json timeline_json(const std::vector<md::ThreadTimes>& times) {
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& t : times)
    threads.push_back({{"start_us", t.start * 1e6}, {"loop_begin_us", t.loop_begin * 1e6},
                       {"compute_end_us", t.compute_end * 1e6}, {"section_enter_us", t.section_enter * 1e6},
                       {"section_exit_us", t.section_exit * 1e6}, {"particles", t.particles}});
  return threads;
}

std::string fixed_or_dash(bool show, double value, int digits) { return show ? course::format_fixed(value, digits) : "-"; }

int run(int argc, char** argv) {
  md::Config config;
  std::string threads_text = std::to_string(omp_get_num_procs());
  std::string strategy_text = "all";
  course::CommonOptions common;
  common.timing = {2, 10};
  CLI::App app{"Lennard-Jones MD (LAMMPS in.lj): OpenMP force strategies, critical section vs triangle partition"};
  app.add_option("--cells", config.cells, "fcc unit cells per side (4*cells^3 atoms; 20 -> 32,000)")->capture_default_str();
  app.add_option("--steps", config.steps, "timed MD steps per strategy and team size (0: force part only)")->capture_default_str();
  app.add_option("--threads", threads_text, "N: sweep 1..N threads; or a list like 1,2,4,8")->capture_default_str();
  app.add_option("--strategy", strategy_text, "all, or a comma-separated list of: serial, critical, triangle, atomic, "
                 "thread_arrays, full_list")->capture_default_str();
  app.add_option("--rebuild-every", config.rebuild_every, "neighbour-list rebuild period (steps)")->capture_default_str();
  app.add_option("--dt", config.dt, "timestep (tau)")->capture_default_str();
  app.add_option("--temperature", config.temperature, "initial temperature")->capture_default_str();
  app.add_option("--density", config.density, "reduced number density")->capture_default_str();
  app.add_option("--cutoff", config.cutoff, "Lennard-Jones cut-off Rc (sigma)")->capture_default_str();
  app.add_option("--skin", config.skin, "neighbour-list skin (sigma)")->capture_default_str();
  app.add_option("--seed", config.seed, "velocity seed")->capture_default_str();
  course::add_common_options(app, common, course::Processor::cpu);
  course::parse_command_line(app, argc, argv);
  config.threads = md::parse_thread_list(threads_text);
  config.strategies = md::parse_strategy_list(strategy_text);
  md::validate_config(config);
  omp_set_dynamic(0);  // a team of N threads means N threads: the idle-time model counts them

  const int max_threads = config.threads.back();
  std::printf("CPU: %s, %d logical cores (OpenMP: %d); CPU-only chapter, no GPU used\n",
              course::host_cpu_name().c_str(), omp_get_num_procs(), omp_get_max_threads());
  if (max_threads > omp_get_num_procs())
    std::printf("note: teams of up to %d threads on %d cores are oversubscribed: timings will not follow the model\n",
                max_threads, omp_get_num_procs());

  // Step 0: the lattice, checked against LAMMPS.
  const md::System initial = md::make_system(config);
  const std::size_t atoms = initial.size();
  const double reach = config.cutoff + config.skin;
  md::Thermo step0;
  {
    md::System sorted = initial;
    md::wrap_and_sort_by_cell(sorted, reach);
    step0 = md::measure_thermo(sorted, md::build_neighbour_list(sorted, reach, md::ListKind::half, max_threads),
                               config.cutoff);
  }
  const bool lammps_input = config.density == 0.8442 && config.temperature == 1.44 && config.cutoff == 2.5 && config.cells == 20;
  std::printf("%zu atoms, box %.4f, Rc %.2f + skin %.2f, dt %.4f, list rebuilt every %d steps\n", atoms, initial.box,
              config.cutoff, config.skin, config.dt, config.rebuild_every);
  std::printf("step 0: T %.6f  E_pair/atom %.7f  TotEng/atom %.7f  pressure %.7f\n", step0.temperature,
              step0.potential_per_atom, step0.total_per_atom, step0.pressure);
  if (lammps_input)
    std::printf("LAMMPS: E_pair/atom %.7f  pressure %.7f  (relative differences %.1e, %.1e)\n", lammps_potential_per_atom,
                lammps_pressure, std::abs(step0.potential_per_atom / lammps_potential_per_atom - 1),
                std::abs(step0.pressure / lammps_pressure - 1));

  // The serial reference: the whole loop first, then its end state is where the force part is timed
  // (on the perfect lattice every force is zero and the force check would prove nothing).
  const md::ForceStrategy& serial = *md::find_strategy("serial");
  md::System state = initial;
  md::ForceWorkspace serial_ws;
  std::vector<md::Vec3> force;
  const md::LoopResult serial_loop = md::run_md(state, config, serial, 1, config.steps, serial_ws, force);
  md::Thermo end_thermo;
  md::wrap_and_sort_by_cell(state, reach);
  const md::NeighbourList half = md::build_neighbour_list(state, reach, md::ListKind::half, max_threads);
  const md::NeighbourList full = md::build_neighbour_list(state, reach, md::ListKind::full, max_threads);
  end_thermo = md::measure_thermo(state, half, config.cutoff);
  if (config.steps > 0)
    std::printf("step %d (serial loop): T %.6f  TotEng/atom %.7f (drift %.1e relative)\n", config.steps,
                end_thermo.temperature, end_thermo.total_per_atom,
                std::abs(end_thermo.total_per_atom / step0.total_per_atom - 1));

  const md::ForceInput half_input{state.position, state.box, config.cutoff, &half};
  const md::ForceInput full_input{state.position, state.box, config.cutoff, &full};
  std::vector<md::Vec3> reference(atoms);
  serial.compute(half_input, reference, serial_ws, 1);
  for (int w = 0; w < common.timing.warmup; ++w) serial.compute(half_input, force, serial_ws, 1);
  ForceSamples serial_samples;
  for (int r = 0; r < common.timing.reps; ++r) serial_samples.take(serial, half_input, 1, serial_ws, reference, force);
  const ForceMeasurement serial_force = serial_samples.summary(serial, serial_ws);

  course::ResultsFile results("01_critical_vs_triangle", argc, argv);
  results.set_host_cpu();
  results.config() = {{"cells", config.cells}, {"atoms", atoms}, {"density", config.density},
                      {"temperature", config.temperature}, {"cutoff", config.cutoff}, {"skin", config.skin},
                      {"dt", config.dt}, {"steps", config.steps}, {"rebuild_every", config.rebuild_every},
                      {"threads", config.threads}, {"strategies", config.strategies},
                      {"reps", common.timing.reps}, {"warmup", common.timing.warmup},
                      {"omp_num_procs", omp_get_num_procs()}};
  results.extra()["step0"] = {{"temperature", step0.temperature}, {"potential_per_atom", step0.potential_per_atom},
                              {"total_per_atom", step0.total_per_atom}, {"pressure", step0.pressure}};
  if (lammps_input)
    results.extra()["lammps_step0"] = {{"potential_per_atom", lammps_potential_per_atom}, {"pressure", lammps_pressure}};

  // Medians over the repetitions, each with its min-max range; `clamped`: the triangle's Δ hit its limit
  // 2N/(Nth(Nth-1)) (n0 would be negative), so the model's halving of the idle time cannot hold there.
  course::Table table({"threads", "strategy", "force_ms", "force_range", "speedup", "idle_ms", "idle_range",
                       "model_idle_ms", "Tc_us", "delta", "clamped", "steps/s", "ns/atom-step", "max_rel_err"});
  bool all_match = true;
  const auto add_row = [&](const md::ForceStrategy& s, int threads, const ForceMeasurement& m, const md::LoopResult& loop) {
    const double speedup = serial_force.ms / m.ms;
    const double model_s = md::model_idle_s(s, threads, m.idle.section_mean_s);
    const bool measured_loop = loop.steps > 0;
    const double ns_per_atom_step = measured_loop ? loop.seconds * 1e9 / (static_cast<double>(atoms) * loop.steps) : 0.0;
    const bool sync = s.name != "serial";
    const bool triangle = s.name == "triangle";
    const double step_limit = md::max_triangle_step(atoms, threads);
    const bool clamped = triangle && threads > 1 && m.triangle_step >= step_limit;
    const auto range = [](bool show, double lo, double hi) {
      return show ? course::format_fixed(lo, 3) + "-" + course::format_fixed(hi, 3) : std::string("-");
    };
    table.add_row({std::to_string(threads), std::string(s.name), course::format_fixed(m.ms, 3),
                   range(true, m.min_ms, m.max_ms), course::format_ratio(speedup), fixed_or_dash(sync, m.idle_ms, 3),
                   range(sync, m.idle_min_ms, m.idle_max_ms), fixed_or_dash(s.critical_section, model_s * 1e3, 3),
                   fixed_or_dash(s.critical_section || s.name == "thread_arrays", m.idle.section_mean_s * 1e6, 1),
                   fixed_or_dash(triangle, m.triangle_step, 0), triangle ? (clamped ? "yes" : "no") : "-",
                   fixed_or_dash(measured_loop, loop.steps_per_second(), 1), fixed_or_dash(measured_loop, ns_per_atom_step, 1),
                   [&] { char b[32]; std::snprintf(b, sizeof b, "%.1e", m.max_error); return std::string(b); }()});
    nlohmann::json row = {{"cells", config.cells}, {"atoms", atoms}, {"strategy", s.name}, {"threads", threads},
                          {"force_ms", m.ms}, {"force_ms_min", m.min_ms}, {"force_ms_max", m.max_ms},
                          {"speedup", speedup}, {"reps", common.timing.reps},
                          {"idle_ms", m.idle_ms}, {"idle_ms_min", m.idle_min_ms}, {"idle_ms_max", m.idle_max_ms},
                          {"idle_before_ms", m.idle.idle_before_s * 1e3},
                          {"idle_after_ms", m.idle.idle_after_s * 1e3}, {"section_us", m.idle.section_mean_s * 1e6},
                          {"particle_ns", m.idle.particle_s * 1e9}, {"max_rel_error", m.max_error}};
    if (s.critical_section) row["model_idle_ms"] = model_s * 1e3;
    if (triangle) {
      row["triangle_step"] = m.triangle_step;
      row["max_triangle_step"] = step_limit;
      row["clamped"] = clamped;
    }
    if (measured_loop) {
      row["loop_steps_per_s"] = loop.steps_per_second();
      row["ns_per_atom_step"] = ns_per_atom_step;
    }
    results.add_row(row);
    if (m.max_error > force_tolerance) {
      all_match = false;
      std::fprintf(stderr, "FAILED: %s on %d threads differs from the serial forces by %.2e (relative)\n",
                   std::string(s.name).c_str(), threads, m.max_error);
    }
  };
  add_row(serial, 1, serial_force, serial_loop);

  std::vector<const md::ForceStrategy*> chosen;
  for (const auto& name : config.strategies)
    if (name != "serial") chosen.push_back(md::find_strategy(name));
  nlohmann::json timelines = nlohmann::json::array();
  std::vector<std::pair<std::string, std::vector<md::ThreadTimes>>> charts;
  course::Progress progress("sweep", config.threads.size() * chosen.size());
  for (const int threads : config.threads) {
    // [interleaved_rounds]
    // Warm-up, then the timed repetitions in rounds: each round evaluates every strategy once, in turn.
    std::vector<md::ForceWorkspace> workspaces(chosen.size());
    std::vector<ForceSamples> samples(chosen.size());
    const auto input_of = [&](const md::ForceStrategy& s) -> const md::ForceInput& {
      return s.list == md::ListKind::full ? full_input : half_input;
    };
    for (std::size_t k = 0; k < chosen.size(); ++k)  // Δ is measured before any timed call, not inside one
      if (chosen[k]->name == "triangle") md::calibrate_triangle(half_input, force, workspaces[k], threads);
    for (int w = 0; w < common.timing.warmup; ++w)
      for (std::size_t k = 0; k < chosen.size(); ++k) chosen[k]->compute(input_of(*chosen[k]), force, workspaces[k], threads);
    for (int r = 0; r < common.timing.reps; ++r)
      for (std::size_t k = 0; k < chosen.size(); ++k)
        samples[k].take(*chosen[k], input_of(*chosen[k]), threads, workspaces[k], reference, force);
    // [interleaved_rounds]
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const md::ForceStrategy* s = chosen[k];
      progress.step(std::string(s->name) + " x" + std::to_string(threads));
      const ForceMeasurement m = samples[k].summary(*s, workspaces[k]);
      md::System run_state = initial;
      std::vector<md::Vec3> loop_force;
      const md::LoopResult loop = md::run_md(run_state, config, *s, threads, config.steps, workspaces[k], loop_force);
      add_row(*s, threads, m, loop);
      if (threads == max_threads && s->name != "atomic" && s->name != "full_list") {
        timelines.push_back({{"strategy", s->name}, {"threads", threads}, {"cells", config.cells},
                             {"section_us", m.idle.section_mean_s * 1e6}, {"particle_ns", m.idle.particle_s * 1e9},
                             {"timeline", timeline_json(m.timeline)}});
        charts.emplace_back(std::string(s->name) + " x" + std::to_string(threads), m.timeline);
      }
    }
  }
  results.extra()["timelines"] = timelines;

  std::printf("\n");
  table.print(std::cout, common.csv);
  for (const auto& [title, times] : charts) print_gantt(title, times);
  if (!common.json_path.empty()) {
    results.write(common.json_path);
    std::printf("\nwrote %s\n", common.json_path.c_str());
  }
  if (!all_match) return course::exit_failure;
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("critical_vs_triangle", run, argc, argv); }
