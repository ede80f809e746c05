/// \file sweep.hpp
/// \brief The measurements of the driver: the serial reference (step 0, the whole loop, the force part on
/// its end state) and the sweep of every chosen variant over the team sizes, the force part timed in
/// interleaved rounds and checked against the serial forces, the whole loop timed once.
#pragma once
#include <cstddef>
#include <vector>

#include "common/timing_options.hpp"
#include "forces.hpp"
#include "md.hpp"
#include "simulation.hpp"

namespace md {

/// Forces from different summation orders agree to round-off: the largest component difference over
/// the force scale (force_error with pair_force_scale as floor) must not exceed this.
inline constexpr double force_tolerance = 1e-10;

/// The force part of one variant at one team size: medians over the timed repetitions, with the
/// spread (min and max) beside them, since one evaluation on a shared or virtual machine says little.
struct ForceMeasurement {
  double ms = 0, min_ms = 0, max_ms = 0;
  IdleSummary idle;                     ///< medians over the repetitions, component by component
  double idle_ms = 0;                   ///< median of the per-repetition totals (before + after)
  double idle_min_ms = 0, idle_max_ms = 0;
  std::vector<ThreadTimes> timeline;    ///< the repetition whose time is the median
  double max_error = 0;                 ///< the worst repetition, as force_error
  double triangle_step = 0;             ///< Δ = Tc / t_p as calibrated (before the clamp)
};

/// One row of the study: a variant at a team size.
struct Measurement {
  const Variant* variant = nullptr;
  int threads = 1;
  ForceMeasurement force;
  LoopResult loop;  ///< steps == 0: no loop was timed
};

/// The serial reference: the lattice's step 0, the serial loop from it, and its end state, where every
/// variant's force part is timed and checked (on the perfect lattice every force is zero and the check
/// would prove little).
struct Reference {
  double cutoff = 0;
  System initial;      ///< the configured lattice, before any step
  Thermo step0;
  System state;        ///< after the serial loop, wrapped and sorted by cell
  Thermo end;
  NeighbourList half, full;
  double force_scale = 0;  ///< pair_force_scale of the end state: the floor of the force check
  std::vector<Vec3> forces;  ///< the serial forces on the end state
  Measurement serial;
  ForceInput input(ListKind kind) const {
    return {state.position, state.box, cutoff, kind == ListKind::full ? &full : &half};
  }
};

/// Builds the system, measures step 0, runs and times the serial loop (SimulationFailure if it goes
/// wrong), then times the serial force part on the end state. `list_threads` builds the lists.
Reference measure_reference(const Config& config, const course::TimingOptions& timing, int list_threads);

/// Every variant in `chosen` (serial excluded) at every team size of config.threads: the force part in
/// interleaved rounds, checked against the reference (std::runtime_error naming the variant, the team
/// and the error when it exceeds force_tolerance), then one timed loop from the lattice (run_md's checks).
/// Rows come back in sweep order (team size, then variant); progress shows on a terminal's stderr.
std::vector<Measurement> sweep(const Config& config, const course::TimingOptions& timing, const Reference& reference,
                               const std::vector<const Variant*>& chosen);

}  // namespace md
