/// \file nccl_backend.cuh
/// \brief The many-node backend: one process per GPU, halos exchanged with NCCL send/recv. Built only
/// when NCCL is found (COURSE_HAVE_NCCL). Ranks come from RANK/WORLD_SIZE (or Open MPI's variables),
/// the NCCL id from MPI when built with it, otherwise through a file that rank 0 writes.
#pragma once
#include <string>

#include "common/timing.cuh"
#include "kernels.cuh"
#include "physics.hpp"

namespace wave {

/// What the ranks report (complete on rank 0 only).
struct NcclRunResult {
  bool is_root = false;
  int rank = 0, world = 1, device = 0;
  double ms_per_step = 0;        ///< the slowest rank's median
  bool checked = false;          ///< a bitwise comparison with one GPU was made
  long long mismatches = 0;      ///< cells that differ from the one-GPU run
  double max_abs_diff = 0;
};

/// Rank and world size from the environment (RANK/WORLD_SIZE, OMPI_COMM_WORLD_*, PMI_*, SLURM_*);
/// {0, 1} when none is set.
std::pair<int, int> rank_from_environment();

/// Runs this process's slab: warm-up and timed runs of `steps` steps, then (if `check`) gathers the
/// field on rank 0 and compares it bit for bit with a one-GPU run there.
NcclRunResult run_nccl_rank(const Problem& p, const Variant& variant, bool overlap, int steps,
                            course::TimingOptions timing, const std::string& id_file, bool check);

}  // namespace wave
