/// \file stats.hpp
/// \brief Summary statistics of repeated timings: median (what we report), min, max, spread.
#pragma once
#include <cstddef>
#include <span>

namespace course {

/// Summary of a set of samples (for timings: milliseconds).
struct Stats {
  std::size_t count = 0;  ///< number of samples
  double median = 0;      ///< the reported figure: robust against the odd slow repetition
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;      ///< sample standard deviation (n − 1); 0 for a single sample
  double cv = 0;          ///< coefficient of variation, stddev / mean: above a few % means noisy
};

/// Summarises `samples`; throws std::invalid_argument when empty.
Stats summarize(std::span<const double> samples);

}  // namespace course
