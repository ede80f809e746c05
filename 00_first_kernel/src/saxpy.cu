// The first kernels: y = a·x + y (SAXPY, "single-precision a·x plus y"), one thread per element, then
// a grid-stride loop; and the host ritual around the first one.
#include <stdexcept>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "first_kernel.hpp"

namespace first_kernel {
namespace {

// [saxpy]
// Runs on the GPU, once per thread of the grid. Each thread computes its own index from where it sits:
// its block's number times the block's size, plus its number inside the block.
__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)  // the last block may reach past the end of the arrays: those threads do nothing
    y[i] = a * x[i] + y[i];
}
// [saxpy]

// [saxpy_grid_stride]
// The same work with a grid of any size: each thread starts at its index and steps by the number of
// threads in the whole grid until it passes n.
__global__ void saxpy_grid_stride(int n, float a, const float* x, float* y) {
  const int threads_in_grid = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads_in_grid)
    y[i] = a * x[i] + y[i];
}
// [saxpy_grid_stride]

}  // namespace

void launch_saxpy(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  // [saxpy_launch]
  saxpy<<<shape.grid, shape.block, 0, stream>>>(static_cast<int>(p.n), p.a, a.x, a.y);
  CUDA_CHECK_LAUNCH();  // a launch returns no error code: ask for it
  // [saxpy_launch]
}

void launch_saxpy_grid_stride(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  saxpy_grid_stride<<<shape.grid, shape.block, 0, stream>>>(static_cast<int>(p.n), p.a, a.x, a.y);
  CUDA_CHECK_LAUNCH();
}

std::vector<float> saxpy_on_gpu(float a, std::span<const float> x, std::span<const float> y) {
  if (x.size() != y.size()) throw std::invalid_argument("saxpy_on_gpu: x and y differ in size");
  if (x.size() > max_elements) throw std::invalid_argument("saxpy_on_gpu: more than 2^30 elements");
  if (x.empty()) return {};
  Problem p;
  p.n = x.size();
  p.a = a;
  // [host_ritual]
  course::DeviceBuffer<float> x_dev(p.n), y_dev(p.n);   // 1. allocate on the device (cudaMalloc)
  x_dev.upload(x);                                        // 2. copy the inputs in (cudaMemcpy, host to device)
  y_dev.upload(y);
  const LaunchShape shape = one_thread_per_element(p);    // 3. launch: enough blocks for n threads
  launch_saxpy(p, {x_dev.data(), y_dev.data()}, shape, nullptr);   //    (checks the launch)
  CUDA_CHECK(cudaDeviceSynchronize());                    // 4. wait for the kernel; reports its faults
  std::vector<float> result(p.n);
  y_dev.download(result);                                 // 5. copy the result out (cudaMemcpy, device to host)
  return result;                                          // 6. x_dev, y_dev free their memory (cudaFree)
  // [host_ritual]
}

}  // namespace first_kernel
