#include "common/timing.cuh"

#include <algorithm>

namespace course {

namespace {
__global__ void spin_kernel(std::uint64_t nanoseconds) {
  std::uint64_t start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  std::uint64_t now = start;
  while (now - start < nanoseconds) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}
}  // namespace

void launch_spin_kernel(std::uint64_t nanoseconds, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(nanoseconds);
  CUDA_CHECK_LAUNCH();
}

double measure_copy_bandwidth_gbs(std::size_t bytes, TimingOptions opts) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  bytes = std::min(bytes, free_bytes / 4);
  bytes -= bytes % 256;
  if (bytes == 0) throw CudaError("measure_copy_bandwidth_gbs: no free device memory");
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  src.fill_bytes(0x5a);
  const Stats s = time_gpu(
      [&](cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
      },
      opts);
  return gb_per_s(2.0 * static_cast<double>(bytes), s.median);
}

}  // namespace course
