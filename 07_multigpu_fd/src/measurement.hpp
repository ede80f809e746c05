/// \file measurement.hpp
/// \brief One measured configuration and the one way it becomes a row of the report (table, CSV and
/// JSON alike), plus the timing and the bit-for-bit comparison every run uses.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/report.hpp"
#include "common/timing_options.hpp"
#include "kernels.cuh"
#include "physics.hpp"
#include "solver.cuh"

namespace wave {

/// One measured configuration.
struct Measurement {
  std::string table;    ///< which lesson table the row belongs to: ladder, strong, weak, run, nccl
  std::string variant;
  std::string backend;  ///< single or nccl
  int nx = 0, ny = 0, gpus = 1, slabs = 1;
  bool overlap = false;
  double ms_per_step = 0;
  std::optional<bool> bitwise;       ///< compared with one slab on one GPU
  std::optional<double> efficiency;  ///< scaling runs: against the same run on one GPU
  std::optional<double> stream_gcells;  ///< ladder and tune: the stream ceiling of this GPU, same run
  int steps_per_pass = 1;               ///< the rung's K (1: one step per launch)
  std::optional<double> halo_bytes_per_step;  ///< decomposed runs: what the exchange moves (halo_bytes_per_step)
};

/// Records `m` in `row`. The JSON keys are the ones figures.py reads (table, variant, backend, nx, ny,
/// gpus, slabs, overlap, ms_per_step, gcells_per_s, mcells_per_s, gb_per_s, roofline_pct, ceiling_pct,
/// bitwise_equal, efficiency, steps_per_pass, halo_bytes_per_step); the roofline is `ceiling_gbs` per GPU at bytes_per_cell per cell, the
/// ceiling the stream kernel's cell rate (null where not measured). A temporal rung's cells count once
/// per step, so its gb_per_s is what a one-step kernel would need to move to keep up (an effective rate).
void record(course::Row& row, const Measurement& m, double ceiling_gbs);

/// Median milliseconds per step over `timing` (warm-up, then reps) runs of `steps` steps each.
double time_solver(SlabSolver& solver, int steps, course::TimingOptions timing);

/// The stream ceiling of the current device for an nx × ny grid: median milliseconds of one
/// launch_stream_ceiling pass over nx·ny cells (two arrays of that size, allocated here), `steps`
/// passes per timed run as the rungs are timed.
double time_stream_ceiling(int nx, int ny, int steps, course::TimingOptions timing);

/// One timed candidate of a tuned rung.
struct TuneTiming {
  Variant candidate;
  double ms_per_step = 0;
  std::optional<bool> bitwise;  ///< the field equals the first candidate's (null for the first)
};

/// The fastest candidate of `rung` for problem `p` on `device` (one slab), carrying the rung's name,
/// teaches and family and the candidate's launchers and shape. Times each candidate with `timing` over
/// `steps` steps; `timings`, when given, receives every candidate's time in table order and whether
/// its field after the timed runs equals the first candidate's (all ran the same steps).
Variant tuned_variant(const Variant& rung, const Problem& p, int device, int steps, course::TimingOptions timing,
                      std::vector<TuneTiming>* timings = nullptr);

/// tuned_variant in a short search (12 steps, 1 warm-up, median of 3) on `p` cut to at most 4096 rows:
/// what a run uses for a tuned rung when --tune has not timed it.
Variant quick_tuned_variant(const Variant& rung, const Problem& p, int device);

/// Whether two fields hold the same bits (NaN included: no tolerance).
bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b);

/// u after `steps` steps of `p` as one slab on `device`: what every decomposition must reproduce.
std::vector<float> one_gpu_reference(const Problem& p, const Variant& v, int steps, int device);

}  // namespace wave
