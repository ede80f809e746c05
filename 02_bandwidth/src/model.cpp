#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/errors.hpp"
#include "common/report.hpp"

namespace bandwidth {

LatencyBandwidthFit fit_latency_bandwidth(std::span<const double> bytes, std::span<const double> seconds) {
  if (bytes.size() != seconds.size()) throw std::invalid_argument("fit: bytes and times differ in length");
  if (bytes.size() < 2) throw std::invalid_argument("fit: need at least two points");
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (!(bytes[i] > 0) || !(seconds[i] > 0)) throw std::invalid_argument("fit: sizes and times must be > 0");
  if (std::all_of(bytes.begin(), bytes.end(), [&](double b) { return b == bytes[0]; }))
    throw std::invalid_argument("fit: need at least two different sizes");

  // T = α + γ·n is linear in (α, γ = 1/β): weighted normal equations, solved in closed form.
  // Sizes are scaled to GiB-ish units so the 2×2 system stays well conditioned.
  const double scale = 1.0 / (1 << 30);
  double alpha = 0, gamma = 0;
  std::vector<double> model(seconds.begin(), seconds.end());  // first weights: the measured times
  for (int iteration = 0; iteration < 4; ++iteration) {
    double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const double w = 1.0 / (model[i] * model[i]);
      const double x = bytes[i] * scale;
      sw += w;
      swx += w * x;
      swxx += w * x * x;
      swy += w * seconds[i];
      swxy += w * x * seconds[i];
    }
    const double det = sw * swxx - swx * swx;
    if (!(det > 0)) throw std::invalid_argument("fit: degenerate sizes");
    alpha = (swxx * swy - swx * swxy) / det;
    gamma = (sw * swxy - swx * swy) / det * scale;
    // Re-weight with the fitted times; keep the old weight where the fit goes non-positive.
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const double fitted = alpha + gamma * bytes[i];
      if (fitted > 0) model[i] = fitted;
    }
  }
  LatencyBandwidthFit fit;
  fit.points = bytes.size();
  fit.latency_s = alpha;
  fit.bandwidth_bytes_per_s = gamma > 0 ? 1.0 / gamma : 0.0;
  fit.half_bandwidth_bytes = alpha > 0 && gamma > 0 ? alpha / gamma : 0.0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double residual = std::abs(alpha + gamma * bytes[i] - seconds[i]) / seconds[i];
    fit.max_relative_residual = std::max(fit.max_relative_residual, residual);
  }
  return fit;
}

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, std::size_t step,
                                     std::size_t extra) {
  if (min_bytes == 0 || step < 2 || min_bytes > max_bytes) throw std::invalid_argument("sweep_sizes: bad range");
  std::vector<std::size_t> sizes;
  for (std::size_t n = min_bytes;; n *= step) {
    sizes.push_back(n);
    if (n > max_bytes / step) break;  // the next step would pass max (or overflow)
  }
  if (sizes.back() != max_bytes) sizes.push_back(max_bytes);
  if (extra > 0) sizes.push_back(extra);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<std::size_t> call_return_sizes(const SweepConfig& config) {
  std::vector<std::size_t> sizes{std::min(call_return_small_bytes, config.largest()), config.source_bytes};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

int copies_per_trial(std::size_t bytes) {
  constexpr std::size_t target_bytes = std::size_t{16} << 20;
  if (bytes == 0) return 64;
  const std::size_t copies = (target_bytes + bytes - 1) / bytes;
  return static_cast<int>(std::clamp<std::size_t>(copies, 1, 64));
}

std::vector<double> per_copy_samples(std::span<const double> trial_ms, int copies) {
  if (copies < 1) throw std::invalid_argument("per_copy_samples: copies must be >= 1");
  std::vector<double> out(trial_ms.begin(), trial_ms.end());
  for (double& v : out) v /= copies;
  return out;
}

void validate_sweep(const SweepConfig& c) {
  if (c.min_bytes == 0 || c.max_bytes == 0 || c.source_bytes == 0)
    throw course::UsageError("transfer sizes must be at least 1 byte");
  if (c.min_bytes > c.max_bytes)
    throw course::UsageError("--min-size (" + std::to_string(c.min_bytes) + ") is larger than --max-size (" +
                             std::to_string(c.max_bytes) + ")");
  if (c.step < 2) throw course::UsageError("--step must be at least 2");
}

std::size_t device_bytes_needed(const SweepConfig& c) {
  // Three buffers: the reference (source of D2H and D2D), the destination, and the scratch that host
  // destinations are uploaded into for checking. Saturate instead of overflowing on absurd sizes.
  const std::size_t each = c.largest() + SweepConfig::guard_bytes;
  if (each < c.largest() || each > SIZE_MAX / 3) return SIZE_MAX;
  return 3 * each;
}

void check_fits_in_device_memory(const SweepConfig& c, std::size_t free_bytes) {
  const std::size_t needed = device_bytes_needed(c);
  if (needed > free_bytes)
    throw course::UsageError("a largest transfer of " + std::to_string(c.largest()) + " bytes needs " +
                             course::format_bytes(static_cast<double>(needed)) +
                             " of device memory; only " + course::format_bytes(static_cast<double>(free_bytes)) +
                             " is free");
}

void check_peer_matrix_fits(std::size_t bytes, std::size_t free_bytes, int device) {
  const std::size_t each = bytes + SweepConfig::guard_bytes;
  if (each < bytes || each > free_bytes / 2)
    throw course::UsageError("--p2p-size " + std::to_string(bytes) + " does not fit twice in device " +
                             std::to_string(device) + "'s free memory (" +
                             course::format_bytes(static_cast<double>(free_bytes)) + ")");
}

std::string size_label(std::size_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::size_t value = bytes;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + units[unit];
}

}  // namespace bandwidth
