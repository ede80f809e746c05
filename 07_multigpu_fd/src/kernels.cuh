/// \file kernels.cuh
/// \brief The single-GPU ladder: each rung a kernel that advances rows [row_begin, row_end) of one slab
/// by one leapfrog step (one file per rung in src/rungs/), and the table of rungs that the driver, the
/// tests and the lesson walk (src/variant_table.cpp).
#pragma once
#include <cuda_runtime.h>

#include <span>
#include <string>
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
  int source_x = -1, source_y = -1; ///< local position of the source (source_y may be a ghost row, which a
                                    ///< temporal pass recomputes); a row no kernel computes when not here
  float source = 0.0f;              ///< value added at the source cell this step
};

/// StepArgs::source_y of a slab that neither owns the source's row nor keeps it among its ghost rows.
inline constexpr int no_source_row = -(1 << 30);

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

/// How a kernel is launched, worked out by its launcher's template from its template arguments: the
/// part of `wave_fd --list-variants` that needs no GPU (the runtime part asks cudaFuncGetAttributes and
/// the occupancy API about `entry`). The launch grid over a region of nx × rows cells is
/// ceil(nx / cells_x) × ceil(rows / rows_per_block) blocks (one block along y when rows_per_block is 0).
struct LaunchFacts {
  std::string kernel;              ///< the __global__ function and its template arguments, as the compiler names it
  const void* entry = nullptr;     ///< that function (host-side handle for the runtime's queries)
  int block_x = 1, block_y = 1;    ///< threads per block along x and y
  int cells_x = 1;                 ///< mesh columns one block covers (blocks of the pipelined rungs overlap)
  int rows_per_block = 0;          ///< mesh rows one block covers (0: every row of the region)
  int rows_per_thread = 0;         ///< rows each thread marches down (0: one cell per thread, or every row)
  int ring = 0;                    ///< depth of the cp.async copy ring, in rows (0: no ring)
  int min_blocks_per_sm = 0;       ///< __launch_bounds__' second argument (0: not given)
  int dynamic_smem_bytes = 0;      ///< dynamic shared memory per block
  int steps_per_pass = 1;          ///< time steps one launch advances
  bool ring_window = false;        ///< register windows kept as rings, the row loop unrolled 9 times
};

/// What a rung's launch facts say, in words: "128 threads, ring 8, 64 rows", "256 threads, 8 rows,
/// 2 blocks/SM" (the tune table's shape column).
std::string shape_words(const LaunchFacts& f);
/// The launch grid as a formula of the region (nx × rows): "ceil(nx / 512) x ceil(rows / 8)".
std::string grid_formula(const LaunchFacts& f);

/// One rung of the ladder, or one configuration of a tuned rung.
struct Variant {
  const char* name;
  StepLauncher launch;       ///< one step (a temporal rung's steps left over after its whole passes)
  const char* teaches;       ///< what this rung changes, in a few words
  const char* reads_memory;  ///< how neighbours are fetched (for the table)
  int steps_per_pass = 1;    ///< K: time steps per pass over memory (temporal rungs)
  PassLauncher pass = nullptr;  ///< K steps at once (steps_per_pass > 1)
  const char* family = nullptr; ///< tuned rungs: the candidates --tune searches (tuning_candidates)
  LaunchFacts (*facts)() = nullptr;  ///< how its kernel is launched (nullptr: exercise 07.3's rung, whose
                                     ///< shape is the exercise's answer)
  std::span<const Variant> (*candidates)() = nullptr;  ///< a tuned rung's family: the shapes --tune times
};

/// Ghost rows each slab keeps, and rows each halo exchange moves, when `slabs` slabs run rung `v`:
/// halo for a one-step rung (or one slab, whose ghost rows are the wall); halo · K for a temporal rung
/// that advances K steps per pass between exchanges, so its slabs exchange once per pass, not per step.
inline int exchange_depth(const Variant& v, int slabs) { return slabs > 1 ? halo * v.steps_per_pass : halo; }

/// The block shape of a tuned rung or candidate in words (shape_words of its facts); "" for a rung of
/// fixed shape.
std::string shape_of(const Variant& v);

/// Every rung, slowest first.
std::span<const Variant> variants();
/// Every configuration of the tuned rungs (tiled_vec4_prefetch, pipelined, temporal_2, …), family by
/// family in table order: what --tune times. Each has the family's name plus its shape, and runs the
/// family's arithmetic bit for bit.
std::vector<Variant> tuning_candidates();
/// The rung or candidate called `name`; throws course::UsageError naming the rungs when there is none.
const Variant& find_variant(std::string_view name);
/// Every rung, then every candidate of every tuned family: what --variants may name.
std::vector<Variant> every_kernel();
/// The candidates --tune times for `rung` (empty for a rung with a fixed shape, and for a candidate:
/// naming one asks for that very shape).
std::vector<Variant> candidates_of(const Variant& rung);

/// The practical ceiling of a 12-byte cell update: prev[i] = 2·cur[i] − prev[i] over `cells` floats
/// (read two arrays, write one in place), one float4 per thread. Enqueued on `stream`, launch checked.
/// src/rungs/stream_ceiling.cu.
void launch_stream_ceiling(const float* cur, float* prev, std::size_t cells, cudaStream_t stream);
/// The stream ceiling's kernel, as the rungs' facts describe theirs (one float4 per thread).
LaunchFacts stream_ceiling_facts();

/// Bytes of DRAM traffic per cell update that the roofline counts: read u, read u_prev, write u_next.
/// The per-row (v·dt/h)² and the sponge factors are 1-D arrays: a few bytes per row, not per cell.
inline constexpr double bytes_per_cell = 12.0;

}  // namespace wave
