/// \file simulation.hpp
/// \brief The run configuration (with its validation, shared by the driver and the tests) and the
/// velocity-Verlet NVE loop that the driver times, with the checks that stop a run gone wrong.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
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
  int steps = 100;              ///< timed MD steps per (variant, threads); 0: time the force part only
  /// Steps of the serial reference loop, whose end state every variant's forces are checked on; −1: `steps`.
  /// Fewer make a run that only wants the variants' loops (bench.sh beside LAMMPS) cheaper; the checked state
  /// needs a few steps off the lattice, where every force is zero.
  int reference_steps = -1;
  int rebuild_every = 20;       ///< neighbour-list rebuild period, in steps
  std::vector<int> threads{1};  ///< team sizes of the sweep
  std::vector<std::string> variants;  ///< names from variants(), in table order
  std::uint64_t seed = 87287;   ///< velocity seed (LAMMPS' in.lj uses 87287 too; its generator differs)
  /// A state to start from instead of the lattice (--data: LAMMPS' own, read_lammps_data); it replaces
  /// cells, density, temperature and seed (the driver sets density and temperature from it, for the checks).
  std::shared_ptr<const System> initial;
  std::string data_file;        ///< where `initial` came from, for the results
  /// The lesson step "periodic images once per list" undone (--minimum-image every-pair): every listed pair
  /// takes the minimum image at every step, as before the step, so that bench.sh can time both in one run.
  bool minimum_image_every_pair = false;
  /// The lesson step "a vectorized neighbour build" undone (--list-build baseline), for bench.sh to time both.
  ListBuildPass list_build = ListBuildPass::vectorized;
};

/// build_neighbour_list as the configuration asks: without the rows' split (NeighbourList::image_from)
/// when config.minimum_image_every_pair is set.
NeighbourList build_list(const System& system, const Config& config, ListKind kind, int threads,
                         NeighbourScratch* scratch = nullptr);

/// Side of the cubic box the configuration asks for (the data file's box, when it starts from one).
double box_side(const Config& config);

/// The largest team a sweep may use: 4 × the logical cores. Beyond that every thread waits for a core
/// most of the time, and the sweep measures the scheduler (for minutes), not the algorithm.
int max_team_size();

/// Throws course::UsageError naming the environment variable (OMP_THREAD_LIMIT, OMP_MAX_ACTIVE_LEVELS)
/// when the OpenMP runtime cannot give a team of exactly `threads` threads, which every force strategy
/// needs (it splits the atoms by thread number). Checked once by validate_config for the largest team.
void require_team(int threads);

/// Throws course::UsageError with one clear line when the configuration cannot run or cannot be valid:
/// sizes or counts out of range, a team of zero threads or above max_team_size(), an unknown variant,
/// Rc + skin above half the box (a pair could then interact through two images, which the
/// minimum-image convention cannot express), a time step, density or temperature that velocity Verlet
/// cannot follow (check_time_step in stability.hpp), or more memory than the machine has.
void validate_config(const Config& config);

/// The items of --threads: one count N → the sweep 1, 2, …, N; the word `powers` → 1, 2, 4, … up to
/// `cores` (and `cores` itself when it is no power of two: the tour's few team sizes, see powers_up_to);
/// several counts → exactly those, sorted, duplicates dropped. Throws course::UsageError on anything but
/// counts in 1..max_team (a single N above it says to name the large teams as a list instead of sweeping
/// up to them).
std::vector<int> parse_thread_list(const std::vector<std::string>& items, int max_team, int cores);

/// 1, 2, 4, … while ≤ cores, then cores itself if it is not a power of two: a short sweep whose length
/// grows with log2(cores) (64 cores: 7 teams), so that the tour ends in seconds on a large machine.
std::vector<int> powers_up_to(int cores);

/// Builds the configured system: fcc lattice, velocities at the configured temperature; or a copy of the
/// state it starts from (config.initial).
System make_system(const Config& config);

/// What a timed MD loop reports.
struct LoopResult {
  double seconds = 0;   ///< wall time of the `steps` steps (setup excluded, as in LAMMPS' "Loop time")
  /// Where `seconds` went, as LAMMPS' timing breakdown splits it: the force evaluations ("Pair"), the
  /// rebuilds (wrap, sort by cell, list: "Neigh"), and the rest (the integrator, copies: "Modify" + "Other").
  double force_seconds = 0;
  double neighbour_seconds = 0;
  int steps = 0;
  int rebuilds = 0;
  double start_energy = 0;  ///< total energy per atom at step 0
  double end_energy = 0;    ///< … and after the last step
  double steps_per_second() const noexcept { return seconds > 0 ? steps / seconds : 0.0; }
};

/// Runs `steps` velocity-Verlet NVE steps of `system` with `strategy` on `threads` threads, rebuilding
/// the list (after wrapping and sorting the atoms by cell) every config.rebuild_every steps.
/// `force` is resized to N and holds the last forces on return.
/// Throws SimulationFailure (stability.hpp) naming the step and the likely cause when the run stops being
/// valid: overlapping atoms at step 0; non-finite coordinates or pairs within Rc missing from the list
/// (check_list, when a list is about to be replaced and after the last step); a total energy drift
/// beyond max_energy_drift (after the last step). The checks run with the clock stopped: `seconds` is
/// the MD work alone, plus one O(N) copy of the positions per rebuild.
LoopResult run_md(System& system, const Config& config, const Variant& strategy, int threads, int steps,
                  ForceWorkspace& workspace, std::vector<Vec3>& force);

}  // namespace md
