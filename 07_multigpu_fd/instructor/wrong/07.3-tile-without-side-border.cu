// WRONG: 07.3 expect: bit for bit because: the tile holds the rows above and below but not the 4 columns left and right of the block, so every cell within 4 columns of a tile's side reads zeros for its x-neighbours
namespace {

constexpr int tile_x = 32, tile_y = 16;
constexpr int tile_rows = tile_y + 2 * halo;

__global__ void __launch_bounds__(tile_x * tile_y) step_shared_tile(StepArgs a) {
  __shared__ float tile[tile_rows][tile_x];
  const int x = blockIdx.x * tile_x + threadIdx.x;
  const int y_tile = a.row_begin + blockIdx.y * tile_y;
  for (int r = threadIdx.y; r < tile_rows; r += tile_y) {
    const int yy = y_tile - halo + r;
    tile[r][threadIdx.x] = x < a.layout.nx && yy < a.row_end + halo ? a.cur[a.layout.index(x, yy)] : 0.0f;
  }
  __syncthreads();
  const int y = y_tile + threadIdx.y;
  if (x >= a.layout.nx || y >= a.row_end) return;
  const int tx = threadIdx.x, ty = threadIdx.y + halo;
  update_cell(a, x, y, [&](int dx, int dy) {
    return tx + dx >= 0 && tx + dx < tile_x ? tile[ty + dy][tx + dx] : 0.0f;
  });
}

}  // namespace

void launch_shared_tile(const StepArgs& a, cudaStream_t stream) {
  const int rows = a.row_end - a.row_begin;
  if (rows <= 0) return;
  const dim3 grid(ceil_div(a.layout.nx, tile_x), ceil_div(rows, tile_y));
  step_shared_tile<<<grid, dim3(tile_x, tile_y), 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
}
