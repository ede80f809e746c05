// WRONG: 01.2 expect: bounds.back() == n because: each share is truncated on its own and the boundaries are their running sum, so the fractions are lost and the last particles belong to no thread
std::vector<std::size_t> triangle_partition(std::size_t n, int threads, double step) {
  if (threads < 1) throw std::invalid_argument("triangle_partition: need a thread");
  const auto t = static_cast<std::size_t>(threads);
  const double delta = std::clamp(std::isnan(step) ? 0.0 : step, 0.0, threads > 1 ? max_triangle_step(n, threads) : 0.0);
  const double n0 = static_cast<double>(n) / static_cast<double>(t) - delta * static_cast<double>(t - 1) / 2.0;
  std::vector<std::size_t> bounds(t + 1, 0);
  for (std::size_t k = 0; k < t; ++k) {
    const double share = std::max(0.0, n0 + delta * static_cast<double>(k));
    bounds[k + 1] = bounds[k] + static_cast<std::size_t>(share);
  }
  return bounds;
}
