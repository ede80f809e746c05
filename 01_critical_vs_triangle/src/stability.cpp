#include "stability.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/errors.hpp"

namespace md {

namespace {

/// Three significant digits: enough to read a bound, short enough for one line.
std::string g(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace

double fcc_neighbour_distance(double density) { return std::cbrt(4.0 / density) / std::sqrt(2.0); }

double pair_stiffness(double r) {
  const double r2 = 1.0 / (r * r), r6 = r2 * r2 * r2, r8 = r6 * r2;
  return (624.0 * r6 - 168.0) * r8;  // d²/dr² of 4(r⁻¹² − r⁻⁶)
}

double verlet_step_limit(double r) {
  const double k = pair_stiffness(r);
  return k > 0 ? 2.0 / std::sqrt(2.0 * k) : std::numeric_limits<double>::infinity();
}

void check_time_step(double density, double temperature, double dt) {
  const double well_limit = verlet_step_limit(potential_minimum);
  if (dt >= well_limit)
    throw course::UsageError("--dt " + g(dt) + ": beyond velocity Verlet's stability limit: a Lennard-Jones pair at the "
                             "bottom of its well vibrates with omega = " + g(2.0 / well_limit) +
                             "/tau, and the time step must stay below 2/omega = " + g(well_limit));
  const double spacing = fcc_neighbour_distance(density);
  if (spacing < potential_minimum && dt >= verlet_step_limit(spacing))
    throw course::UsageError("--density " + g(density) + ": the fcc lattice puts neighbours " + g(spacing) +
                             " sigma apart, deep in the repulsive wall (overlapping atoms): a pair there needs a time "
                             "step below " + g(verlet_step_limit(spacing)) + ", not " + g(dt) + "; lower --density or --dt");
  const double thermal_step = std::sqrt(3.0 * temperature) * dt;
  if (thermal_step > max_step_distance)
    throw course::UsageError("--dt " + g(dt) + " at --temperature " + g(temperature) + ": a typical atom moves " +
                             g(thermal_step) + " sigma per step, more than " + g(max_step_distance) +
                             " sigma: the time step is too large for this temperature; lower --dt or --temperature");
}

SimulationFailure::SimulationFailure(int failed_step, const std::string& what)
    : std::runtime_error(what), step(failed_step) {}

void check_closest_pair(double closest, double dt) {
  const double limit = verlet_step_limit(closest);
  if (closest < potential_minimum && dt >= limit)
    throw SimulationFailure(0, "step 0: two atoms start " + g(closest) + " sigma apart: overlapping atoms (time step " +
                                   g(dt) + ", but a pair that close needs less than " + g(limit) + ")");
}

namespace {

/// One O(N) pass: how far the atoms moved since the list was built, how fast the fastest one goes, and
/// whether every coordinate is still a number.
struct Motion {
  double max_displacement = 0;
  double max_speed = 0;
  bool finite = true;
};

Motion measure_motion(std::span<const Vec3> position, std::span<const Vec3> at_build, std::span<const Vec3> velocity,
                      int threads) {
  const auto n = static_cast<std::ptrdiff_t>(position.size());
  double worst2 = 0, fastest2 = 0;
  long non_finite = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : worst2, fastest2) reduction(+ : non_finite)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const Vec3 x = position[static_cast<std::size_t>(i)], b = at_build[static_cast<std::size_t>(i)],
               v = velocity[static_cast<std::size_t>(i)];
    if (!(std::isfinite(x.x) && std::isfinite(x.y) && std::isfinite(x.z) && std::isfinite(v.x) && std::isfinite(v.y) &&
          std::isfinite(v.z))) {
      ++non_finite;
      continue;
    }
    const double dx = x.x - b.x, dy = x.y - b.y, dz = x.z - b.z;
    worst2 = std::max(worst2, dx * dx + dy * dy + dz * dz);  // may overflow to inf: still "too far"
    fastest2 = std::max(fastest2, v.x * v.x + v.y * v.y + v.z * v.z);
  }
  return {std::sqrt(worst2), std::sqrt(fastest2), non_finite == 0};
}

}  // namespace

void check_list(const System& system, const NeighbourList& list, std::span<const Vec3> at_build, int built_at,
                int step, double cutoff, double dt, int threads) {
  const Motion motion = measure_motion(system.position, at_build, system.velocity, threads);
  const std::string at = "step " + std::to_string(step) + ": ";
  if (!motion.finite)
    throw SimulationFailure(step, at + "non-finite positions or velocities: the integration blew up; likely cause: "
                                       "time step too large (or overlapping atoms)");
  const double skin = list.reach - cutoff;
  if (motion.max_displacement <= 0.5 * skin) return;  // no pair can have come within Rc unlisted
  const std::size_t interacting = build_neighbour_list(system, cutoff, ListKind::half, threads).neighbours.size();
  const std::size_t listed = pair_sums(system, list, cutoff, threads).interacting;
  const std::size_t missing = interacting > listed ? interacting - listed : 0;
  if (static_cast<double>(missing) <= max_missing_pairs * static_cast<double>(interacting)) return;
  const double per_step = motion.max_speed * dt;
  const std::string cause =
      per_step > max_step_distance
          ? "time step too large (the fastest atom covers " + g(per_step) + " sigma per step, more than " +
                g(max_step_distance) + ")"
          : "neighbour list too stale (rebuild it more often or widen the skin)";
  throw SimulationFailure(step, at + std::to_string(missing) + " of " + std::to_string(interacting) +
                                    " pairs within the cut-off (" + g(100.0 * missing / interacting) +
                                    "%) are missing from the neighbour list built at step " + std::to_string(built_at) +
                                    " (bound " + g(100 * max_missing_pairs) + "%): an atom moved " +
                                    g(motion.max_displacement) + " sigma since, the skin is " + g(skin) +
                                    "; likely cause: " + cause);
}

void check_energy_drift(double start, double end, double scale, int step, double dt) {
  const double bound = max_energy_drift * std::max(scale, 1.0);
  const double drift = std::abs(end - start);
  if (drift <= bound) return;  // NaN fails too
  throw SimulationFailure(step, "step " + std::to_string(step) + ": total energy per atom drifted from " + g(start) +
                                    " to " + g(end) + ", beyond the bound " + g(bound) + " (" +
                                    g(100 * max_energy_drift) + "% of |E_pair| + KE at step 0); likely cause: time "
                                    "step too large (velocity Verlet with dt " + g(dt) + " no longer conserves energy)");
}

}  // namespace md
