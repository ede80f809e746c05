/// \file pipelined.cuh
/// \brief The family of the pipelined rungs (src/rungs/pipelined.cu, temporal_2.cu, temporal_3.cu,
/// temporal_4.cu).
/// The pipelined rungs: asynchronous copies keep many rows of u and u_prev on their way into shared
/// memory while the block computes (pipelined_*), and the same kernel advancing K time steps per pass
/// over memory (temporal_*). One kernel, templated on the block width, the steps per pass and the depth
/// of the copy ring.
///
/// A block owns a strip of BX float4 columns and marches down its rows. Iteration i brings input row i
/// (u_t, and u_{t-1} four rows behind it) into a ring of S shared-memory slots with cp.async, issued
/// S − 5 iterations ahead; level s (u_{t+s}, s = 1 … K) is computed for row i − 4s in the same iteration.
/// Each thread keeps the nine rows of its own column of every level in registers (the y-neighbours) and
/// reads the x-neighbours from shared memory: level 0 from the copy ring, the computed levels from a
/// ring of eight rows each. Level s is valid on threads s … BX − s − 1 (each level needs one float4 of
/// the level below on either side), so a block writes BX − 2K float4 columns and the strips overlap.
/// Every value outside the grid is set to zero, as the rigid wall of the single-step rungs stores it, and
/// every cell goes through leapfrog_cell: K steps here give the bits of K single steps.
#pragma once
#include <cuda_pipeline_primitives.h>

#include <string>
#include <utility>

#include "common/check.cuh"
#include "common/errors.hpp"
#include "launch_facts.hpp"
#include "rungs.hpp"

namespace wave {
namespace {

/// Rows of each computed level kept for the x-neighbours: row r is written in iteration i and read in
/// iteration i + 4 (as the centre row of the next level), so 5 would do; 8 makes the index a mask.
constexpr int kLevelRing = 8;

/// The block's shared memory, in float4s: u_t rows (row r in slot r mod S: rows i − 4 … i are read as
/// x-neighbours, the next S − 5 are on their way), u_{t-1} rows (row r − 4, copied with u_t row r, in slot
/// r mod (S − 4): each is read once, in the iteration it lands, so it needs a slot only while in flight),
/// then levels 1 … K−1 (row r in slot r mod 8). The smaller u_{t-1} ring leaves room for one more block
/// per SM in some shapes (temporal_3 at S = 8: 56 KiB, four blocks, where 2·S slots took 64 KiB and three).
template <int BX, int K, int S>
struct PipelineShared {
  static constexpr int prev_slots = S - 4;
  static constexpr int floats4 = (S + prev_slots + (K - 1) * kLevelRing) * BX;
  float4* base;
  __device__ float4* u(int slot) const { return base + slot * BX; }
  __device__ float4* prev(int slot) const { return base + (S + slot) * BX; }
  __device__ float4* level(int s, int row) const {
    return base + (S + prev_slots + (s - 1) * kLevelRing + (row & (kLevelRing - 1))) * BX;
  }
};

__device__ __forceinline__ float component(const float4& v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }
__device__ __forceinline__ void set_component(float4& v, int j, float f) {
  if (j == 0) v.x = f;
  else if (j == 1) v.y = f;
  else if (j == 2) v.z = f;
  else v.w = f;
}

/// One level of one row for this thread's four columns: centre window `w` (rows y − 4 … y + 4 of the
/// level below), x-neighbours `left`/`right` (the float4 columns either side, same row), `before` the
/// value two levels below (u_prev). Cells outside the grid come out zero.
template <class Window>  // w(j): the level below, row y − 4 + j (j = 0 … 8), a compile-time j after unrolling
__device__ __forceinline__ float4 level_row(const StepArgs& a, Window w, const float4& left, const float4& right,
                                           const float4& before, int x, int y, float source) {
  const int nx = a.layout.nx;
  const int gy = a.global_row0 + y;
  float4 out = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  // The wall outside the grid; a slab's ghost rows inside it are computed (a pass's deeper levels need
  // them), rows past its ghost rows are not stored.
  if (gy < 0 || gy >= a.ny_global || y < -a.layout.ghost || y >= a.layout.rows + a.layout.ghost || x < 0 || x >= nx)
    return out;
  const float courant2 = __ldg(a.courant2 + y), damp_y = __ldg(a.damp_y + y);
  const float4 damp_x = __ldg(reinterpret_cast<const float4*>(a.damp_x + x));  // zero past nx
  const float4 centre = w(4);
  const float row[12] = {left.x, left.y, left.z, left.w, centre.x, centre.y, centre.z, centre.w,
                         right.x, right.y, right.z, right.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float v = leapfrog_cell(row[4 + j], component(before, j),
                            ring_sum(row[3 + j], row[5 + j], component(w(3), j), component(w(5), j)),
                            ring_sum(row[2 + j], row[6 + j], component(w(2), j), component(w(6), j)),
                            ring_sum(row[1 + j], row[7 + j], component(w(1), j), component(w(7), j)),
                            ring_sum(row[0 + j], row[8 + j], component(w(0), j), component(w(8), j)), courant2,
                            mul_rn(component(damp_x, j), damp_y));
    if (y == a.source_y && x + j == a.source_x) v = add_rn(v, source);
    set_component(out, j, x + j < nx ? v : 0.0f);  // the margin past nx stays zero
  }
  return out;
}

/// Rows of each level's register window: the centre row and `halo` either side.
constexpr int kWindow = 2 * halo + 1;

// [pipelined_kernel]
/// kRingWindow: the register windows are rings (row r of a level in slot r mod 9) and the loop over rows
/// is unrolled nine times, so every slot index is a constant and no register moves shift the windows;
/// otherwise each iteration shifts every window by one row (8 float4 moves per level).
template <int BX, int K, int S, int kMinBlocks, bool kRingWindow = false>
__global__ void __launch_bounds__(BX, kMinBlocks) step_pipelined(StepArgs a, PassTargets t, int rows_per_block) {
  static_assert(S >= 6, "the ring must hold the 5 rows in use and one on its way");
  constexpr int kAhead = S - 5;  // iterations whose copies are in flight
  extern __shared__ float4 shared_raw[];
  const PipelineShared<BX, K, S> sh{shared_raw};

  const int tx = threadIdx.x;
  const int nx = a.layout.nx;
  const int x = (blockIdx.x * (BX - 2 * K) - K + tx) * 4;  // first of this thread's four columns
  const int y_first = a.row_begin + blockIdx.y * rows_per_block;  // rows of level K this block writes
  const int y_last = min(y_first + rows_per_block, a.row_end);
  const int i_begin = y_first - 4 * K;         // input row of the first iteration
  const int iterations = y_last - y_first + 8 * K;

  // Iteration `it` needs u_t row i_begin + it and u_{t-1} row i_begin + it − 4. Outside the slab's
  // stored rows, or right of the grid, the copy fills zeros and reads nothing.
  const auto issue = [&](int it) {
    if (it < iterations) {
      const int row = i_begin + it;
      const bool x_in = x >= 0 && x < nx;
      const int ghost = a.layout.ghost;
      const bool u_in = x_in && row >= -ghost && row < a.layout.rows + ghost;
      // u_{t-1} is first needed by level 1's first useful row, in iteration 8.
      const bool p_in = x_in && it >= 8 && row - 4 >= -ghost && row - 4 < a.layout.rows + ghost;
      const float* u_src = u_in ? a.cur + a.layout.index(x, row) : a.cur;
      const float* p_src = p_in ? a.prev + a.layout.index(x, row - 4) : a.prev;
      __pipeline_memcpy_async(sh.u(it % S) + tx, u_src, 16, u_in ? 0 : 16);
      __pipeline_memcpy_async(sh.prev(it % sh.prev_slots) + tx, p_src, 16, p_in ? 0 : 16);
    }
    __pipeline_commit();  // one group per iteration, empty or not: the wait below counts groups
  };
  for (int it = 0; it < kAhead; ++it) issue(it);

  // window[s]: level s's last 9 rows. Slot of row (newest − 8 + j) in iteration `it`: (it + 1 + j) mod 9
  // for a ring (the newest goes to slot it mod 9); j itself when the window is shifted every iteration
  // (then the body runs with U = 8, which makes the same formula give j).
  float4 window[K][kWindow];
#pragma unroll
  for (int s = 0; s < K; ++s)
#pragma unroll
    for (int j = 0; j < kWindow; ++j) window[s][j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  // One iteration: U is `it` mod 9 for a ring (a constant of each unrolled copy), 8 otherwise.
  const auto iteration = [&]<int U>(int it) {
    const auto slot = [](int j) { return (U + 1 + j) % kWindow; };
    __pipeline_wait_prior(kAhead - 1);  // this thread's copies for iteration `it` have landed
    __syncthreads();                    // everyone's have; and iteration it − 1 is done with its slots
    issue(it + kAhead);  // into the slot of row i − 5, whose last reader was iteration it − 1
    const int i = i_begin + it;
    window[0][slot(halo * 2)] = sh.u(it % S)[tx];

#pragma unroll
    for (int s = 1; s <= K; ++s) {
      const int y = i - 4 * s;  // the row level s computes in this iteration
      if (tx < s || tx >= BX - s) continue;   // no neighbour column of level s − 1 on one side
      if (y < y_first - 4 * (K - s)) continue;  // a row no later level needs (the ring fills first)
      float4 left, right, before;
      if (s == 1) {
        left = sh.u((it + S - 4) % S)[tx - 1];  // level 0, row i − 4
        right = sh.u((it + S - 4) % S)[tx + 1];
        before = sh.prev(it % sh.prev_slots)[tx];
      } else {
        left = sh.level(s - 1, y)[tx - 1];
        right = sh.level(s - 1, y)[tx + 1];
        before = window[s - 2][slot(0)];  // level s − 2, row y
      }
      const float4 v = level_row(a, [&](int j) -> const float4& { return window[s - 1][slot(j)]; }, left, right,
                                 before, x, y, t.sources[s - 1]);
      if (s < K) {
        window[s][slot(halo * 2)] = v;
        sh.level(s, y)[tx] = v;
      } else if (y >= y_first && tx >= K && tx < BX - K && x < nx) {
        float* dst = a.next + a.layout.index(x, y);
        if (x + 4 <= nx) *reinterpret_cast<float4*>(dst) = v;
        else
          for (int j = 0; j < nx - x; ++j) dst[j] = component(v, j);
        if constexpr (K > 1) {
          const float4 p = window[K - 1][slot(halo)];  // level K − 1, row y
          float* pdst = t.next_prev + a.layout.index(x, y);
          if (x + 4 <= nx) *reinterpret_cast<float4*>(pdst) = p;
          else
            for (int j = 0; j < nx - x; ++j) pdst[j] = component(p, j);
        }
      }
    }
  };

  if constexpr (kRingWindow) {
    // `iterations` is the same for every thread of the block: the barriers inside stay uniform.
    for (int it0 = 0; it0 < iterations; it0 += kWindow)
      [&]<int... U>(std::integer_sequence<int, U...>) {
        ((it0 + U < iterations ? iteration.template operator()<U>(it0 + U) : void()), ...);
      }(std::make_integer_sequence<int, kWindow>{});
  } else {
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
      for (int s = 0; s < K; ++s)
#pragma unroll
        for (int j = 0; j + 1 < kWindow; ++j) window[s][j] = window[s][j + 1];
      iteration.template operator()<kWindow - 1>(it);
    }
  }
  __pipeline_wait_prior(0);  // no copy outlives the block
}
// [pipelined_kernel]

/// kMinBlocks: blocks per SM the register allocation must allow (1: no limit).
template <int BX, int K, int S, int kMinBlocks, bool kRingWindow = false>
void launch_pipelined_pass(const StepArgs& a, const PassTargets& t, int rows_per_block, cudaStream_t stream) {
  using rungs::ceil_div;
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  // K steps of rows next to a neighbour's need its rows halo · K deep; a slab that is the whole grid
  // has the wall there instead (zero, read as zero by the copies).
  const bool whole_grid = a.global_row0 == 0 && a.layout.rows == a.ny_global;
  if (K > 1 && !whole_grid && a.layout.ghost < halo * K)
    throw course::UsageError("a temporal rung's pass of " + std::to_string(K) + " steps needs " +
                             std::to_string(halo * K) + " ghost rows in a slab with neighbours, this one has " +
                             std::to_string(a.layout.ghost));
  constexpr int bytes = PipelineShared<BX, K, S>::floats4 * static_cast<int>(sizeof(float4));
  // Over 48 KiB of shared memory must be asked for, per device: the call costs less than a launch.
  if constexpr (bytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(step_pipelined<BX, K, S, kMinBlocks, kRingWindow>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  const dim3 grid(ceil_div(a.layout.nx, 4 * (BX - 2 * K)), ceil_div(rows, rows_per_block));
  step_pipelined<BX, K, S, kMinBlocks, kRingWindow><<<grid, BX, bytes, stream>>>(a, t, rows_per_block);
  CUDA_CHECK_LAUNCH();
}

/// One step (K = 1) of rows [a.row_begin, a.row_end): a StepLauncher.
template <int BX, int S, int kRowsPerBlock, int kMinBlocks = 1>
void launch_pipelined(const StepArgs& a, cudaStream_t stream) {
  PassTargets t;
  t.sources[0] = a.source;
  launch_pipelined_pass<BX, 1, S, kMinBlocks>(a, t, kRowsPerBlock, stream);
}

/// K steps of the rows of a slab: a PassLauncher.
template <int BX, int K, int S, int kRowsPerBlock, int kMinBlocks = 1, bool kRingWindow = false>
void launch_temporal(const StepArgs& a, const PassTargets& t, cudaStream_t stream) {
  launch_pipelined_pass<BX, K, S, kMinBlocks, kRingWindow>(a, t, kRowsPerBlock, stream);
}

template <int BX, int K, int S, int kRowsPerBlock, int kMinBlocks = 1, bool kRingWindow = false>
LaunchFacts pipelined_facts() {
  LaunchFacts f;
  f.kernel = rungs::kernel_name("step_pipelined", BX, K, S, kMinBlocks, kRingWindow);
  f.entry = reinterpret_cast<const void*>(step_pipelined<BX, K, S, kMinBlocks, kRingWindow>);
  f.block_x = BX;
  f.cells_x = 4 * (BX - 2 * K);  // strips overlap by K float4 columns each side
  f.rows_per_block = kRowsPerBlock;
  f.ring = S;
  f.min_blocks_per_sm = kMinBlocks;
  f.dynamic_smem_bytes = PipelineShared<BX, K, S>::floats4 * static_cast<int>(sizeof(float4));
  f.steps_per_pass = K;
  f.ring_window = kRingWindow;
  return f;
}

constexpr const char* kReads = "cp.async ring (shared) + registers";

}  // namespace
}  // namespace wave
