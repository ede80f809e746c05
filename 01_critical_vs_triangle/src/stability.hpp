/// \file stability.hpp
/// \brief When an MD run means something: the bounds a configuration must meet before it starts, and
/// the checks that stop a run whose numbers stopped being physics (reduced Lennard-Jones units).
///
/// Up front (bad input, course::UsageError, exit 2): velocity Verlet follows a vibration of angular
/// frequency ω only while ω·dt < 2; beyond that every step amplifies the error and the run explodes.
/// The stiffest vibration a run cannot avoid is a pair of atoms at the bottom of the well, r = 2^(1/6)σ,
/// or at the lattice spacing if the density squeezes atoms closer than that. A time step at or beyond
/// 2/ω there, or a temperature whose thermal speed carries an atom more than max_step_distance per
/// step, cannot give a valid run.
///
/// During the run (SimulationFailure, exit 1), checked where the timed loop does not pay for it: at
/// step 0, no pair closer than its own stability limit (overlapping atoms); when a neighbour list ends its
/// service and at the last step, finite coordinates and no more than max_missing_pairs of the pairs
/// within Rc missing from the list; at the last step, a total energy within max_energy_drift of where it
/// started.
#pragma once
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "md.hpp"

namespace md {

/// 2^(1/6)σ: where the pair force vanishes, the bottom of the Lennard-Jones well.
inline constexpr double potential_minimum = 1.122462048309373;
/// The farthest one step may carry an atom, in σ. The repulsive wall climbs by several ε within 0.1σ,
/// so a longer step jumps into it instead of following it (LAMMPS' fix dt/reset uses the same scale).
inline constexpr double max_step_distance = 0.1;
/// The stated bound on a stale list: at most this fraction of the pairs within the cut-off missing from
/// it. The usual rule (rebuild before any atom moves half the skin) guarantees none; LAMMPS' in.lj breaks
/// it on purpose (rebuilt every 20 steps, unchecked: atoms move 0.3-0.4σ against a skin of 0.3σ) and
/// misses about 1 pair in 10,000, each just inside Rc. Ten times that is still a valid run; a list
/// without skin misses several per cent.
inline constexpr double max_missing_pairs = 1e-3;
/// The stated bound on energy drift: |E − E₀| per atom ≤ this fraction of (|E_pair| + KE) per atom at
/// step 0 (at least 1ε). Legitimate runs stay well inside: in.lj drifts by 0.2 % of it over 100 to 3000
/// steps, and the unshifted cut-off (a jump of V(Rc) = −0.016ε whenever a pair crosses Rc) keeps even a
/// condensing gas under 2 %; a run that blows up misses it by orders of magnitude.
inline constexpr double max_energy_drift = 0.05;

/// The nearest-neighbour distance of the fcc lattice at reduced number density `density`.
double fcc_neighbour_distance(double density);
/// V''(r) of the Lennard-Jones pair potential: the spring constant of a pair at separation r.
double pair_stiffness(double r);
/// 2/ω: the largest time step velocity Verlet can follow a pair of unit masses vibrating about
/// separation r with, ω = sqrt(V''(r)/μ), μ = 1/2. Infinite where V'' ≤ 0 (nothing to vibrate).
double verlet_step_limit(double r);

/// Throws course::UsageError (one line, naming the option) when `dt` cannot give a valid run at this
/// `density` and `temperature`: dt ≥ verlet_step_limit at min(lattice spacing, 2^(1/6)σ) (the lattice
/// spacing binding means the density overlaps atoms), or sqrt(3T)·dt > max_step_distance.
void check_time_step(double density, double temperature, double dt);

/// A run whose numbers stopped being physics. The message is one line: the step, the quantity, the
/// likely cause (time step too large, overlapping atoms, neighbour list too stale).
struct SimulationFailure : std::runtime_error {
  SimulationFailure(int step, const std::string& what);
  int step;
};

/// Step 0: throws SimulationFailure ("overlapping atoms") when the closest pair is nearer than the
/// distance at which velocity Verlet with `dt` can still follow it.
void check_closest_pair(double closest, double dt);

/// At the end of a neighbour list's service (the next step replaces it, or the run ends). Throws
/// SimulationFailure for non-finite coordinates, or when more than max_missing_pairs of the pairs within
/// the cut-off are missing from `list` (an exact count against a fresh search, made only when some atom
/// moved more than half the skin since the build at `built_at`: otherwise no pair can be missing). The
/// cause named is the time step when the fastest atom covers more than max_step_distance per step,
/// the list's age otherwise.
void check_list(const System& system, const NeighbourList& list, std::span<const Vec3> at_build, int built_at,
                int step, double cutoff, double dt, int threads);

/// Throws SimulationFailure when the total energy per atom moved from `start` to `end` by more than
/// max_energy_drift of `scale` (|E_pair| + KE per atom at step 0, floored at 1ε).
void check_energy_drift(double start, double end, double scale, int step, double dt);

}  // namespace md
