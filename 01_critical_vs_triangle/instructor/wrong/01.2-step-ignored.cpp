// WRONG: 01.2 expect: is NOT correct because: equal shares whatever the step (the critical method's partition): every particle is owned once, but there is no staircase
std::vector<std::size_t> triangle_partition(std::size_t n, int threads, double step) {
  (void)step;  // equal shares are balanced already: the step is only a hint
  return equal_partition(n, threads);
}
