// The random cycles the latency chases follow (host code, tested on the CPU).
#include <numeric>
#include <random>
#include <utility>

#include "levels.hpp"

namespace first_kernel {

std::vector<std::uint32_t> random_cycle(std::uint32_t count, std::uint64_t seed) {
  // A random order of the indices (a Fisher-Yates shuffle, written out so that every standard library
  // gives the same order); each index's successor is the next one in that order, the last's the first.
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(seed);
  for (std::uint32_t i = count; i > 1; --i) {
    std::uniform_int_distribution<std::uint32_t> pick(0, i - 1);
    std::swap(order[i - 1], order[pick(rng)]);
  }
  std::vector<std::uint32_t> next(count);
  for (std::uint32_t k = 0; k < count; ++k) next[order[k]] = order[(k + 1) % count];
  return next;
}

std::uint32_t walk(const std::vector<std::uint32_t>& next, std::uint32_t start, std::uint64_t steps) {
  steps %= next.size();  // a single cycle: after next.size() steps every index is back where it began
  for (std::uint64_t k = 0; k < steps; ++k) start = next[start];
  return start;
}

}  // namespace first_kernel
