#include "nccl_backend.cuh"

#include <nccl.h>
#if defined(COURSE_HAVE_MPI)
#include <mpi.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include <unistd.h>
#include <vector>

#include "common/check.cuh"
#include "common/errors.hpp"
#include "decomposition.hpp"
#include "measurement.hpp"
#include "solver.cuh"

namespace wave {
namespace {

#define NCCL_CHECK(expr)                                                                              \
  do {                                                                                                \
    const ncclResult_t nccl_result_ = (expr);                                                         \
    if (nccl_result_ != ncclSuccess)                                                                  \
      throw course::CudaError(std::string(#expr) + " failed: " + ncclGetErrorString(nccl_result_)); \
  } while (0)

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

/// Rank 0 writes the id to a temporary name and renames it (atomic); the others wait for the file.
ncclUniqueId exchange_id_through_file(int rank, const std::string& path) {
  ncclUniqueId id{};
  if (path.empty()) throw course::UsageError("the NCCL backend without MPI needs --nccl-id-file FILE");
  if (rank == 0) {
    NCCL_CHECK(ncclGetUniqueId(&id));
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(reinterpret_cast<const char*>(&id), sizeof id);
      if (!out) throw course::UsageError("cannot write the NCCL id file " + tmp);
    }
    std::filesystem::rename(tmp, path);
    return id;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(path, std::ios::binary);
    if (in && in.read(reinterpret_cast<char*>(&id), sizeof id) && in.gcount() == sizeof id) return id;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw course::CudaError("rank " + std::to_string(rank) + ": no NCCL id in " + path + " after 120 s");
}

}  // namespace

std::pair<int, int> rank_from_environment() {
  for (const auto& [r, w] : {std::pair{"RANK", "WORLD_SIZE"}, std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                             std::pair{"PMI_RANK", "PMI_SIZE"}, std::pair{"SLURM_PROCID", "SLURM_NTASKS"}}) {
    const int rank = env_int(r, -1), world = env_int(w, -1);
    if (rank >= 0 && world > 0) {
      if (rank >= world) throw course::UsageError(std::string(r) + " is not below " + w);
      return {rank, world};
    }
  }
  return {0, 1};
}

NcclRunResult run_nccl_rank(const Problem& p, const Variant& rung, bool overlap, int steps,
                            course::TimingOptions timing, const std::string& id_file, bool check) {
  // NVLink SHARP (multicast) is not to be used on these machines: off unless the user says otherwise
  // is not enough, so force it off before NCCL reads its environment.
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);

  NcclRunResult result;
  // Bootstrap: processes started by `--launch N` (RANK and WORLD_SIZE set) or by another launcher that
  // sets them share the id through --nccl-id-file; otherwise, where MPI was built in, MPI does it (run
  // under mpirun). Without this order an MPI build started by --launch would see N worlds of one.
  bool use_mpi = false;
#if defined(COURSE_HAVE_MPI)
  use_mpi = env_int("WORLD_SIZE", -1) < 1;
  if (use_mpi) {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &result.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &result.world);
  }
#endif
  if (!use_mpi) std::tie(result.rank, result.world) = rank_from_environment();
  result.is_root = result.rank == 0;
  const int depth = exchange_depth(rung, result.world);  // halo, or halo · K for a temporal rung
  validate_decomposition(p.ny, result.world, depth);
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 1) throw course::NoDeviceError("no CUDA device for rank " + std::to_string(result.rank));
  const int local_rank = env_int("LOCAL_RANK", env_int("OMPI_COMM_WORLD_LOCAL_RANK", result.rank));
  result.device = local_rank % devices;
  CUDA_CHECK(cudaSetDevice(result.device));
  // A tuned rung in the shape fastest on this rank's GPU (every shape computes the same bits).
  const Variant variant = quick_tuned_variant(rung, p, result.device);

  ncclUniqueId id{};
#if defined(COURSE_HAVE_MPI)
  if (use_mpi) {
    if (result.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  } else {
    id = exchange_id_through_file(result.rank, id_file);
  }
#else
  id = exchange_id_through_file(result.rank, id_file);
#endif
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, result.world, id, result.rank));
  // Every rank has read the id once the communicator exists: remove the file so a later run cannot
  // pick up a stale one.
  if (result.rank == 0 && !id_file.empty()) std::filesystem::remove(id_file);
  struct CommOwner {
    ncclComm_t comm;
    ~CommOwner() { ncclCommDestroy(comm); }
  } comm_owner{comm};

  const int rank = result.rank, world = result.world;
  int least = 0, greatest = 0;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  Slab slab(p, result.device, slab_rows(p.ny, world, rank), greatest, buffers_for(variant), depth);
  const SlabLayout& L = slab.layout();
  const std::size_t halo_floats = static_cast<std::size_t>(depth) * L.pitch;
  const StepRegions parts = split_rows(L.rows, depth);
  int steps_done = 0;

  // [nccl_step]
  // Steps n … n + steps − 1: one step, or one pass of a temporal rung (which writes two fields, each
  // sent `depth` = halo · K rows deep, once per K steps).
  const auto advance_exchanged = [&](int n, int steps) {
    if (overlap) {
      CUDA_CHECK(cudaStreamWaitEvent(slab.halo_stream(), slab.interior_done()));
      CUDA_CHECK(cudaStreamWaitEvent(slab.interior_stream(), slab.halo_done()));
      enqueue_steps(p, slab, variant, n, steps, parts.top, slab.halo_stream());
      enqueue_steps(p, slab, variant, n, steps, parts.bottom, slab.halo_stream());
    } else {
      enqueue_steps(p, slab, variant, n, steps, {0, L.rows}, slab.halo_stream());
    }
    // Whole rows (margins included) are contiguous: one send and one receive per neighbour and field.
    NCCL_CHECK(ncclGroupStart());
    for (const int f : written_fields(steps)) {
      float* next = slab.field(n, f);
      if (rank > 0) {
        NCCL_CHECK(ncclSend(next + L.index(-x_origin, 0), halo_floats, ncclFloat, rank - 1, comm, slab.halo_stream()));
        NCCL_CHECK(ncclRecv(next + L.index(-x_origin, -depth), halo_floats, ncclFloat, rank - 1, comm, slab.halo_stream()));
      }
      if (rank + 1 < world) {
        NCCL_CHECK(ncclSend(next + L.index(-x_origin, L.rows - depth), halo_floats, ncclFloat, rank + 1, comm,
                            slab.halo_stream()));
        NCCL_CHECK(ncclRecv(next + L.index(-x_origin, L.rows), halo_floats, ncclFloat, rank + 1, comm, slab.halo_stream()));
      }
    }
    NCCL_CHECK(ncclGroupEnd());
    CUDA_CHECK(cudaEventRecord(slab.halo_done(), slab.halo_stream()));
    if (overlap) {
      enqueue_steps(p, slab, variant, n, steps, parts.interior, slab.interior_stream());
      CUDA_CHECK(cudaEventRecord(slab.interior_done(), slab.interior_stream()));
    }
  };
  const auto advance = [&](int count) {
    const int per_pass = variant.steps_per_pass;
    for (int k = 0; k < count;) {
      const int unit = per_pass > 1 && k + per_pass <= count ? per_pass : 1;  // as SlabSolver::advance
      advance_exchanged(steps_done + k, unit);
      k += unit;
    }
    steps_done += count;
  };
  // [nccl_step]
  const auto synchronize = [&] {
    CUDA_CHECK(cudaStreamSynchronize(slab.halo_stream()));
    CUDA_CHECK(cudaStreamSynchronize(slab.interior_stream()));
  };

  const course::Stats stats = course::time_host([&] { advance(steps); synchronize(); }, timing);
  {
    course::DeviceBuffer<double> slowest(1);
    const double mine = stats.median / steps;
    CUDA_CHECK(cudaMemcpy(slowest.data(), &mine, sizeof mine, cudaMemcpyHostToDevice));
    NCCL_CHECK(ncclAllReduce(slowest.data(), slowest.data(), 1, ncclDouble, ncclMax, comm, slab.halo_stream()));
    CUDA_CHECK(cudaStreamSynchronize(slab.halo_stream()));
    CUDA_CHECK(cudaMemcpy(&result.ms_per_step, slowest.data(), sizeof(double), cudaMemcpyDeviceToHost));
  }

  if (check) {
    // Gather u on rank 0 (rank by rank through one device buffer), then run the same steps on one GPU.
    const float* mine = slab.field(steps_done, 0) + L.index(-x_origin, 0);
    if (rank == 0) {
      std::vector<float> field(static_cast<std::size_t>(p.nx) * p.ny);
      slab.download(steps_done, field.data());
      const int max_rows = slab_rows(p.ny, world, world - 1).size() + 1;
      course::DeviceBuffer<float> incoming(static_cast<std::size_t>(max_rows) * L.pitch);
      for (int r = 1; r < world; ++r) {
        const RowRange rows = slab_rows(p.ny, world, r);
        NCCL_CHECK(ncclRecv(incoming.data(), static_cast<std::size_t>(rows.size()) * L.pitch, ncclFloat, r, comm,
                            slab.halo_stream()));
        CUDA_CHECK(cudaStreamSynchronize(slab.halo_stream()));
        CUDA_CHECK(cudaMemcpy2D(field.data() + static_cast<std::size_t>(rows.begin) * p.nx, sizeof(float) * p.nx,
                                incoming.data() + x_origin, sizeof(float) * L.pitch, sizeof(float) * p.nx,
                                static_cast<std::size_t>(rows.size()), cudaMemcpyDeviceToHost));
      }
      SlabSolver reference({p, 1, 1, false, &variant, result.device});
      reference.advance(steps_done);
      const std::vector<float> expected = reference.gather();
      for (std::size_t i = 0; i < field.size(); ++i) {
        if (std::memcmp(&field[i], &expected[i], sizeof(float)) != 0) {
          ++result.mismatches;
          result.max_abs_diff = std::max(result.max_abs_diff, static_cast<double>(std::fabs(field[i] - expected[i])));
        }
      }
      result.checked = true;
    } else {
      NCCL_CHECK(ncclSend(mine, static_cast<std::size_t>(L.rows) * L.pitch, ncclFloat, 0, comm, slab.halo_stream()));
      CUDA_CHECK(cudaStreamSynchronize(slab.halo_stream()));
    }
  }
  synchronize();
#if defined(COURSE_HAVE_MPI)
  if (use_mpi) MPI_Finalize();
#endif
  return result;
}

}  // namespace wave
