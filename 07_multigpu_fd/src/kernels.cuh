/// \file kernels.cuh
/// \brief The single-GPU ladder: each rung a kernel that advances rows [row_begin, row_end) of one slab
/// by one leapfrog step, and the table of rungs that the driver, the tests and the lesson walk.
#pragma once
#include <cuda_runtime.h>

#include <span>
#include <string_view>
#include <vector>

#include "stencil.hpp"

namespace wave {

/// What one step of one slab (or one part of it) reads and writes. All pointers are device pointers
/// to padded slabs (SlabLayout); prev, cur and next are three distinct buffers.
struct StepArgs {
  const float* prev = nullptr;      ///< u at t − dt
  const float* cur = nullptr;       ///< u at t (its ghost rows hold the neighbours' rows)
  float* next = nullptr;            ///< u at t + dt (written for rows [row_begin, row_end) only)
  SlabLayout layout{};
  const float* courant2 = nullptr;  ///< per local row: (v·dt/h)²
  const float* damp_x = nullptr;    ///< per x (layout.pitch entries, zero past nx)
  const float* damp_y = nullptr;    ///< per local row
  int row_begin = 0, row_end = 0;   ///< local rows to compute
  int global_row0 = 0;              ///< global index of local row 0 (the bounds-checking rungs need it)
  int ny_global = 0;
  int source_x = -1, source_y = -1; ///< local position of the source; source_y = −1 when not here
  float source = 0.0f;              ///< value added at the source cell this step
};

/// Enqueues one step of rows [args.row_begin, args.row_end) on `stream` (and checks the launch).
using StepLauncher = void (*)(const StepArgs& args, cudaStream_t stream);

/// The most time steps one pass of a temporal rung advances.
inline constexpr int max_steps_per_pass = 4;

/// What a K-step pass writes besides args.next (u after K steps), and the source of each of its steps.
struct PassTargets {
  float* next_prev = nullptr;             ///< u after K − 1 steps (the u_prev of the next pass)
  float sources[max_steps_per_pass] = {};  ///< value added at the source cell in step s of the pass
};

/// Enqueues one pass of a temporal rung: K steps of the whole grid from args.prev/args.cur (u after
/// n − 1 and n steps) to t.next_prev/args.next (after n + K − 1 and n + K); four distinct buffers.
using PassLauncher = void (*)(const StepArgs& args, const PassTargets& targets, cudaStream_t stream);

/// One rung of the ladder, or one configuration of a tuned rung.
struct Variant {
  const char* name;
  StepLauncher launch;       ///< one step (a temporal rung's steps left over after its whole passes)
  const char* teaches;       ///< what this rung changes, in a few words
  const char* reads_memory;  ///< how neighbours are fetched (for the table)
  int steps_per_pass = 1;    ///< K: time steps per pass over memory (temporal rungs)
  PassLauncher pass = nullptr;  ///< K steps at once (steps_per_pass > 1)
  const char* family = nullptr; ///< tuned rungs: the candidates --tune searches (tuning_candidates)
  const char* shape = nullptr;  ///< the block shape, in words (tuned rungs and their candidates)
};

/// The shared_tile rung (src/shared_tile.cu, exercise 07.3): one step of rows [args.row_begin,
/// args.row_end), each block staging its cells' stars in shared memory.
void launch_shared_tile(const StepArgs& args, cudaStream_t stream);

/// Every rung, slowest first.
std::span<const Variant> variants();
/// Every configuration of the tuned rungs (pipelined, temporal_2, …), family by family: what --tune
/// times. Each has the family's name plus its shape, and runs the family's arithmetic bit for bit.
std::span<const Variant> tuning_candidates();
/// The tiled_vec4_prefetch family's shapes (src/kernels.cu).
std::span<const Variant> prefetch_tuning_candidates();
/// The rung or candidate called `name`; throws course::UsageError naming the rungs when there is none.
const Variant& find_variant(std::string_view name);
/// Every rung, then every candidate of every tuned family: what --variants may name.
std::vector<Variant> every_kernel();
/// The candidates --tune times for `rung` (empty for a rung with a fixed shape, and for a candidate:
/// naming one asks for that very shape).
std::vector<Variant> candidates_of(const Variant& rung);

/// The tuned rungs' untuned defaults (src/pipelined.cu): the first candidate of each family.
void launch_pipelined_default(const StepArgs& args, cudaStream_t stream);
void launch_temporal_2_default(const StepArgs& args, const PassTargets& targets, cudaStream_t stream);
void launch_temporal_3_default(const StepArgs& args, const PassTargets& targets, cudaStream_t stream);
void launch_temporal_4_default(const StepArgs& args, const PassTargets& targets, cudaStream_t stream);

/// The practical ceiling of a 12-byte cell update: prev[i] = 2·cur[i] − prev[i] over `cells` floats
/// (read two arrays, write one in place), one float4 per thread. Enqueued on `stream`, launch checked.
void launch_stream_ceiling(const float* cur, float* prev, std::size_t cells, cudaStream_t stream);

/// Bytes of DRAM traffic per cell update that the roofline counts: read u, read u_prev, write u_next.
/// The per-row (v·dt/h)² and the sponge factors are 1-D arrays: a few bytes per row, not per cell.
inline constexpr double bytes_per_cell = 12.0;

}  // namespace wave
