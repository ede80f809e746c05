/// \file kernels.cuh
/// \brief The single-GPU ladder: each rung a kernel that advances rows [row_begin, row_end) of one slab
/// by one leapfrog step, and the table of rungs that the driver, the tests and the lesson walk.
#pragma once
#include <cuda_runtime.h>

#include <span>
#include <string_view>

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

/// One rung of the ladder.
struct Variant {
  const char* name;
  StepLauncher launch;
  const char* teaches;       ///< what this rung changes, in a few words
  const char* reads_memory;  ///< how neighbours are fetched (for the table)
};

/// The shared_tile rung (src/shared_tile.cu, exercise 07.3): one step of rows [args.row_begin,
/// args.row_end), each block staging its cells' stars in shared memory.
void launch_shared_tile(const StepArgs& args, cudaStream_t stream);

/// Every rung, slowest first.
std::span<const Variant> variants();
/// The rung called `name`; throws course::UsageError naming the choices when there is none.
const Variant& find_variant(std::string_view name);

/// Bytes of DRAM traffic per cell update that the roofline counts: read u, read u_prev, write u_next.
/// The per-row (v·dt/h)² and the sponge factors are 1-D arrays: a few bytes per row, not per cell.
inline constexpr double bytes_per_cell = 12.0;

}  // namespace wave
