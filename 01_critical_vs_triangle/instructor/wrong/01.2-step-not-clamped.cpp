// WRONG: 01.2 expect: is NOT correct because: the step is never clamped to max_triangle_step: a step too steep makes the first shares negative, which the boundaries then squash to zero while the last thread's share keeps climbing past the limit
std::vector<std::size_t> triangle_partition(std::size_t n, int threads, double step) {
  if (threads < 1) throw std::invalid_argument("triangle_partition: need a thread");
  const auto t = static_cast<std::size_t>(threads);
  const double delta = threads > 1 && step > 0 ? std::min(step, 1e15) : 0.0;
  const double n0 = static_cast<double>(n) / static_cast<double>(t) - delta * static_cast<double>(t - 1) / 2.0;
  std::vector<std::size_t> bounds(t + 1, 0);
  for (std::size_t k = 1; k < t; ++k) {
    const double kk = static_cast<double>(k);
    const double owned = std::floor(kk * n0 + delta * kk * (kk - 1.0) / 2.0 + 0.5);
    const std::size_t b = owned <= 0 ? 0 : static_cast<std::size_t>(std::min(owned, static_cast<double>(n)));
    bounds[k] = std::clamp(b, bounds[k - 1], n);
  }
  bounds[t] = n;
  return bounds;
}
