/// \file streams_detail.hpp
/// \brief What the files of streams_core share but do not export: wall-clock helpers and one timed
/// launch of the chapter's kernel.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "streams.cuh"

namespace streams {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline std::uint64_t to_ns(double ms) { return static_cast<std::uint64_t>(std::max(0.0, ms) * 1e6); }

/// The median time of one launch_fma_chain over n elements with `blocks` blocks (0: enough for all).
double time_kernel_ms(float* dev_in, float* dev_out, std::size_t n, unsigned blocks, int iterations,
                      course::TimingOptions timing, cudaStream_t stream);

}  // namespace streams
