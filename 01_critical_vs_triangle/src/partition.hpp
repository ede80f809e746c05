/// \file partition.hpp
/// \brief How the particles [0, n) are shared among the threads of a team: equal shares, or the
/// triangle method's staircase. A partition is a list of threads + 1 boundaries: thread k owns the
/// particles [bounds[k], bounds[k+1]); bounds[0] = 0, bounds[threads] = n, never decreasing.
#pragma once
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

namespace md {

/// Thread k owns [n k / threads, n (k + 1) / threads): shares differ by at most one particle.
inline std::vector<std::size_t> equal_partition(std::size_t n, int threads) {
  if (threads < 1) throw std::invalid_argument("equal_partition: threads must be at least 1");
  const auto t = static_cast<std::size_t>(threads);
  std::vector<std::size_t> bounds(t + 1);
  for (std::size_t k = 0; k <= t; ++k) bounds[k] = n * k / t;  // n · k fits: n < 2^31, k ≤ 1024
  return bounds;
}

/// The steepest staircase that still fits: thread k gets n0 + kΔ particles and
/// Σ_k (n0 + kΔ) = threads·n0 + Δ·threads(threads − 1)/2 = n, so n0 ≥ 0 needs Δ ≤ 2n / (threads(threads − 1)).
inline double max_triangle_step(std::size_t n, int threads) {
  if (threads < 2) return std::numeric_limits<double>::infinity();  // one thread: no staircase at all
  const double t = threads;
  return 2.0 * static_cast<double>(n) / (t * (t - 1.0));
}

/// The triangle method's partition: thread k gets n0 + kΔ particles, rounded to whole particles, with
/// Δ = `step` clamped to [0, max_triangle_step] (NaN counts as 0; one thread: no staircase) and n0 such
/// that the shares add up to n. Each thread then reaches the critical section Δ particles' worth of time
/// after the one before it. The boundaries never decrease, start at 0 and end at n exactly, so every
/// particle is owned exactly once for any n and threads ≥ 1 (std::invalid_argument for threads < 1).
/// Exercise 01.2.
std::vector<std::size_t> triangle_partition(std::size_t n, int threads, double step);

}  // namespace md
