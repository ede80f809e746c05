// tiled_l1: 2-D blocks, each thread R rows of one column with the register window; the x-neighbours
// straight from L1 (the neighbouring threads of the warp loaded the same lines), so no shared memory
// and no barrier. Padded arrays: no bounds checks.
#include "common/check.cuh"
#include "launch_facts.hpp"
#include "rungs.hpp"

namespace wave {
namespace {

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
  using rungs::ceil_div;
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 grid(ceil_div(a.layout.nx, BX), ceil_div(rows, BY * R));
  step_tiled_l1<BX, BY, R><<<grid, dim3(BX, BY), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

template <int BX, int BY, int R>
LaunchFacts tiled_l1_facts() {
  LaunchFacts f;
  f.kernel = rungs::kernel_name("step_tiled_l1", BX, BY, R);
  f.entry = reinterpret_cast<const void*>(step_tiled_l1<BX, BY, R>);
  f.block_x = BX;
  f.block_y = BY;
  f.cells_x = BX;
  f.rows_per_block = BY * R;
  f.rows_per_thread = R;
  return f;
}

}  // namespace

void rungs::tiled_l1(const StepArgs& a, cudaStream_t stream) { launch_tiled_l1<32, 8, 16>(a, stream); }
LaunchFacts rungs::tiled_l1_facts() { return wave::tiled_l1_facts<32, 8, 16>(); }

}  // namespace wave
