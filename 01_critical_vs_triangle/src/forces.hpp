/// \file forces.hpp
/// \brief The force strategies of chapter 01: one serial reference and five OpenMP ways of summing
/// pair forces into a shared array, each instrumented with per-thread timestamps, and how the results
/// of two of them are compared.
#pragma once
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "md.hpp"

namespace md {

/// What a force evaluation reads: positions (as the integrator left them, within a skin of the last
/// rebuild), the box, the cut-off and a neighbour list of the kind the strategy needs.
struct ForceInput {
  std::span<const Vec3> position;
  double box = 0;
  double cutoff = 0;
  const NeighbourList* list = nullptr;
};

/// One thread's timestamps during one force evaluation, in seconds since the parallel region was
/// entered. Strategies without a critical section set section_enter = section_exit = compute_end
/// (atomics, full list) or time their parallel reduction as the "section" (per-thread arrays).
struct ThreadTimes {
  double start = 0;          ///< the thread is running
  double loop_begin = 0;     ///< private arrays zeroed: the pair loop starts
  double compute_end = 0;    ///< the pair loop is done
  double section_enter = 0;  ///< inside the critical section (or the reduction)
  double section_exit = 0;   ///< out of it
  std::size_t particles = 0; ///< rows of the neighbour list this thread walked
};

/// What a strategy keeps from one call to the next: the private force arrays (allocated on first use by
/// the thread that owns them, so that they live in its memory), the timestamps of the last call, and the
/// triangle method's staircase step Δ for a given team size.
struct ForceWorkspace {
  std::vector<std::vector<Vec3>> per_thread;
  /// full_list_vectorized: each thread's packed row (three arrays of separations), reused from call to call.
  std::vector<std::vector<double>> row_buffers;
  std::vector<ThreadTimes> times;
  int triangle_threads = 0;     ///< team size `triangle_step` was measured for (0: not yet)
  double triangle_step = 0;     ///< Δ = Tc / t_p, in particles
  double calibrated_section_s = 0;   ///< Tc measured by the calibration
  double calibrated_particle_s = 0;  ///< t_p measured by the calibration
  /// Sizes `times` and `per_thread` for a team of `threads` (contents are set by the strategies).
  void prepare(int threads);
};

/// A force strategy: fills `force` (size N) with the total Lennard-Jones force on each atom.
using ForceFunction = void (*)(const ForceInput& input, std::span<Vec3> force, ForceWorkspace& workspace, int threads);

/// One rung of the ladder (the study calls them methods, the lesson strategies): the driver, the tests
/// and the lesson all walk this table.
struct Variant {
  std::string_view name;
  std::string_view teaches;
  ForceFunction compute;
  ListKind list;             ///< the neighbour list it walks
  bool critical_section;     ///< the idle-time model Nth(Nth−1)Tc applies (critical) or half of it (triangle)
  bool vector_clones = false;  ///< its pair loop is built with MD_VECTOR_CLONES: the loader picks the vector width
};

/// serial, critical, triangle, atomic, thread_arrays, full_list: in that order.
std::span<const Variant> variants();
/// The variant called `name`, or nullptr.
const Variant* find_variant(std::string_view name);

/// Measures Δ = Tc / t_p for a team of `threads` with `reps` calls of the critical method (medians)
/// and stores it in the workspace; the triangle method calls this itself when its team size changes.
void calibrate_triangle(const ForceInput& input, std::span<Vec3> scratch, ForceWorkspace& workspace, int threads,
                        int reps = 3);

/// The force scale of a configuration: the largest |F| of a single interacting pair. The net force on an
/// atom is a sum of such terms that may cancel (on a perfect lattice it is zero up to round-off), so
/// round-off is relative to this, not to the net forces. The list may be half or full.
double pair_force_scale(const ForceInput& input);

/// max |f_i − ref_i| (any component) over max(largest |ref| component, `floor`): 0 for equal arrays, about
/// 1e-16 × (neighbours per atom) for two summation orders of the same forces.
double force_error(std::span<const Vec3> f, std::span<const Vec3> ref, double floor);

/// What the timestamps of one call say.
struct IdleSummary {
  double idle_before_s = 0;   ///< Σ over threads of (section entry − pair-loop end): waiting to get in
  double idle_after_s = 0;    ///< Σ of (last thread's exit − own exit): waiting for the others at the end
  double section_mean_s = 0;  ///< Tc: mean time of one pass through the section
  double particle_s = 0;      ///< t_p: pair-loop time per particle (row), over the whole team
  double span_s = 0;          ///< the last exit: the parallel part's length
  double idle_s() const noexcept { return idle_before_s + idle_after_s; }
};
IdleSummary summarize(std::span<const ThreadTimes> times);

/// The model's total idle time: Nth(Nth−1)Tc for the critical method, half that for the triangle
/// method, 0 for strategies without a critical section.
double model_idle_s(const Variant& strategy, int threads, double section_s);

}  // namespace md
