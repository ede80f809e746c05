#include "simulation.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <sstream>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "stability.hpp"

namespace md {

double box_side(const Config& config) {
  return config.initial ? config.initial->box : config.cells * std::cbrt(4.0 / config.density);
}

int max_team_size() { return 4 * std::max(1, omp_get_num_procs()); }

namespace {
std::string g6(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}
}  // namespace

namespace {

/// What a run holds at its peak, per atom: the driver's copies of the system, forces and reference
/// (~400 B), the half and full lists and the build's scratch rows (4 B per listed neighbour, about
/// twice over), and one private force array per thread for each of the three variants that keep them.
double estimated_bytes(const Config& c) {
  const double atoms = c.initial ? static_cast<double>(c.initial->size()) : 4.0 * c.cells * c.cells * c.cells;
  const double reach = c.cutoff + c.skin;
  const double neighbours = std::min(atoms, c.density * 4.0 / 3.0 * std::numbers::pi * reach * reach * reach);
  const int largest_team = c.threads.empty() ? 1 : *std::max_element(c.threads.begin(), c.threads.end());
  return atoms * (400.0 + 4.0 * 1.5 * neighbours * 2.0 + 3.0 * 24.0 * largest_team);
}

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

std::string gib(double bytes) {
  std::ostringstream out;
  out.precision(3);
  out << bytes / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return out.str();
}

}  // namespace

void require_team(int threads) {
  if (threads <= 1) return;
  omp_set_dynamic(0);  // as the driver runs: a team of N threads means N threads, or less only when forced
  int obtained = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    obtained = omp_get_num_threads();
  }
  if (obtained == threads) return;
  const auto setting = [](const char* name, long long value) {
    const char* text = std::getenv(name);
    return std::string(name) + "=" + (text != nullptr ? std::string(text) : std::to_string(value));
  };
  const std::string asked = "--threads asks for a team of " + std::to_string(threads) + " threads";
  if (omp_get_max_active_levels() < 1)
    throw course::UsageError(setting("OMP_MAX_ACTIVE_LEVELS", omp_get_max_active_levels()) +
                             " turns OpenMP's parallel regions off, and " + asked +
                             ": unset OMP_MAX_ACTIVE_LEVELS (or set it to 1 or more), or give --threads 1");
  if (omp_get_thread_limit() < threads)
    throw course::UsageError(setting("OMP_THREAD_LIMIT", omp_get_thread_limit()) + " limits every OpenMP team to " +
                             std::to_string(omp_get_thread_limit()) + " thread(s), and " + asked +
                             ": raise OMP_THREAD_LIMIT or give --threads at most " + std::to_string(omp_get_thread_limit()));
  throw course::UsageError("the OpenMP runtime gave a team of " + std::to_string(obtained) + " threads where " + asked +
                           " (check OMP_THREAD_LIMIT, OMP_MAX_ACTIVE_LEVELS and OMP_DYNAMIC)");
}

void validate_config(const Config& c) {
  using course::UsageError;
  if (c.initial) {
    // The density and temperature below are the file's (main.cpp derives them): a broken file is named
    // as such, never as --density or --temperature, which cannot be combined with --data.
    const std::string file = "--data " + c.data_file + ": ";
    if (!(c.density > 0) || !std::isfinite(c.density))
      throw UsageError(file + "its box gives no finite number density (" + std::to_string(c.initial->size()) +
                       " atoms in a cube of side " + g6(c.initial->box) + ")");
    if (!(c.temperature >= 0) || !std::isfinite(c.temperature))
      throw UsageError(file + "its velocities give no finite temperature");
    try {
      check_time_step(c.density, c.temperature, c.dt);
    } catch (const UsageError&) {
      throw UsageError(file + "its atoms (density " + g6(c.density) + ", temperature " + g6(c.temperature) +
                       ") cannot be integrated stably at --dt " + g6(c.dt) + ": lower --dt or check the file");
    }
  }
  if (c.cells < 1) throw UsageError("--cells must be at least 1");
  if (c.cells > 100) throw UsageError("--cells must be at most 100 (4 million atoms)");
  if (!(c.density > 0) || !std::isfinite(c.density)) throw UsageError("--density must be positive");
  if (!(c.temperature >= 0) || !std::isfinite(c.temperature)) throw UsageError("--temperature must be zero or positive");
  if (!(c.cutoff > 0) || !std::isfinite(c.cutoff)) throw UsageError("--cutoff must be positive");
  if (!(c.skin >= 0) || !std::isfinite(c.skin)) throw UsageError("--skin must be zero or positive");
  if (!(c.dt > 0) || !std::isfinite(c.dt)) throw UsageError("--dt must be positive");
  if (c.steps < 0) throw UsageError("--steps must be zero or positive");
  if (c.reference_steps != -1 && c.reference_steps < 1)  // -1: the default, as many as --steps
    throw UsageError("--reference-steps must be at least 1 (the forces are checked off the lattice)");
  if (c.rebuild_every < 1) throw UsageError("--rebuild-every must be at least 1");
  if (c.threads.empty()) throw UsageError("--threads names no thread count");
  for (int t : c.threads)
    if (t < 1 || t > max_team_size())
      throw UsageError("--threads: every team size must be in 1.." + std::to_string(max_team_size()) +
                       " (4 x the logical cores), got " + std::to_string(t));
  // The strategies give thread t its share of 0..N-1 by its number: a smaller team than asked (an OpenMP
  // limit from the environment) would leave shares undone and read arrays nobody allocated.
  require_team(*std::max_element(c.threads.begin(), c.threads.end()));
  if (c.variants.empty()) throw UsageError("--variants names no variant");
  for (const std::string& s : c.variants)
    if (!find_variant(s)) throw UsageError("--variants " + s + ": no such variant");
  const double box = box_side(c);
  if (c.cutoff + c.skin > 0.5 * box) {
    std::ostringstream msg;
    msg << "cutoff + skin = " << c.cutoff + c.skin << " exceeds half the box (" << 0.5 * box
        << "): use more --cells or a smaller --cutoff/--skin";
    throw UsageError(msg.str());
  }
  check_time_step(c.density, c.temperature, c.dt);
  const double needed = estimated_bytes(c), available = physical_memory_bytes();
  if (available > 0 && needed > 0.8 * available)
    throw UsageError("--cells " + std::to_string(c.cells) + " with these --threads, --density and --cutoff needs about " +
                     gib(needed) + ", more than 80% of this machine's " + gib(available) + ": use fewer cells or threads");
}

std::vector<int> powers_up_to(int cores) {
  std::vector<int> teams;
  for (int t = 1; t <= cores; t *= 2) teams.push_back(t);
  if (teams.empty() || teams.back() != cores) teams.push_back(std::max(1, cores));
  return teams;
}

std::vector<int> parse_thread_list(const std::vector<std::string>& items, int max_team, int cores) {
  const auto parse_one = [&](const std::string& word) {
    // Decimal only, like every integer option: "010" is neither 8 nor 10.
    const std::string problem = course::decimal_integer_problem(word, false);
    if (!problem.empty() || word.size() > 6)
      throw course::UsageError("--threads " + word + ": not a count (use N for the sweep 1..N, a list like 1,2,4, or powers)" +
                               (problem.empty() ? std::string() : ": " + problem));
    return std::stoi(word);
  };
  if (items.empty()) throw course::UsageError("--threads names no thread count");
  if (items.size() == 1 && items.front() == "powers") return powers_up_to(cores);
  std::vector<int> teams;
  if (items.size() == 1) {
    const int largest = parse_one(items.front());
    if (largest < 1 || largest > max_team)
      throw course::UsageError("--threads " + items.front() + ": a sweep goes from 1 up to at most " +
                               std::to_string(max_team) + " threads (4 x the logical cores); name larger teams as "
                               "a list, e.g. 1,2," + std::to_string(max_team));
    for (int t = 1; t <= largest; ++t) teams.push_back(t);
    return teams;
  }
  for (const std::string& item : items) {
    const int team = parse_one(item);
    if (team < 1 || team > max_team)
      throw course::UsageError("--threads " + item + ": team sizes must be in 1.." + std::to_string(max_team) +
                               " (4 x the logical cores)");
    teams.push_back(team);
  }
  std::sort(teams.begin(), teams.end());
  teams.erase(std::unique(teams.begin(), teams.end()), teams.end());
  return teams;
}

System make_system(const Config& config) {
  if (config.initial) return *config.initial;
  System system = make_fcc_lattice(config.cells, config.density);
  assign_velocities(system, config.temperature, config.seed);
  return system;
}

NeighbourList build_list(const System& system, const Config& config, ListKind kind, int threads,
                         NeighbourScratch* scratch) {
  NeighbourList list = build_neighbour_list(system, config.cutoff + config.skin, kind, threads, scratch, config.list_build);
  if (config.minimum_image_every_pair) list.image_from.clear();
  return list;
}

// [md_loop]
LoopResult run_md(System& system, const Config& config, const Variant& strategy, int threads, int steps,
                  ForceWorkspace& workspace, std::vector<Vec3>& force) {
  const double reach = config.cutoff + config.skin, half_dt = 0.5 * config.dt, dt = config.dt;
  const auto n = static_cast<std::ptrdiff_t>(system.size());
  const double atoms = static_cast<double>(system.size());
  force.assign(system.size(), Vec3{});
  wrap_and_sort_by_cell(system, reach);
  NeighbourScratch scratch;  // each rebuild reuses the last one's memory
  NeighbourList list = build_list(system, config, strategy.list, threads, &scratch);
  std::vector<Vec3> at_build = system.position;  // the stale-list check measures motion from here
  int built_at = 0;
  require_team(threads);  // strategy.compute needs every thread it asks for (validate_config checked the largest)
  const auto compute_forces = [&] {
    const ForceInput input{system.position, system.box, config.cutoff, &list};
    strategy.compute(input, force, workspace, threads);
  };
  compute_forces();  // setup: the forces of step 0
  // Untimed, like the rest of the setup: no overlapping pair, and the energy the drift is measured from.
  const PairSums start = pair_sums(system, list, config.cutoff, threads);
  check_closest_pair(start.closest, dt);
  const double kinetic = kinetic_energy(system);
  LoopResult result;
  result.steps = steps;
  result.start_energy = result.end_energy = (start.potential + kinetic) / atoms;
  Vec3* x = system.position.data();
  Vec3* v = system.velocity.data();
  const auto started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration checking{}, neighbour{}, pair{};
  for (int step = 1; step <= steps; ++step) {
    const Vec3* f = force.data();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {  // half kick, then drift (unit masses)
      v[i].x += half_dt * f[i].x, v[i].y += half_dt * f[i].y, v[i].z += half_dt * f[i].z;
      x[i].x += dt * v[i].x, x[i].y += dt * v[i].y, x[i].z += dt * v[i].z;
    }
    if (step % config.rebuild_every == 0) {
      const auto rebuild = std::chrono::steady_clock::now();
      wrap_and_sort_by_cell(system, reach);  // reorders x and v; f is recomputed just below
      x = system.position.data();
      v = system.velocity.data();
      scratch.recycled = std::move(list);
      list = build_list(system, config, strategy.list, threads, &scratch);
      neighbour += std::chrono::steady_clock::now() - rebuild;
      at_build = system.position;
      built_at = step;
      ++result.rebuilds;
    }
    const auto forces = std::chrono::steady_clock::now();
    compute_forces();
    pair += std::chrono::steady_clock::now() - forces;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i)  // second half kick with the new forces
      v[i].x += half_dt * f[i].x, v[i].y += half_dt * f[i].y, v[i].z += half_dt * f[i].z;
    // The list built at `built_at` has served its last step when the next one replaces it, or when the
    // run ends: only then is it checked, with the clock stopped (the check is not part of the MD work).
    if ((step + 1) % config.rebuild_every == 0 || step == steps) {
      const auto paused = std::chrono::steady_clock::now();
      check_list(system, list, at_build, built_at, step, config.cutoff, dt, threads);
      checking += std::chrono::steady_clock::now() - paused;
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started - checking).count();
  result.force_seconds = std::chrono::duration<double>(pair).count();
  result.neighbour_seconds = std::chrono::duration<double>(neighbour).count();
  if (steps > 0) {
    result.end_energy = (pair_sums(system, list, config.cutoff, threads).potential + kinetic_energy(system)) / atoms;
    check_energy_drift(result.start_energy, result.end_energy, (std::abs(start.potential) + kinetic) / atoms, steps, dt);
  }
  return result;
}
// [md_loop]

}  // namespace md
