/// \file levels.hpp
/// \brief The memory hierarchy, measured: how long one load takes from shared memory and from L1 (one
/// thread, each load's address known only when the previous load returns), and how many bytes per second
/// the SMs read from L2. The lesson's table adds HBM from the ladder and L2/HBM latency from chapter 02.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "common/timing_options.hpp"

namespace first_kernel {

/// Words in the shared-memory chase (4 KiB) and lines in the L1 chase (128 lines of 128 bytes: 16 KiB,
/// far less than any SM's L1).
inline constexpr unsigned shared_chase_words = 1024;
inline constexpr unsigned l1_chase_lines = 128;
/// Dependent loads per chase: enough that the first, missing pass over the L1 lines is under 1 % of it.
inline constexpr unsigned chase_loads = 1u << 18;
/// The L2 read: a buffer that fits in L2 (8 MiB; an H100's L2 holds 50 MiB), read `l2_read_passes` times
/// per launch by a grid that fills the GPU.
inline constexpr std::size_t l2_read_bytes = std::size_t{8} << 20;
inline constexpr unsigned l2_read_passes = 128;

/// One row of the levels table.
struct LevelResult {
  std::string level;             ///< "shared", "L1", "L2"
  std::string method;            ///< how it was measured, one line
  std::size_t footprint_bytes;   ///< bytes the measurement touches
  double ns_per_load;            ///< latency rows: nanoseconds per dependent load (median); NaN otherwise
  double gbs;                    ///< bandwidth rows: decimal GB/s read (median); NaN otherwise
  course::Stats ms;              ///< the kernel's times, milliseconds
};

/// Measures the three levels on the current device (`sm_count` SMs, `max_threads_per_sm` threads each).
/// Each chase's final position is checked against the cycle walked on the CPU (throws std::runtime_error
/// when it differs).
std::vector<LevelResult> measure_levels(int sm_count, int max_threads_per_sm, course::TimingOptions opts);

/// A random cycle through 0 … count − 1: next[i] is the successor of i, and
/// following next from any start visits every index before it returns. Host code, tested on the CPU.
std::vector<std::uint32_t> random_cycle(std::uint32_t count, std::uint64_t seed);

/// Where `steps` steps along `next` from `start` end.
std::uint32_t walk(const std::vector<std::uint32_t>& next, std::uint32_t start, std::uint64_t steps);

}  // namespace first_kernel
