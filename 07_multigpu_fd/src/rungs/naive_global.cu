// naive_global: one thread per cell, every neighbour fetched from global memory behind a bounds check.
// The first rung: every other rung's field is compared with this one's, bit for bit.
#include "common/check.cuh"
#include "launch_facts.hpp"
#include "rungs.hpp"

namespace wave {
namespace {

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

constexpr int block_x = 32, block_y = 16;

}  // namespace

void rungs::naive_global(const StepArgs& a, cudaStream_t stream) {
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 block(block_x, block_y);
  const dim3 grid(ceil_div(a.layout.nx, block_x), ceil_div(rows, block_y));
  step_naive_global<<<grid, block, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}

LaunchFacts rungs::naive_global_facts() {
  LaunchFacts f;
  f.kernel = "step_naive_global";
  f.entry = reinterpret_cast<const void*>(step_naive_global);
  f.block_x = block_x;
  f.block_y = block_y;
  f.cells_x = block_x;
  f.rows_per_block = block_y;
  return f;
}

}  // namespace wave
