/// \file timing_options.hpp
/// \brief How many warm-up runs and timed repetitions a measurement makes (no CUDA needed, so CPU-only
/// chapters share it).
#pragma once

namespace course {

/// How many untimed warm-up runs and timed repetitions to make.
struct TimingOptions {
  int warmup = 3;  ///< untimed runs first: module load, clocks ramping up, caches and TLBs warm
  int reps = 20;   ///< timed runs; the median of these is reported
};

}  // namespace course
