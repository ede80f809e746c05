#include "latency.hpp"

#include <stdexcept>
#include <utility>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "model.hpp"

namespace bandwidth {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<std::uint32_t> random_cycle(std::size_t lines, std::uint64_t seed) {
  if (lines == 0 || lines > (std::size_t{1} << 32))
    throw std::invalid_argument("random_cycle: need 1 to 2^32 lines");
  std::vector<std::uint32_t> next(lines);
  for (std::size_t i = 0; i < lines; ++i) next[i] = static_cast<std::uint32_t>(i);
  // Sattolo: swapping i only with a j < i (never with itself) leaves exactly one cycle.
  std::uint64_t state = seed;
  for (std::size_t i = lines - 1; i > 0; --i) {
    const std::size_t j = static_cast<std::size_t>(splitmix64(state) % i);
    std::swap(next[i], next[j]);
  }
  return next;
}

std::uint32_t walk(std::span<const std::uint32_t> next, std::uint32_t start, std::uint64_t steps) {
  std::uint32_t line = start;
  for (std::uint64_t i = 0; i < steps; ++i) line = next[line];
  return line;
}

std::vector<std::uint64_t> parse_footprints(const std::vector<std::string>& items) {
  std::vector<std::uint64_t> out;
  for (const std::string& item : items) {
    std::uint64_t bytes = 0;
    try {
      bytes = course::parse_count(item);
    } catch (const course::UsageError& e) {
      throw course::UsageError("--footprints " + item + ": " + e.what());  // which option, as every other message
    }
    if (bytes % latency_line_bytes != 0)
      throw course::UsageError("--footprints " + item + ": must be a multiple of " +
                               std::to_string(latency_line_bytes) + " bytes (one line per load)");
    if (bytes > latency_max_footprint)
      throw course::UsageError("--footprints " + item + ": too large (at most " +
                               size_label(latency_max_footprint) + ")");
    out.push_back(bytes);
  }
  return out;
}

void check_loads(std::uint64_t loads) {
  if (loads == 0 || loads > latency_max_loads)
    throw course::UsageError("--loads " + std::to_string(loads) + ": must be 1 to 2^27 (" +
                             std::to_string(latency_max_loads) + ")");
}

}  // namespace bandwidth
