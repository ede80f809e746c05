/// \file launcher.hpp
/// \brief `--launch N`: N local processes of this program, one NCCL rank each, started and waited for
/// here (no mpirun needed on one machine). Pure POSIX host code.
#pragma once
#include <string>
#include <vector>

namespace wave {

/// The command line of every rank: this one without --launch and --nccl-id-file, then
/// `--nccl-id-file id_file` (the one place the ranks meet to share NCCL's id).
std::vector<std::string> rank_arguments(int argc, char** argv, const std::string& id_file);

/// The environment of rank `rank` of `count`: `environment` (NULL-terminated) without any RANK,
/// WORLD_SIZE or LOCAL_RANK, then those three for this rank, and NCCL_NVLS_ENABLE=0.
std::vector<std::string> rank_environment(char** environment, int rank, int count);

/// Starts `count` ranks of /proc/self/exe with rank_arguments and rank_environment and waits for all.
/// Returns 0 when every rank ended with 0, else the first failing rank's exit code (a rank ended by a
/// signal counts as 1); once one rank fails the others are sent SIGTERM, since they would otherwise
/// wait in NCCL forever for the rank that is gone.
int launch_local_ranks(int count, int argc, char** argv, const std::string& id_file);

}  // namespace wave
