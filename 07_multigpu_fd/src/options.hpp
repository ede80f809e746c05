/// \file options.hpp
/// \brief wave_fd's command line, and every check of it that needs no GPU. Once parse_settings returns,
/// only what depends on the GPUs present (how many, how much memory) can still refuse a run.
#pragma once
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "kernels.cuh"
#include "physics.hpp"

namespace wave {

/// What one invocation does.
enum class Mode {
  run,       ///< one configuration: slabs on GPUs of this process (optionally checked, snapshotted)
  ladder,    ///< every selected kernel on one GPU, one slab (after the tune table with --tune)
  tune,      ///< --tune alone: every shape of the tuned rungs on one GPU, one slab
  scaling,   ///< strong and weak scaling over 1 … --gpus GPUs, with and without overlap
  nccl_rank, ///< this process is one rank of the NCCL backend
  launch,    ///< start --launch local NCCL ranks of this program and wait for them
  list,      ///< --list-variants: every kernel as data (src/listing.hpp); no GPU needed for its static part
};

/// A checked command line.
struct Settings {
  Mode mode = Mode::run;
  course::CommonOptions common;
  Problem problem;                ///< resolved: defaults filled in, stable, source inside
  Problem input;                  ///< as given (weak scaling re-resolves it with a taller grid)
  std::vector<Variant> variants;  ///< the ladder's rows in table order, or the one kernel of any other run
  int steps = 20;
  int gpus = 1;
  int slabs = 1;                  ///< resolved: one per GPU unless --slabs says otherwise
  bool overlap = true;
  bool check = false;
  bool tune = false;              ///< time every candidate of the tuned rungs first (table "tune")
  int ranks = 0;                  ///< --launch: how many local ranks to start
  std::string nccl_id_file;
  std::string snapshot;
};

/// The kernel a run uses when --variants is not given: the fastest one-step rung, in the shape a short
/// search on the GPU at hand finds fastest (or --tune's choice). One step at a time, so that any number
/// of slabs and GPUs can run it.
inline constexpr const char* default_variant = "tiled_vec4_prefetch";

/// The problem of weak scaling on `gpus` GPUs: `gpus` times the rows, the source back in the centre.
/// Throws course::UsageError when the taller grid is not a valid problem.
Problem weak_problem(const Problem& input, int gpus);

/// Parses and checks the command line. --help throws course::ExitRequest{0}; anything wrong throws
/// course::UsageError naming the real constraint, before any GPU is touched.
Settings parse_settings(int argc, char** argv);

/// Whether this build has the NCCL backend (NCCL found at configure time).
bool nccl_available();

}  // namespace wave
