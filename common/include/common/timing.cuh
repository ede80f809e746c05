/// \file timing.cuh
/// \brief Timing done right: warm-up, repetitions, the median; events for GPU work, a steady clock for
/// CPU work; and the device's measured copy bandwidth, the ceiling chapters compare against.
#pragma once
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "common/buffers.cuh"
#include "common/stats.hpp"
#include "common/timing_options.hpp"

namespace course {


/// Times GPU work with a pair of events around each repetition, in milliseconds.
/// `launch(stream)` must enqueue the work on `stream` (and check its own launches).
template <class Launch>
Stats time_gpu(Launch&& launch, TimingOptions opts, cudaStream_t stream = nullptr) {
  Event start, stop;
  for (int i = 0; i < opts.warmup; ++i) launch(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(opts.reps));
  for (int i = 0; i < opts.reps; ++i) {
    start.record(stream);
    launch(stream);
    stop.record(stream);
    stop.synchronize();
    ms.push_back(stop.elapsed_ms_since(start));
  }
  return summarize(ms);
}

/// Times CPU work (or host-blocking work) with std::chrono::steady_clock, in milliseconds.
template <class Work>
Stats time_host(Work&& work, TimingOptions opts) {
  for (int i = 0; i < opts.warmup; ++i) work();
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(opts.reps));
  for (int i = 0; i < opts.reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(ms);
}

/// Enqueues a one-thread kernel that spins until `nanoseconds` have passed on the GPU's global timer.
/// Uses: a kernel of known duration (testing the timer), and a "blocker" that holds a stream while the
/// host enqueues copies, so that enqueue cost stays out of a measured interval.
void launch_spin_kernel(std::uint64_t nanoseconds, cudaStream_t stream = nullptr);

/// The device's copy ceiling: cudaMemcpy device→device of `bytes` (default 1 GiB, or a quarter of free
/// memory if less), counted as bytes read + bytes written, in decimal GB/s (median of `opts.reps`).
/// Chapters report their bandwidth as a percentage of this figure measured on the same device.
double measure_copy_bandwidth_gbs(std::size_t bytes = std::size_t{1} << 30, TimingOptions opts = {3, 20});

/// Decimal gigabytes per second for `bytes` moved in `ms` milliseconds.
constexpr double gb_per_s(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

}  // namespace course
