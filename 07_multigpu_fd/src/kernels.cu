#include "kernels.cuh"

#include <algorithm>
#include <iterator>
#include <string>

#include "common/check.cuh"
#include "common/errors.hpp"

namespace wave {
namespace {

constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Rung 1: one thread per cell, every neighbour fetched from global memory behind a bounds check.
// [naive_global]
__global__ void step_naive_global(StepArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = a.row_begin + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.layout.nx || y >= a.row_end) return;
  const int global_y = a.global_row0 + y;
  const auto u = [&](int dx, int dy) -> float {
    const bool inside = x + dx >= 0 && x + dx < a.layout.nx && global_y + dy >= 0 && global_y + dy < a.ny_global;
    return inside ? a.cur[a.layout.index(x + dx, y + dy)] : 0.0f;  // outside the grid: rigid wall, u = 0
  };
  const std::size_t i = a.layout.index(x, y);
  float out = leapfrog_cell(u(0, 0), a.prev[i], ring_sum(u(-1, 0), u(1, 0), u(0, -1), u(0, 1)),
                            ring_sum(u(-2, 0), u(2, 0), u(0, -2), u(0, 2)),
                            ring_sum(u(-3, 0), u(3, 0), u(0, -3), u(0, 3)),
                            ring_sum(u(-4, 0), u(4, 0), u(0, -4), u(0, 4)), a.courant2[y],
                            mul_rn(a.damp_x[x], a.damp_y[y]));
  if (y == a.source_y && x == a.source_x) out = add_rn(out, a.source);
  a.next[i] = out;
}
// [naive_global]

void launch_naive_global(const StepArgs& a, cudaStream_t stream) {
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 block(32, 16);
  const dim3 grid(ceil_div(a.layout.nx, 32), ceil_div(rows, 16));
  step_naive_global<<<grid, block, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// Rungs 3–6: the book's kernel. A block of BDIMX threads owns BDIMX columns and marches down
// `rows_per_block` rows. Each thread keeps the 9 values of its own column (y − 4 … y + 4) in registers
// and slides them down one row per iteration; the x-neighbours come from a shared line of BDIMX + 8.
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
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const int rows_per_block = kRowsPerBlock > 0 ? kRowsPerBlock : rows;
  const dim3 grid(ceil_div(a.layout.nx, BDIMX), ceil_div(rows, rows_per_block));
  step_shared_line<BDIMX, kReadOnly, kPadded><<<grid, BDIMX, 0, stream>>>(a, rows_per_block);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// Rung 7: 2-D blocks, each thread R rows of one column with the register window; the x-neighbours
// straight from L1 (the neighbouring threads of the warp loaded the same lines), so no shared memory
// and no barrier. Padded arrays: no bounds checks.
// [tiled_l1]
template <int BX, int BY, int R>
__global__ void __launch_bounds__(BX * BY) step_tiled_l1(StepArgs a) {
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y0 = a.row_begin + (blockIdx.y * BY + threadIdx.y) * R;
  if (x >= a.layout.nx || y0 >= a.row_end) return;  // no barriers below: threads may leave early
  const int pitch = a.layout.pitch;
  const float* __restrict__ cur = a.cur + a.layout.index(x, y0);
  const float* __restrict__ prev = a.prev + a.layout.index(x, y0);
  float* __restrict__ next = a.next + a.layout.index(x, y0);
  const float damp_x = __ldg(a.damp_x + x);

  float column[2 * halo + 1];
#pragma unroll
  for (int i = 0; i < 2 * halo; ++i) column[i] = __ldg(cur + (i - halo) * pitch);

  const auto one_row = [&](int r) {
    column[2 * halo] = __ldg(cur + (r + halo) * pitch);
    const float* c = cur + r * pitch;
    const int y = y0 + r;
    float out = leapfrog_cell(column[4], __ldg(prev + r * pitch), ring_sum(__ldg(c - 1), __ldg(c + 1), column[3], column[5]),
                              ring_sum(__ldg(c - 2), __ldg(c + 2), column[2], column[6]),
                              ring_sum(__ldg(c - 3), __ldg(c + 3), column[1], column[7]),
                              ring_sum(__ldg(c - 4), __ldg(c + 4), column[0], column[8]), __ldg(a.courant2 + y),
                              mul_rn(damp_x, __ldg(a.damp_y + y)));
    if (y == a.source_y && x == a.source_x) out = add_rn(out, a.source);
    next[r * pitch] = out;
#pragma unroll
    for (int i = 0; i < 2 * halo; ++i) column[i] = column[i + 1];
  };
  const int count = min(R, a.row_end - y0);
  if (count == R) {
#pragma unroll
    for (int r = 0; r < R; ++r) one_row(r);  // fully unrolled: the window slides by renaming registers
  } else {
    for (int r = 0; r < count; ++r) one_row(r);  // the last strip of a region
  }
}
// [tiled_l1]

template <int BX, int BY, int R>
void launch_tiled_l1(const StepArgs& a, cudaStream_t stream) {
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 grid(ceil_div(a.layout.nx, BX), ceil_div(rows, BY * R));
  step_tiled_l1<BX, BY, R><<<grid, dim3(BX, BY), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// Rungs 8–9 (and the tiled_vec4_prefetch shapes of the tune table): as tiled_l1, but each thread owns
// 4 adjacent columns as one float4. The three aligned 16-byte loads at x − 4, x, x + 4 hold every
// x-neighbour of all four cells, so a cell costs about a quarter of the load instructions, and every
// access is a full, aligned sector.
//   BX × BY threads per block, R rows per thread: the shapes are searched (--tune), not fixed here; the
//   tune table shows which the GPU at hand prefers (on the H100 and H200: short strips, many blocks).
//   kPrefetch: the two DRAM-bound loads of the next row (u at y + 5, u_prev at y + 1) are issued before
//   this row's arithmetic, so every warp keeps two rows of loads in flight instead of one.
__device__ __forceinline__ float4 load4(const float* p) { return __ldg(reinterpret_cast<const float4*>(p)); }
__device__ __forceinline__ float lane(const float4& v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }

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
      out[j] = leapfrog_cell(row[4 + j], lane(before, j),
                             ring_sum(row[3 + j], row[5 + j], lane(column[3], j), lane(column[5], j)),
                             ring_sum(row[2 + j], row[6 + j], lane(column[2], j), lane(column[6], j)),
                             ring_sum(row[1 + j], row[7 + j], lane(column[1], j), lane(column[7], j)),
                             ring_sum(row[0 + j], row[8 + j], lane(column[0], j), lane(column[8], j)), courant2,
                             mul_rn(lane(damp_x, j), damp_y));
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
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 grid(ceil_div(a.layout.nx, 4 * BX), ceil_div(rows, BY * R));
  step_tiled_vec4<BX, BY, R, kPrefetch, kMinBlocks><<<grid, dim3(BX, BY), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

// [variant_table]
constexpr Variant variant_table[] = {
    {"naive_global", launch_naive_global, "one thread per cell; 17 global loads, each behind a bounds check",
     "global"},
    {"shared_tile", launch_shared_tile,
     "the textbook stencil: each block stages its tile of cells and their 4-cell border in shared memory",
     "shared (2-D tile)"},
    {"shared_line", launch_shared_line<32, false, false, 0>,
     "the book's kernel: 32-thread blocks march down all rows; x from a shared line, y from a register window",
     "shared + registers"},
    {"shared_line_ldg", launch_shared_line<32, true, false, 0>, "+ loads through the read-only cache (__ldg)",
     "shared + registers"},
    {"shared_line_padded", launch_shared_line<32, true, true, 0>,
     "+ padded arrays: the zero boundary is stored, no bounds checks", "shared + registers"},
    {"shared_line_tuned", launch_shared_line<128, true, true, 64>,
     "+ the rows split among blocks (128 threads x 64 rows): enough blocks to fill every SM", "shared + registers"},
    {"tiled_l1", launch_tiled_l1<32, 8, 16>,
     "2-D blocks, 16 rows per thread, x-neighbours straight from L1: no shared memory, no barrier", "L1 + registers"},
    {"tiled_vec4", launch_tiled_vec4<32, 8, 16, false, 3>,
     "+ float4: 4 columns per thread, 3 aligned loads give all x-neighbours", "L1 (float4) + registers"},
    {"tiled_vec4_prefetch", launch_tiled_vec4<128, 1, 8, true, 5>,
     "+ the next row's loads issued before this row's arithmetic; short strips, many blocks per SM (shape tuned)",
     "L1 (float4) + registers", 1, nullptr, "tiled_vec4_prefetch", "128 threads, 8 rows, 5 blocks/SM"},
    {"pipelined", launch_pipelined_default,
     "+ cp.async into a ring of shared-memory rows: many rows in flight per block while it computes; shape tuned",
     "cp.async ring + registers", 1, nullptr, "pipelined", "128 threads, ring 8, 64 rows"},
    {"temporal_2", launch_pipelined_default,
     "+ 2 time steps per pass over memory: the first step's rows stay on chip for the second (16 bytes per 2 steps)",
     "cp.async ring + registers", 2, launch_temporal_2_default, "temporal_2", "128 threads, ring 8, 128 rows"},
    {"temporal_3", launch_pipelined_default,
     "+ 3 time steps per pass (16 bytes per 3 steps); each step recomputes a wider halo",
     "cp.async ring + registers", 3, launch_temporal_3_default, "temporal_3", "128 threads, ring 8, 128 rows"},
    {"temporal_4", launch_pipelined_default,
     "+ 4 time steps per pass (16 bytes per 4 steps); four levels of registers per thread",
     "cp.async ring + registers", 4, launch_temporal_4_default, "temporal_4", "128 threads, ring 8, 256 rows"},
};
// [variant_table]

/// The tiled_vec4_prefetch family's shapes: threads side by side (BX float4 columns, one warp row), rows
/// per thread, and the blocks per SM the register budget must allow (which caps registers per thread).
/// The pipelined families are in src/pipelined.cu.
constexpr Variant prefetch_candidates[] = {
    {"wide_vec4_prefetch_r8_b128_m5", launch_tiled_vec4<128, 1, 8, true, 5>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 8 rows, 5 blocks/SM"},
    {"wide_vec4_prefetch_r64", launch_tiled_vec4<128, 1, 64, true, 4>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 64 rows, 4 blocks/SM"},
    {"wide_vec4_prefetch_r128", launch_tiled_vec4<128, 1, 128, true, 4>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 128 rows, 4 blocks/SM"},
    {"wide_vec4_prefetch", launch_tiled_vec4<256, 1, 32, true, 2>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "256 threads, 32 rows, 2 blocks/SM"},
    {"wide_vec4_prefetch_r16_b256", launch_tiled_vec4<256, 1, 16, true, 2>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "256 threads, 16 rows, 2 blocks/SM"},
    {"wide_vec4_prefetch_r8_b256", launch_tiled_vec4<256, 1, 8, true, 2>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "256 threads, 8 rows, 2 blocks/SM"},
    {"wide_vec4_prefetch_r8_b256_m3", launch_tiled_vec4<256, 1, 8, true, 3>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "256 threads, 8 rows, 3 blocks/SM"},
    {"wide_vec4_prefetch_r6_b256_m3", launch_tiled_vec4<256, 1, 6, true, 3>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "256 threads, 6 rows, 3 blocks/SM"},
    {"wide_vec4_prefetch_r8_b128_m6", launch_tiled_vec4<128, 1, 8, true, 6>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 8 rows, 6 blocks/SM"},
    {"wide_vec4_prefetch_r6_b128_m5", launch_tiled_vec4<128, 1, 6, true, 5>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 6 rows, 5 blocks/SM"},
    {"wide_vec4_prefetch_r12_b128_m5", launch_tiled_vec4<128, 1, 12, true, 5>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 12 rows, 5 blocks/SM"},
    {"wide_vec4_prefetch_r10_b128_m5", launch_tiled_vec4<128, 1, 10, true, 5>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "128 threads, 10 rows, 5 blocks/SM"},
    {"wide_vec4_prefetch_r12_b64_m10", launch_tiled_vec4<64, 1, 12, true, 10>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "64 threads, 12 rows, 10 blocks/SM"},
    {"wide_vec4_prefetch_r8_b64_m10", launch_tiled_vec4<64, 1, 8, true, 10>, "", "L1 (float4) + registers", 1, nullptr,
     "tiled_vec4_prefetch", "64 threads, 8 rows, 10 blocks/SM"},
};

}  // namespace

std::span<const Variant> variants() { return variant_table; }

std::span<const Variant> prefetch_tuning_candidates() { return prefetch_candidates; }

std::vector<Variant> every_kernel() {
  std::vector<Variant> all(std::begin(variant_table), std::end(variant_table));
  all.insert(all.end(), std::begin(prefetch_candidates), std::end(prefetch_candidates));
  for (const Variant& v : tuning_candidates()) all.push_back(v);
  return all;
}

std::vector<Variant> candidates_of(const Variant& rung) {
  std::vector<Variant> found;
  const bool is_rung = std::any_of(std::begin(variant_table), std::end(variant_table),
                                   [&](const Variant& v) { return std::string_view(v.name) == rung.name; });
  if (rung.family == nullptr || !is_rung) return found;
  for (const Variant& v : every_kernel())
    if (v.family != nullptr && std::string_view(v.family) == rung.family &&
        std::string_view(v.name) != rung.name)
      found.push_back(v);
  return found;
}

const Variant& find_variant(std::string_view name) {
  std::string names;
  for (const Variant& v : variant_table) {
    if (name == v.name) return v;
    names += names.empty() ? "" : ", ";
    names += v.name;
  }
  for (const Variant& v : prefetch_candidates)
    if (name == v.name) return v;
  for (const Variant& v : tuning_candidates())
    if (name == v.name) return v;
  throw course::UsageError("unknown variant '" + std::string(name) + "' (choose from: " + names +
                           ", or a --tune candidate)");
}

}  // namespace wave
