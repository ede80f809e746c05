/// \file latency.cuh
/// \brief How long one load waits for memory: one GPU thread follows a random cycle through a buffer, so
/// each load's address comes from the one before it and nothing overlaps (a pointer chase).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/buffers.cuh"
#include "common/stats.hpp"
#include "common/timing_options.hpp"

namespace bandwidth {

/// A buffer of `footprint` bytes whose lines (latency_line_bytes each) hold the next line's index in
/// their first word: a random single cycle through all of them, drawn from `seed`.
class PointerChase {
 public:
  PointerChase(std::size_t footprint, std::uint64_t seed);

  std::size_t lines() const noexcept { return next_.size(); }

  /// Enqueues one chase of `loads` dependent loads from position() (line 0 at first); the line it stops
  /// on becomes the next position(). Chasing on instead of starting over keeps the lines a run visits
  /// out of the cache that the runs before it filled.
  void launch(std::uint64_t loads, cudaStream_t stream);

  /// The line the next chase starts from: where the last one stopped (synchronous download).
  std::uint32_t position() const;

  /// Times `loads`-long chases (events, warm-up, repetitions) and returns nanoseconds per load, after
  /// checking that the chases stopped where the host's walk of the same cycle does (throws if not).
  course::Stats time_ns_per_load(std::uint64_t loads, course::TimingOptions opts);

 private:
  std::vector<std::uint32_t> next_;              // the cycle, host copy: the check's answer
  course::DeviceBuffer<std::uint32_t> slots_;    // footprint bytes; word 0 of each line is used
  course::DeviceBuffer<std::uint32_t> position_; // where the last chase stopped, the next one starts
};

}  // namespace bandwidth
