/// \file latency.hpp
/// \brief The host side of the load-latency probe: a random cycle through cache lines, and walking it.
/// No CUDA here, so the CPU tests check the cycle and the walk that the GPU's answer is compared with.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bandwidth {

/// One probe step reads one 4-byte word at the start of a 128-byte line (the L2's line size), so no two
/// steps share a line and every step is a new cache miss once the footprint exceeds the cache.
inline constexpr std::size_t latency_line_bytes = 128;

/// The largest footprint: line indices are 32-bit (2^32 lines of 128 bytes would be 512 GiB).
inline constexpr std::uint64_t latency_max_footprint = std::uint64_t{1} << 38;

/// The most dependent loads one timed run may make: at about a microsecond each, a run stays under a
/// few minutes.
inline constexpr std::uint64_t latency_max_loads = std::uint64_t{1} << 27;

/// A random permutation of 0..lines-1 that is one single cycle (Sattolo's algorithm, splitmix64 of
/// `seed`): following next[i] from any line visits every line once before coming back, in an order no
/// prefetcher can guess. Throws std::invalid_argument for 0 lines or more than 2^32.
std::vector<std::uint32_t> random_cycle(std::size_t lines, std::uint64_t seed);

/// Where `steps` steps of the cycle `next` lead from `start`: the answer the GPU's chase must give.
std::uint32_t walk(std::span<const std::uint32_t> next, std::uint32_t start, std::uint64_t steps);

/// Parses and checks --footprints ("4MiB,1GiB": byte counts, each a multiple of the line size, at least
/// one line, at most latency_max_footprint) and --loads; throws course::UsageError naming the option.
std::vector<std::uint64_t> parse_footprints(const std::vector<std::string>& items);
void check_loads(std::uint64_t loads);

}  // namespace bandwidth
