// The transpose with one thread per element (exercise 00.2): out, height × width, gets in's element
// (row, col) at (col, row). Reads are coalesced (a warp reads along a row of `in`); writes are not (the
// same warp writes down a column of `out`, `height` floats apart).
#include "common/check.cuh"
#include "first_kernel.hpp"

namespace first_kernel {
namespace {

// in: width × height, row after row (element (row, col) at row · width + col).
// out: height × width, row after row (element (col, row) at col · height + row).
__global__ void transpose_naive(int width, int height, const float* in, float* out) {
// BEGIN SOLUTION 00.2
#ifndef COURSE_STUB_00_2
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) out[col * height + row] = in[row * width + col];
#else
  // TODO (exercise 00.2): find this thread's element of `in` (its column and its row) from blockIdx,
  // blockDim and threadIdx, and, if it lies inside the matrix, copy it to its transposed place in `out`.
  // The grid has one thread per element of `in`, rounded up to whole blocks (the lesson's copy_2d runs
  // on the same grid).
  (void)width;
  (void)height;
  (void)in;
  (void)out;
#endif
// END SOLUTION 00.2
}

}  // namespace

void launch_transpose_naive(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  transpose_naive<<<shape.grid, shape.block, 0, stream>>>(static_cast<int>(p.width), static_cast<int>(p.height),
                                                           a.in, a.out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernel
