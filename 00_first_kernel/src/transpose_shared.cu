// The transpose through shared memory (exercise 00.3): a block loads a tile_dim × tile_dim tile of `in`
// with coalesced reads, waits until the whole tile is in, and writes the tile's transpose to `out` with
// coalesced writes. The launch shape is the chapter's (one_thread_per_matrix_element: blocks of
// tile_dim × tile_dim threads, one per element of `in`), and the layouts are transpose_naive's.
#include "common/check.cuh"
#include "first_kernel.hpp"

namespace first_kernel {

// BEGIN SOLUTION 00.3
#ifndef COURSE_STUB_00_3
namespace {

__global__ void transpose_shared_kernel(int width, int height, const float* in, float* out) {
  // One extra column: element (r, c) of the tile sits in bank (r · 33 + c) mod 32, so the 32 threads of
  // a warp that read a column of the tile (c fixed, r = 0 … 31) hit 32 different banks (chapter 04).
  __shared__ float tile[tile_dim][tile_dim + 1];

  // Load: thread (tx, ty) reads in[row][col], a warp reads 32 neighbours along a row.
  const int in_col = blockIdx.x * tile_dim + threadIdx.x;
  const int in_row = blockIdx.y * tile_dim + threadIdx.y;
  if (in_col < width && in_row < height) tile[threadIdx.y][threadIdx.x] = in[in_row * width + in_col];

  // Every thread reads an element another thread loaded: the whole tile must be in first.
  __syncthreads();

  // Store: the block writes the output tile at (block column, block row) swapped, and thread (tx, ty)
  // writes out[out_row][out_col], so that a warp again touches 32 neighbours, now along a row of out.
  const int out_col = blockIdx.y * tile_dim + threadIdx.x;  // a column of out is a row of in
  const int out_row = blockIdx.x * tile_dim + threadIdx.y;
  if (out_col < height && out_row < width) out[out_row * height + out_col] = tile[threadIdx.x][threadIdx.y];
}

}  // namespace

void launch_transpose_shared(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  const int width = static_cast<int>(p.width);
  const int height = static_cast<int>(p.height);
  transpose_shared_kernel<<<shape.grid, shape.block, 0, stream>>>(width, height, a.in, a.out);
  CUDA_CHECK_LAUNCH();
}
#else
void launch_transpose_shared(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  // TODO (exercise 00.3): write a kernel of your own here that transposes through a tile in shared
  // memory, and launch it instead. `shape` has blocks of tile_dim × tile_dim threads, one per element
  // of `in`. As handed out this runs exercise 00.2's transpose_naive: correct once 00.2 is done, and
  // slow, because its writes are strided.
  launch_transpose_naive(p, a, shape, stream);
}
#endif
// END SOLUTION 00.3

}  // namespace first_kernel
