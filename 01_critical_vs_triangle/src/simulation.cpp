#include "simulation.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "common/errors.hpp"

namespace md {

double box_side(const Config& config) { return config.cells * std::cbrt(4.0 / config.density); }

void validate_config(const Config& c) {
  using course::UsageError;
  if (c.cells < 1) throw UsageError("--cells must be at least 1");
  if (c.cells > 100) throw UsageError("--cells must be at most 100 (4 million atoms)");
  if (!(c.density > 0) || !std::isfinite(c.density)) throw UsageError("--density must be positive");
  if (!(c.temperature >= 0) || !std::isfinite(c.temperature)) throw UsageError("--temperature must be zero or positive");
  if (!(c.cutoff > 0) || !std::isfinite(c.cutoff)) throw UsageError("--cutoff must be positive");
  if (!(c.skin >= 0) || !std::isfinite(c.skin)) throw UsageError("--skin must be zero or positive");
  if (!(c.dt > 0) || !std::isfinite(c.dt)) throw UsageError("--dt must be positive");
  if (c.steps < 0) throw UsageError("--steps must be zero or positive");
  if (c.rebuild_every < 1) throw UsageError("--rebuild-every must be at least 1");
  if (c.threads.empty()) throw UsageError("--threads names no thread count");
  for (int t : c.threads)
    if (t < 1 || t > 1024) throw UsageError("--threads: every team size must be in 1..1024, got " + std::to_string(t));
  if (c.strategies.empty()) throw UsageError("--strategy names no strategy");
  for (const std::string& s : c.strategies)
    if (!find_strategy(s)) throw UsageError("unknown strategy '" + s + "'");
  const double box = box_side(c);
  if (c.cutoff + c.skin > 0.5 * box) {
    std::ostringstream msg;
    msg << "cutoff + skin = " << c.cutoff + c.skin << " exceeds half the box (" << 0.5 * box
        << "): use more --cells or a smaller --cutoff/--skin";
    throw UsageError(msg.str());
  }
}

std::vector<int> parse_thread_list(const std::string& text) {
  const auto parse_one = [&](const std::string& word) {
    if (word.empty() || word.size() > 6 || !std::all_of(word.begin(), word.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      throw course::UsageError("--threads: '" + text + "' is not a count or a comma-separated list of counts");
    const int value = std::stoi(word);
    if (value < 1 || value > 1024) throw course::UsageError("--threads: team sizes must be in 1..1024, got '" + word + "'");
    return value;
  };
  std::vector<int> teams;
  if (text.find(',') == std::string::npos) {
    const int max_threads = parse_one(text);
    for (int t = 1; t <= max_threads; ++t) teams.push_back(t);
    return teams;
  }
  std::stringstream in(text);
  std::string word;
  while (std::getline(in, word, ',')) teams.push_back(parse_one(word));
  if (text.back() == ',') parse_one("");  // "4," names an empty team size
  std::sort(teams.begin(), teams.end());
  teams.erase(std::unique(teams.begin(), teams.end()), teams.end());
  return teams;
}

std::vector<std::string> parse_strategy_list(const std::string& text) {
  std::vector<std::string> names;
  if (text == "all") {
    for (const ForceStrategy& s : force_strategies()) names.emplace_back(s.name);
    return names;
  }
  std::stringstream in(text);
  std::string word;
  while (std::getline(in, word, ',')) {
    if (!find_strategy(word)) {
      std::string known;
      for (const ForceStrategy& s : force_strategies()) known += (known.empty() ? "" : ", ") + std::string(s.name);
      throw course::UsageError("unknown strategy '" + word + "' (known: all, " + known + ")");
    }
    if (std::find(names.begin(), names.end(), word) == names.end()) names.push_back(word);
  }
  if (names.empty()) throw course::UsageError("--strategy names no strategy");
  return names;
}

System make_system(const Config& config) {
  System system = make_fcc_lattice(config.cells, config.density);
  assign_velocities(system, config.temperature, config.seed);
  return system;
}

// [md_loop]
LoopResult run_md(System& system, const Config& config, const ForceStrategy& strategy, int threads, int steps,
                  ForceWorkspace& workspace, std::vector<Vec3>& force) {
  const double reach = config.cutoff + config.skin, half_dt = 0.5 * config.dt, dt = config.dt;
  const auto n = static_cast<std::ptrdiff_t>(system.size());
  force.assign(system.size(), Vec3{});
  wrap_and_sort_by_cell(system, reach);
  NeighbourList list = build_neighbour_list(system, reach, strategy.list, threads);
  const auto compute_forces = [&] {
    const ForceInput input{system.position, system.box, config.cutoff, &list};
    strategy.compute(input, force, workspace, threads);
  };
  compute_forces();  // setup: the forces of step 0
  LoopResult result;
  result.steps = steps;
  Vec3* x = system.position.data();
  Vec3* v = system.velocity.data();
  const auto start = std::chrono::steady_clock::now();
  for (int step = 1; step <= steps; ++step) {
    const Vec3* f = force.data();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {  // half kick, then drift (unit masses)
      v[i].x += half_dt * f[i].x, v[i].y += half_dt * f[i].y, v[i].z += half_dt * f[i].z;
      x[i].x += dt * v[i].x, x[i].y += dt * v[i].y, x[i].z += dt * v[i].z;
    }
    if (step % config.rebuild_every == 0) {
      wrap_and_sort_by_cell(system, reach);  // reorders x and v; f is recomputed just below
      x = system.position.data();
      v = system.velocity.data();
      list = build_neighbour_list(system, reach, strategy.list, threads);
      ++result.rebuilds;
    }
    compute_forces();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i)  // second half kick with the new forces
      v[i].x += half_dt * f[i].x, v[i].y += half_dt * f[i].y, v[i].z += half_dt * f[i].z;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}
// [md_loop]

}  // namespace md
