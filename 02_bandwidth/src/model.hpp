/// \file model.hpp
/// \brief The host-only half of chapter 02: units, the latency–bandwidth fit, the sweep and the checks on
/// the command line. No CUDA here, so all of it is tested on CI (no GPU).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bandwidth {

// [units]
/// Decimal gigabytes per second: 10^9 bytes per second, what this course reports everywhere.
constexpr double gbs_from_bytes_seconds(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}
/// The old bandwidthTest's "MB": it multiplied bytes by 2^10 and divided by milliseconds times 2^20,
/// which is bytes per second divided by 1.024e6: neither decimal (10^6) nor binary (2^20).
inline constexpr double legacy_mb_bytes = 1.024e6;
/// Decimal GB/s → the old bandwidthTest's MB/s (×976.5625).
constexpr double legacy_mbs_from_gbs(double gbs) { return gbs * 1e9 / legacy_mb_bytes; }
/// The old bandwidthTest's MB/s → decimal GB/s.
constexpr double gbs_from_legacy_mbs(double mbs) { return mbs * legacy_mb_bytes / 1e9; }
// [units]

/// The Tesla K80 figures of the blog post this chapter starts from (its author's own K80, the old
/// bandwidthTest, pinned, 33,554,432 bytes), in that tool's legacy MB/s; not the CUDA C book's (the K80
/// came out after the book).
/// Its device→device figure counts every byte twice (read + write).
struct K80Reference {
  static constexpr std::size_t bytes = 33'554'432;
  static constexpr double h2d_legacy_mbs = 7443.8;
  static constexpr double d2h_legacy_mbs = 8784.2;
  static constexpr double d2d_legacy_mbs_read_plus_write = 152045.6;
};

// [fit]
/// T(n) = α + n/β fitted to (bytes, seconds) points.
struct LatencyBandwidthFit {
  double latency_s = 0;             ///< α: the time of an empty transfer
  double bandwidth_bytes_per_s = 0; ///< β: the asymptotic rate (bytes/s)
  double half_bandwidth_bytes = 0;  ///< n½ = αβ: the size at which half of β is reached (0 if α ≤ 0)
  double max_relative_residual = 0; ///< max |T_fit − T| / T over the points: how well the model holds
  std::size_t points = 0;
};

/// Fits T(n) = α + n/β by least squares on relative errors: minimises Σ ((T_i − α − n_i/β) / F_i)², where
/// F_i = α + n_i/β is the fitted time of point i. Why relative: the sweep spans six decades of time;
/// unweighted, the largest transfers dominate and a residual of 0.1 % at 1 GiB (tens of µs) swamps α (a
/// few µs). Timing noise is roughly a constant fraction of T, so weights 1/T² give every size an equal say.
/// Why the fitted time rather than the measured one: a point that happened to come out fast would get
/// extra weight. The weights depend on the fit, so they start from the measured times and are refined
/// over a few rounds (a point whose fitted time is not positive keeps its previous weight); at the end
/// the residuals r_i = T_i − F_i balance: Σ r_i / F_i² ≈ 0 and Σ n_i r_i / F_i² ≈ 0. The points may come
/// in any order. Throws std::invalid_argument with fewer than 2 points, mismatched spans, non-positive
/// values, or all sizes equal.
LatencyBandwidthFit fit_latency_bandwidth(std::span<const double> bytes, std::span<const double> seconds);
// [fit]

/// min, min·step, min·step², … up to max, and max itself if the steps jump over it, plus `extra` (the
/// source's size) merged in; sorted and without repeats.
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, std::size_t step,
                                     std::size_t extra = 0);

/// How many copies one timed trial enqueues behind the spin kernel: enough that a trial moves about
/// 16 MiB (so the interval is long against the event resolution), at most 64, at least 1.
int copies_per_trial(std::size_t bytes);

/// Per-copy statistics from trial timings of `copies` copies each: every sample divided by `copies`.
/// (CV is unchanged by the division; median, min, max, mean and stddev scale.)
std::vector<double> per_copy_samples(std::span<const double> trial_ms, int copies);

/// The run's sizes, checked before any GPU is touched.
struct SweepConfig {
  std::size_t min_bytes = 1024;
  std::size_t max_bytes = std::size_t{1} << 30;
  std::size_t step = 4;
  std::size_t source_bytes = K80Reference::bytes;
  /// Bytes beyond every destination that must stay poisoned (catches writes past the end).
  static constexpr std::size_t guard_bytes = 4096;
  /// The largest transfer of the run.
  std::size_t largest() const { return max_bytes > source_bytes ? max_bytes : source_bytes; }
};

/// The small size of the "copy_return" scenario (see call_return_sizes).
inline constexpr std::size_t call_return_small_bytes = 4096;

/// The sizes at which the "copy_return" scenario asks when a copy call returns: a small copy, where the
/// fixed costs outweigh moving the bytes (4 KiB, the size the lesson's question is about, or the largest
/// transfer if that is smaller), and the book's size, where moving the bytes outweighs them. Sorted,
/// without repeats, none above config.largest().
std::vector<std::size_t> call_return_sizes(const SweepConfig& config);

/// Throws course::UsageError if a size is 0, min > max or step < 2. Needs no GPU.
void validate_sweep(const SweepConfig& config);

/// Device memory the run allocates: reference, destination and verification scratch (each with the
/// guard) plus the copy-ceiling measurement's two buffers, which are released before ours exist.
std::size_t device_bytes_needed(const SweepConfig& config);

/// Throws course::UsageError naming both figures when `device_bytes_needed` exceeds `free_bytes`.
void check_fits_in_device_memory(const SweepConfig& config, std::size_t free_bytes);

/// Throws course::UsageError when the peer-to-peer matrix's two buffers of `bytes` (each with the guard)
/// do not fit in `free_bytes` of device `device`. Saturates instead of wrapping on absurd sizes.
void check_peer_matrix_fits(std::size_t bytes, std::size_t free_bytes, int device);

/// The human form of a size: "32 MiB", "33554432 B" for sizes that are not whole binary units.
std::string size_label(std::size_t bytes);

}  // namespace bandwidth
