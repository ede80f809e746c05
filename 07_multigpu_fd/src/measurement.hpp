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
};

/// Records `m` in `row`. The JSON keys are the ones figures.py reads (table, variant, backend, nx, ny,
/// gpus, slabs, overlap, ms_per_step, gcells_per_s, mcells_per_s, gb_per_s, roofline_pct,
/// bitwise_equal, efficiency); the roofline is `ceiling_gbs` per GPU at bytes_per_cell per cell.
void record(course::Row& row, const Measurement& m, double ceiling_gbs);

/// Median milliseconds per step over `timing` (warm-up, then reps) runs of `steps` steps each.
double time_solver(SlabSolver& solver, int steps, course::TimingOptions timing);

/// Whether two fields hold the same bits (NaN included: no tolerance).
bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b);

/// u after `steps` steps of `p` as one slab on `device`: what every decomposition must reproduce.
std::vector<float> one_gpu_reference(const Problem& p, const Variant& v, int steps, int device);

}  // namespace wave
