/// \file workspace.hpp
/// \brief The arrays one run needs, on the host and on the device, and the two things the driver does
/// with each variant: check it against its CPU reference, then time it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/stats.hpp"
#include "common/timing_options.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

/// Fills `out` with floats in [−1, 1) drawn from `seed` (a counter hash: the same seed gives the same data).
void fill_random(std::span<float> out, std::uint64_t seed);

/// Where `got` first differs from `expected` (bit for bit when `exact`, else beyond the rounding of one
/// multiply-add), as "element 17: got 0.5, expected 0.25"; empty when they agree. Same sizes required.
std::string first_difference(std::span<const float> got, std::span<const float> expected, bool exact);

/// Device bytes a run of these variants allocates.
std::size_t device_bytes_needed(const Problem& p, std::span<const Variant> chosen);

/// The inputs (random, from a fixed seed) and outputs of one run, on the host and on the device.
/// Only the arrays the chosen variants use are allocated.
class Workspace {
 public:
  Workspace(const Problem& p, std::span<const Variant> chosen);

  /// Runs `v` once on its chapter launch shape, from a fresh state (y reset to its initial values, the
  /// matrix output poisoned with 0xFF bytes), and compares the result with v.on_cpu. Throws
  /// std::runtime_error naming the variant and the first wrong element.
  void check(const Variant& v);

  /// Times `v` on its chapter launch shape: `opts.warmup` untimed runs, then the median of `opts.reps`
  /// event-timed runs (course::time_gpu), in milliseconds.
  course::Stats time(const Variant& v, course::TimingOptions opts);

  DeviceArrays arrays() noexcept { return {x_.data(), y_.data(), in_.data(), out_.data()}; }

 private:
  Problem p_;
  std::vector<float> x_host_, y_host_, matrix_host_;
  course::DeviceBuffer<float> x_, y_, in_, out_;
};

}  // namespace first_kernel
