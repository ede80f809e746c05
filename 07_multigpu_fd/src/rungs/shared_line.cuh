/// \file shared_line.cuh
/// \brief The book's kernel, the family of the shared_line rungs (src/rungs/shared_line*.cu): a block of
/// BDIMX threads owns BDIMX columns and marches down `rows_per_block` rows. Each thread keeps the 9 values
/// of its own column (y − 4 … y + 4) in registers and slides them down one row per iteration; the
/// x-neighbours come from a shared line of BDIMX + 8. Each rung's file picks the template arguments:
/// plain loads or the read-only cache, bounds checks or padded arrays, all rows per block or a split.
#pragma once
#include "common/check.cuh"
#include "launch_facts.hpp"
#include "rungs.hpp"

namespace wave {
namespace {

template <bool kReadOnly>
__device__ __forceinline__ float load(const float* p) {
  if constexpr (kReadOnly) return __ldg(p);  // the read-only (texture) path: no coherence with writes
  else return *p;
}

// [shared_line]
template <int BDIMX, bool kReadOnly, bool kPadded>
__global__ void __launch_bounds__(BDIMX) step_shared_line(StepArgs a, int rows_per_block) {
  __shared__ float line[BDIMX + 2 * halo];
  const int tx = threadIdx.x;
  const int x_block = blockIdx.x * BDIMX;
  const int x = x_block + tx;
  const int nx = a.layout.nx;
  const int y_begin = a.row_begin + blockIdx.y * rows_per_block;
  if (y_begin >= a.row_end) return;  // whole block: no barrier is skipped by only some threads
  const int y_end = min(y_begin + rows_per_block, a.row_end);

  // u(xx, yy) for this slab; 0 outside the grid.
  const auto value = [&](int xx, int yy) -> float {
    if constexpr (kPadded) {
      // The margins and ghost rows hold the zeros: no test per neighbour. The one test left keeps the
      // threads of a partial last block inside the row.
      return xx < nx + halo ? load<kReadOnly>(a.cur + a.layout.index(xx, yy)) : 0.0f;
    } else {
      const int gy = a.global_row0 + yy;
      return xx >= 0 && xx < nx && gy >= 0 && gy < a.ny_global ? load<kReadOnly>(a.cur + a.layout.index(xx, yy))
                                                               : 0.0f;
    }
  };

  float column[2 * halo + 1];  // u(x, y − 4) … u(x, y + 4): the register window
  for (int i = 0; i < 2 * halo; ++i) column[i] = value(x, y_begin - halo + i);
  const float damp_x = x < nx ? load<kReadOnly>(a.damp_x + x) : 0.0f;

  for (int y = y_begin; y < y_end; ++y) {
    column[2 * halo] = value(x, y + halo);
    line[tx + halo] = column[halo];
    if (tx < halo) {
      line[tx] = value(x_block - halo + tx, y);
      line[tx + BDIMX + halo] = value(x_block + BDIMX + tx, y);
    }
    __syncthreads();
    if (x < nx) {
      const std::size_t i = a.layout.index(x, y);
      const float* s = line + tx + halo;
      float out = leapfrog_cell(column[4], load<kReadOnly>(a.prev + i), ring_sum(s[-1], s[1], column[3], column[5]),
                                ring_sum(s[-2], s[2], column[2], column[6]),
                                ring_sum(s[-3], s[3], column[1], column[7]),
                                ring_sum(s[-4], s[4], column[0], column[8]), load<kReadOnly>(a.courant2 + y),
                                mul_rn(damp_x, load<kReadOnly>(a.damp_y + y)));
      if (y == a.source_y && x == a.source_x) out = add_rn(out, a.source);
      a.next[i] = out;
    }
    __syncthreads();  // the line is rewritten next iteration
#pragma unroll
    for (int i = 0; i < 2 * halo; ++i) column[i] = column[i + 1];
  }
}
// [shared_line]

/// rows_per_block = 0: the book's shape, one block per BDIMX columns for the whole height.
template <int BDIMX, bool kReadOnly, bool kPadded, int kRowsPerBlock>
void launch_shared_line(const StepArgs& a, cudaStream_t stream) {
  using rungs::ceil_div;
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const int rows_per_block = kRowsPerBlock > 0 ? kRowsPerBlock : rows;
  const dim3 grid(ceil_div(a.layout.nx, BDIMX), ceil_div(rows, rows_per_block));
  step_shared_line<BDIMX, kReadOnly, kPadded><<<grid, BDIMX, 0, stream>>>(a, rows_per_block);
  CUDA_CHECK_LAUNCH();
}

template <int BDIMX, bool kReadOnly, bool kPadded, int kRowsPerBlock>
LaunchFacts shared_line_facts() {
  LaunchFacts f;
  f.kernel = rungs::kernel_name("step_shared_line", BDIMX, kReadOnly, kPadded);
  f.entry = reinterpret_cast<const void*>(step_shared_line<BDIMX, kReadOnly, kPadded>);
  f.block_x = BDIMX;
  f.cells_x = BDIMX;
  f.rows_per_block = kRowsPerBlock;   // 0: the whole height, one block per BDIMX columns
  f.rows_per_thread = kRowsPerBlock;  // every thread marches down all of its block's rows
  return f;
}

}  // namespace
}  // namespace wave
