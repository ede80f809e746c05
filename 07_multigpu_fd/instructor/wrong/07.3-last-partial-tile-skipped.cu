// WRONG: 07.3 expect: bit for bit because: the launch counts whole tiles only (nx / 32 and rows / 16, rounded down), so the cells of a last partial tile are never written (they stay poisoned), and a grid smaller than one tile launches no block at all
namespace {

constexpr int tile_x = 32, tile_y = 16;
constexpr int tile_pitch = tile_x + 2 * halo;
constexpr int tile_rows = tile_y + 2 * halo;

__global__ void __launch_bounds__(tile_x * tile_y) step_shared_tile(StepArgs a) {
  __shared__ float tile[tile_rows * tile_pitch];
  const int x_tile = blockIdx.x * tile_x;
  const int y_tile = a.row_begin + blockIdx.y * tile_y;
  for (int k = threadIdx.y * tile_x + threadIdx.x; k < tile_rows * tile_pitch; k += tile_x * tile_y) {
    const int xx = x_tile - halo + k % tile_pitch;
    const int yy = y_tile - halo + k / tile_pitch;
    tile[k] = xx < a.layout.nx + halo && yy < a.row_end + halo ? a.cur[a.layout.index(xx, yy)] : 0.0f;
  }
  __syncthreads();
  const int x = x_tile + threadIdx.x, y = y_tile + threadIdx.y;
  if (x >= a.layout.nx || y >= a.row_end) return;
  const float* centre = tile + (threadIdx.y + halo) * tile_pitch + threadIdx.x + halo;
  update_cell(a, x, y, [&](int dx, int dy) { return centre[dy * tile_pitch + dx]; });
}

}  // namespace

void launch_shared_tile(const StepArgs& a, cudaStream_t stream) {
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 grid(a.layout.nx / tile_x, rows / tile_y);
  step_shared_tile<<<grid, dim3(tile_x, tile_y), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}
