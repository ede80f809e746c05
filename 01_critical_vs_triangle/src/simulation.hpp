/// \file simulation.hpp
/// \brief The run configuration (with its validation, shared by the driver and the tests) and the
/// velocity-Verlet NVE loop that the driver times.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "forces.hpp"
#include "md.hpp"

namespace md {

/// Everything a run needs; defaults are LAMMPS' `in.lj` benchmark.
struct Config {
  int cells = 20;               ///< fcc unit cells per side: 4·cells³ atoms (20 → 32,000)
  double density = 0.8442;      ///< reduced number density
  double temperature = 1.44;    ///< initial temperature
  double cutoff = 2.5;          ///< Rc, in σ
  double skin = 0.3;            ///< neighbour-list skin, in σ
  double dt = 0.005;            ///< timestep, in τ
  int steps = 100;              ///< timed MD steps per (strategy, threads); 0: time the force part only
  int rebuild_every = 20;       ///< neighbour-list rebuild period, in steps
  std::vector<int> threads{1};  ///< team sizes of the sweep
  std::vector<std::string> strategies;  ///< names from force_strategies()
  std::uint64_t seed = 87287;   ///< velocity seed (LAMMPS' in.lj uses 87287 too; its generator differs)
};

/// Side of the cubic box the configuration asks for.
double box_side(const Config& config);

/// Throws course::UsageError with one clear line when the configuration cannot run: sizes or counts
/// zero or negative, a team of zero threads, an unknown strategy, or Rc + skin above half the box (a
/// pair could then interact through two images, which the minimum-image convention cannot express).
void validate_config(const Config& config);

/// "8" → the sweep 1, 2, …, 8; "1,2,4,16" → exactly those, sorted, duplicates dropped.
/// Throws course::UsageError on anything else (empty, zero, negative, not a number).
std::vector<int> parse_thread_list(const std::string& text);

/// "all" → every strategy; "critical,triangle" → those. Throws course::UsageError on an unknown name.
std::vector<std::string> parse_strategy_list(const std::string& text);

/// Builds the configured system: fcc lattice, velocities at the configured temperature.
System make_system(const Config& config);

/// What a timed MD loop reports.
struct LoopResult {
  double seconds = 0;   ///< wall time of the `steps` steps (setup excluded, as in LAMMPS' "Loop time")
  int steps = 0;
  int rebuilds = 0;
  double steps_per_second() const noexcept { return seconds > 0 ? steps / seconds : 0.0; }
};

/// Runs `steps` velocity-Verlet NVE steps of `system` with `strategy` on `threads` threads, rebuilding
/// the list (after wrapping and sorting the atoms by cell) every config.rebuild_every steps.
/// `force` is resized to N and holds the last forces on return.
LoopResult run_md(System& system, const Config& config, const ForceStrategy& strategy, int threads, int steps,
                  ForceWorkspace& workspace, std::vector<Vec3>& force);

}  // namespace md
