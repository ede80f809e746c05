// The 2-D shared-memory tile with its halo, on a 5-point star (teaching_tile.cuh says why not on the
// chapter's 17-point one). The lesson shows the kernel between the snippet markers.
#include "common/check.cuh"
#include "teaching_tile.cuh"

namespace wave::teaching {
namespace {

// [tile_with_halo]
__global__ void __launch_bounds__(tile_x * tile_y)
    laplacian5_tiled(const float* in, float* out, int nx, int ny) {
  constexpr int pitch = tile_x + 2 * radius;  // a stored row: the cells and the halo each side
  constexpr int rows = tile_y + 2 * radius;
  __shared__ float tile[rows][pitch];
  const int x0 = blockIdx.x * tile_x - radius;  // the mesh cell that tile[0][0] holds
  const int y0 = blockIdx.y * tile_y - radius;

  // 1. All threads of the block load the tile and its halo together: consecutive threads
  //    take consecutive words of a row, so a warp's loads are coalesced. Outside the mesh: 0.
  for (int k = threadIdx.y * tile_x + threadIdx.x; k < rows * pitch; k += tile_x * tile_y) {
    const int tx = k % pitch, ty = k / pitch;
    const int x = x0 + tx, y = y0 + ty;
    const bool inside = x >= 0 && x < nx && y >= 0 && y < ny;
    tile[ty][tx] = inside ? in[static_cast<std::size_t>(y) * nx + x] : 0.0f;
  }
  // 2. A cell's neighbours were loaded by other threads: wait until the whole tile is in.
  __syncthreads();

  // 3. Each thread computes its own cell from shared memory alone. A thread past the mesh's
  //    edge leaves only now: every thread must reach the barrier, and it helped to load.
  const int x = x0 + radius + threadIdx.x, y = y0 + radius + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int tx = threadIdx.x + radius, ty = threadIdx.y + radius;
  const float sum = (tile[ty][tx - 1] + tile[ty][tx + 1]) + (tile[ty - 1][tx] + tile[ty + 1][tx]);
  out[static_cast<std::size_t>(y) * nx + x] = sum - 4.0f * tile[ty][tx];
}
// [tile_with_halo]

}  // namespace

void launch_laplacian5_tiled(const float* in, float* out, int nx, int ny, cudaStream_t stream) {
  if (nx <= 0 || ny <= 0) return;
  // [tile_launch]
  const dim3 block(tile_x, tile_y);  // one thread per cell of the tile
  // Enough tiles to cover the mesh, rounded up: the last tile of a row or column may be partial.
  const dim3 grid((nx + tile_x - 1) / tile_x, (ny + tile_y - 1) / tile_y);
  laplacian5_tiled<<<grid, block, 0, stream>>>(in, out, nx, ny);
  // [tile_launch]
  CUDA_CHECK_LAUNCH();
}

}  // namespace wave::teaching
