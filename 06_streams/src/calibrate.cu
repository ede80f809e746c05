// Calibration: how many FMA iterations make the kernel take as long as the copies (the balanced
// pipeline), and how long one launch of it takes.
#include <algorithm>
#include <cmath>

#include "common/check.cuh"
#include "streams.cuh"
#include "streams_detail.hpp"

namespace streams {

double time_kernel_ms(float* dev_in, float* dev_out, std::size_t n, unsigned blocks, int iterations,
                      course::TimingOptions timing, cudaStream_t stream) {
  return course::time_gpu([&](cudaStream_t s) { launch_fma_chain(dev_in, dev_out, n, iterations, s, blocks); },
                          timing, stream)
      .median;
}

int iterations_for(float* dev_in, float* dev_out, std::size_t elements, unsigned blocks, double target_ms) {
  const std::size_t n = blocks ? std::min<std::size_t>(elements, std::size_t{blocks} * block_size) : elements;
  const course::TimingOptions quick{1, 3};
  Stream stream;
  long long iterations = 256;
  double t = time_kernel_ms(dev_in, dev_out, n, blocks, static_cast<int>(iterations), quick, stream);
  // Grow until the iterations dominate the fixed costs (launch, memory traffic), then scale linearly.
  while (t < target_ms / 8 && iterations < (1LL << 28)) {
    iterations *= 4;
    t = time_kernel_ms(dev_in, dev_out, n, blocks, static_cast<int>(iterations), quick, stream);
  }
  for (int pass = 0; pass < 2 && t > 0; ++pass) {
    iterations = std::clamp<long long>(std::llround(static_cast<double>(iterations) * target_ms / t), 1, 1LL << 30);
    t = time_kernel_ms(dev_in, dev_out, n, blocks, static_cast<int>(iterations), quick, stream);
  }
  return static_cast<int>(iterations);
}

// [calibrate]
Calibration calibrate_balanced(const float* host_in, float* host_out, float* dev_in, float* dev_out,
                               std::size_t elements, course::TimingOptions timing, int fixed_iterations) {
  Calibration c;
  const std::size_t bytes = elements * sizeof(float);
  Stream s1, s2;
  Event fork(cudaEventDisableTiming), join(cudaEventDisableTiming);
  c.h2d_ms = course::time_gpu(
      [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, s)); },
      timing, s1).median;
  c.d2h_ms = course::time_gpu(
      [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, s)); },
      timing, s1).median;
  c.both_copies_ms = course::time_gpu(
      [&](cudaStream_t s) {
        fork.record(s);
        CUDA_CHECK(cudaStreamWaitEvent(s2, fork.get(), 0));
        CUDA_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, s2));
        join.record(s2);
        CUDA_CHECK(cudaStreamWaitEvent(s, join.get(), 0));
      },
      timing, s1).median;

  // Kernel time is linear in the iteration count: fit it from two points, then aim at the copies.
  const int low = 16, high = 512;
  const double t_low = time_kernel_ms(dev_in, dev_out, elements, 0, low, timing, s1);
  const double t_high = time_kernel_ms(dev_in, dev_out, elements, 0, high, timing, s1);
  c.ms_per_iteration = std::max(1e-9, (t_high - t_low) / (high - low));
  c.kernel_floor_ms = std::max(0.0, t_low - c.ms_per_iteration * low);
  // The steady state of the pipeline has an H2D and a D2H in flight together: that, not H or D alone, is
  // what the kernel must match for max(H, K, D) = K to be the true bottleneck.
  const double target = std::max({c.both_copies_ms, c.h2d_ms, c.d2h_ms});
  if (fixed_iterations > 0) {
    c.kernel_iterations = fixed_iterations;
  } else {
    c.kernel_iterations = static_cast<int>(
        std::clamp(std::llround((target - c.kernel_floor_ms) / c.ms_per_iteration), 1LL, 1LL << 26));
    for (int pass = 0; pass < 2; ++pass) {  // correct what the straight line missed
      const double t = time_kernel_ms(dev_in, dev_out, elements, 0, c.kernel_iterations, timing, s1);
      if (std::abs(t - target) < 0.02 * target) break;
      c.kernel_iterations = static_cast<int>(std::clamp(
          std::llround(c.kernel_iterations + (target - t) / c.ms_per_iteration), 1LL, 1LL << 26));
    }
  }
  c.kernel_ms = time_kernel_ms(dev_in, dev_out, elements, 0, c.kernel_iterations, timing, s1);
  return c;
}
// [calibrate]

}  // namespace streams
