// The triangle method's partition (exercise 01.2): the staircase of shares that lets the threads reach
// the critical section one after the other. The contract is in partition.hpp.
#include <algorithm>
#include <cmath>

#include "partition.hpp"

namespace md {

// BEGIN SOLUTION 01.2
#ifndef COURSE_STUB_01_2
std::vector<std::size_t> triangle_partition(std::size_t n, int threads, double step) {
  if (threads < 1) throw std::invalid_argument("triangle_partition: threads must be at least 1");
  const auto t = static_cast<std::size_t>(threads);
  // A step above the maximum would need n0 < 0: the first threads would own a negative count.
  const double delta = std::clamp(std::isnan(step) ? 0.0 : step, 0.0, threads > 1 ? max_triangle_step(n, threads) : 0.0);
  const double first_share = static_cast<double>(n) / static_cast<double>(t) - delta * static_cast<double>(t - 1) / 2.0;
  std::vector<std::size_t> bounds(t + 1, 0);
  for (std::size_t k = 1; k < t; ++k) {
    // Particles owned by threads 0 … k−1: k·n0 + Δ·k(k−1)/2, rounded to the nearest particle.
    const double k_real = static_cast<double>(k);
    const double before = k_real * first_share + delta * k_real * (k_real - 1.0) / 2.0;
    const double rounded = std::floor(before + 0.5);
    // Clamping keeps the boundaries in order and inside [0, n] whatever the round-off did.
    const std::size_t bound = rounded <= 0 ? 0 : static_cast<std::size_t>(std::min(rounded, static_cast<double>(n)));
    bounds[k] = std::clamp(bound, bounds[k - 1], n);
  }
  bounds[t] = n;
  return bounds;
}
#else
std::vector<std::size_t> triangle_partition(std::size_t n, int threads, double step) {
  // TODO (exercise 01.2): return the staircase that partition.hpp documents (thread k owns about
  // n0 + k·step particles; the clamp of `step`, NaN, and the boundaries' guarantees) instead of the
  // critical method's equal shares. Until then the triangle rows of the program equal the critical ones.
  (void)step;
  return equal_partition(n, threads);
}
#endif
// END SOLUTION 01.2

}  // namespace md
