/// \file tiled_vec4.cuh
/// \brief The family of the tiled_vec4 rungs (src/rungs/tiled_vec4.cu, tiled_vec4_prefetch.cu): as
/// tiled_l1, but each thread owns 4 adjacent columns as one float4. The three aligned 16-byte loads at
/// x − 4, x, x + 4 hold every x-neighbour of all four cells, so a cell costs about a quarter of the load
/// instructions, and every access is a full, aligned sector.
///   BX × BY threads per block, R rows per thread: the shapes are searched (--tune), not fixed here; the
///   tune table shows which the GPU at hand prefers (on the H100 and H200: short strips, many blocks).
///   kPrefetch: the two DRAM-bound loads of the next row (u at y + 5, u_prev at y + 1) are issued before
///   this row's arithmetic, so every warp keeps two rows of loads in flight instead of one.
#pragma once
#include "common/check.cuh"
#include "launch_facts.hpp"
#include "rungs.hpp"

namespace wave {
namespace {

__device__ __forceinline__ float4 load4(const float* p) { return __ldg(reinterpret_cast<const float4*>(p)); }
__device__ __forceinline__ float component(const float4& v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }

// [tiled_vec4]
template <int BX, int BY, int R, bool kPrefetch, int kMinBlocks>
__global__ void __launch_bounds__(BX * BY, kMinBlocks) step_tiled_vec4(StepArgs a) {
  const int x = (blockIdx.x * BX + threadIdx.x) * 4;
  const int y0 = a.row_begin + (blockIdx.y * BY + threadIdx.y) * R;
  const int nx = a.layout.nx;
  if (x >= nx || y0 >= a.row_end) return;  // no barriers below: threads may leave early
  const int pitch = a.layout.pitch;
  // x_origin and pitch are multiples of 4 floats: every float4 below is 16-byte aligned.
  const float* __restrict__ cur = a.cur + a.layout.index(x, y0);
  const float* __restrict__ prev = a.prev + a.layout.index(x, y0);
  float* __restrict__ next = a.next + a.layout.index(x, y0);
  const float4 damp_x = load4(a.damp_x + x);
  const int count = min(R, a.row_end - y0);

  float4 column[2 * halo + 1];
#pragma unroll
  for (int i = 0; i < 2 * halo; ++i) column[i] = load4(cur + (i - halo) * pitch);
  // Prefetched loads for the row about to be computed (used only when kPrefetch).
  float4 ahead_cur{}, ahead_prev{};
  if constexpr (kPrefetch) {
    ahead_cur = load4(cur + halo * pitch);
    ahead_prev = load4(prev);
  }

  // `has_next`: row r + 1 is this thread's too (its loads stay inside the slab and its ghost rows).
  const auto one_row = [&](int r, bool has_next) {
    float4 before;
    if constexpr (kPrefetch) {
      column[2 * halo] = ahead_cur;
      before = ahead_prev;
      if (has_next) {
        ahead_cur = load4(cur + (r + 1 + halo) * pitch);
        ahead_prev = load4(prev + (r + 1) * pitch);
      }
    } else {
      column[2 * halo] = load4(cur + (r + halo) * pitch);
      before = load4(prev + r * pitch);
    }
    const float4 left = load4(cur + r * pitch - 4), right = load4(cur + r * pitch + 4);
    const float row[12] = {left.x,        left.y,        left.z,        left.w,   //
                           column[4].x,   column[4].y,   column[4].z,   column[4].w,
                           right.x,       right.y,       right.z,       right.w};
    const int y = y0 + r;
    const float courant2 = __ldg(a.courant2 + y), damp_y = __ldg(a.damp_y + y);
    float out[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      out[j] = leapfrog_cell(row[4 + j], component(before, j),
                             ring_sum(row[3 + j], row[5 + j], component(column[3], j), component(column[5], j)),
                             ring_sum(row[2 + j], row[6 + j], component(column[2], j), component(column[6], j)),
                             ring_sum(row[1 + j], row[7 + j], component(column[1], j), component(column[7], j)),
                             ring_sum(row[0 + j], row[8 + j], component(column[0], j), component(column[8], j)), courant2,
                             mul_rn(component(damp_x, j), damp_y));
      if (y == a.source_y && x + j == a.source_x) out[j] = add_rn(out[j], a.source);
    }
    float* dst = next + r * pitch;
    if (x + 4 <= nx) {
      *reinterpret_cast<float4*>(dst) = make_float4(out[0], out[1], out[2], out[3]);
    } else {
      for (int j = 0; j < nx - x; ++j) dst[j] = out[j];  // the margin past nx must stay zero
    }
#pragma unroll
    for (int i = 0; i < 2 * halo; ++i) column[i] = column[i + 1];
  };
  if (count == R && R <= 32) {
#pragma unroll
    for (int r = 0; r < R; ++r) one_row(r, r + 1 < R);  // fully unrolled: the window slides by renaming
  } else if (count == R) {
    // Tall strips: unroll 16 rows at a time, so a 64- or 128-row kernel carries no more code than a
    // 32-row one (results/compiler/07_multigpu_fd.sm_90.txt gives the code size of every shape).
#pragma unroll 1
    for (int base = 0; base < R; base += 16) {
#pragma unroll
      for (int r = 0; r < 16; ++r) one_row(base + r, base + r + 1 < R);
    }
  } else {
    for (int r = 0; r < count; ++r) one_row(r, r + 1 < count);  // the last strip of a region
  }
}
// [tiled_vec4]

/// kMinBlocks: blocks per SM the register allocation must allow (1: no limit).
template <int BX, int BY, int R, bool kPrefetch, int kMinBlocks = 1>
void launch_tiled_vec4(const StepArgs& a, cudaStream_t stream) {
  using rungs::ceil_div;
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 grid(ceil_div(a.layout.nx, 4 * BX), ceil_div(rows, BY * R));
  step_tiled_vec4<BX, BY, R, kPrefetch, kMinBlocks><<<grid, dim3(BX, BY), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

template <int BX, int BY, int R, bool kPrefetch, int kMinBlocks = 1>
LaunchFacts tiled_vec4_facts() {
  LaunchFacts f;
  f.kernel = rungs::kernel_name("step_tiled_vec4", BX, BY, R, kPrefetch, kMinBlocks);
  f.entry = reinterpret_cast<const void*>(step_tiled_vec4<BX, BY, R, kPrefetch, kMinBlocks>);
  f.block_x = BX;
  f.block_y = BY;
  f.cells_x = 4 * BX;  // one float4 (4 columns) per thread
  f.rows_per_block = BY * R;
  f.rows_per_thread = R;
  f.min_blocks_per_sm = kMinBlocks;
  return f;
}

}  // namespace
}  // namespace wave
