// Copies that teach how a warp reads memory: consecutive floats (coalesced), floats `stride` apart
// (strided), and a 2-D copy with one thread per matrix element.
#include "common/check.cuh"
#include "first_kernel.hpp"

namespace first_kernel {
namespace {

// [copy_coalesced]
// Thread i copies element i: the 32 threads of a warp read 32 neighbouring floats, 128 bytes in a row.
__global__ void copy_coalesced(int n, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
// [copy_coalesced]

// [copy_strided]
// Thread i writes element i, as above, but reads an element `stride` floats away from its neighbour's:
// with stride ≥ 8 every thread of a warp reads from a different 32-byte sector.
__global__ void copy_strided(int n, unsigned stride, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[strided_source(i, n, stride)];
}
// [copy_strided]

// [copy_2d]
// One thread per element of a width × height matrix stored row after row: the thread's column comes
// from the x parts of its coordinates, its row from the y parts. Both must be inside the matrix.
__global__ void copy_2d(int width, int height, const float* in, float* out) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) out[row * width + col] = in[row * width + col];
}
// [copy_2d]

}  // namespace

void launch_copy_coalesced(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  copy_coalesced<<<shape.grid, shape.block, 0, stream>>>(static_cast<int>(p.n), a.x, a.y);
  CUDA_CHECK_LAUNCH();
}

void launch_copy_strided(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  copy_strided<<<shape.grid, shape.block, 0, stream>>>(static_cast<int>(p.n), p.stride, a.x, a.y);
  CUDA_CHECK_LAUNCH();
}

void launch_copy_2d(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  copy_2d<<<shape.grid, shape.block, 0, stream>>>(static_cast<int>(p.width), static_cast<int>(p.height), a.in,
                                                   a.out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace first_kernel
