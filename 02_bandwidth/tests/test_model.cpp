// CPU side of chapter 02: units, the latency–bandwidth fit, statistics of batched
// trials, the sweep, and the checks on the command line's values. Runs on CI (no GPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "common/errors.hpp"
#include "common/stats.hpp"
#include "exercise_inputs.hpp"
#include "model.hpp"

using namespace bandwidth;

TEST_CASE("legacy bandwidthTest MB/s are 1.024e6 bytes/s: 1 GB/s is 976.5625 of them") {
  CHECK(legacy_mbs_from_gbs(1.0) == doctest::Approx(976.5625));
  CHECK(gbs_from_legacy_mbs(976.5625) == doctest::Approx(1.0));
  // The K80's pinned H2D figure in decimal GB/s, and back.
  CHECK(gbs_from_legacy_mbs(K80Reference::h2d_legacy_mbs) == doctest::Approx(7.6224512));
  CHECK(legacy_mbs_from_gbs(gbs_from_legacy_mbs(K80Reference::d2h_legacy_mbs)) ==
        doctest::Approx(K80Reference::d2h_legacy_mbs));
  // Its D2D figure counted each byte twice: bytes copied per second is half of it.
  CHECK(gbs_from_legacy_mbs(K80Reference::d2d_legacy_mbs_read_plus_write) / 2 == doctest::Approx(77.8473472));
  CHECK(gbs_from_bytes_seconds(32e9, 2.0) == doctest::Approx(16.0));
  CHECK(gbs_from_bytes_seconds(1.0, 0.0) == 0.0);
}

namespace {
// Sizes 1 KiB … 1 GiB in ×4 steps and the times T = α + n/β, optionally with multiplicative noise.
struct Synthetic {
  std::vector<double> bytes, seconds;
};
Synthetic synthetic(double alpha, double beta, double noise) {
  Synthetic s;
  std::uint64_t state = 12345;
  for (double n = 1024; n <= double(1 << 30); n *= 4) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);  // [0, 1)
    s.bytes.push_back(n);
    s.seconds.push_back((alpha + n / beta) * (1 + noise * (2 * u - 1)));
  }
  return s;
}

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) / static_cast<double>(1ull << 53); }

// A sweep as a GPU gives one, drawn from `rng`: α from 0.5 to 30 µs and β from 5 GB/s to 3 TB/s (both
// log-uniform); sizes from 1 KiB to 1 GiB in ×4 steps, each scaled by a factor in [1, 4) (no powers of
// two), up to three inner sizes left out, in shuffled order; times with relative noise up to `noise`.
struct DrawnSweep {
  double alpha = 0, beta = 0;
  Synthetic points;
};
DrawnSweep drawn_sweep(std::mt19937_64& rng, double noise) {
  DrawnSweep d;
  d.alpha = 0.5e-6 * std::exp(uniform(rng) * std::log(60.0));
  d.beta = 5e9 * std::exp(uniform(rng) * std::log(600.0));
  std::vector<double> sizes;
  for (int k = 0; k <= 10; ++k) sizes.push_back(std::floor(1024 * std::pow(4.0, k) * (1 + 3 * uniform(rng))));
  const int left_out = static_cast<int>(rng() % 4);
  for (int i = 0; i < left_out; ++i) sizes.erase(sizes.begin() + 1 + static_cast<std::ptrdiff_t>(rng() % (sizes.size() - 2)));
  std::shuffle(sizes.begin(), sizes.end(), rng);
  for (const double n : sizes) {
    d.points.bytes.push_back(n);
    d.points.seconds.push_back((d.alpha + n / d.beta) * (1 + noise * (2 * uniform(rng) - 1)));
  }
  return d;
}
}  // namespace

// The weighted fit (src/model.cpp), whose α, β and n½ the fit table and the plots show.
TEST_SUITE("latency-bandwidth fit") {
  TEST_CASE("the fit recovers latency and bandwidth from exact data, in any order") {
    const double alpha = 8e-6, beta = 25e9;
    auto s = synthetic(alpha, beta, 0);
    const auto fit = fit_latency_bandwidth(s.bytes, s.seconds);
    CHECK(fit.latency_s == doctest::Approx(alpha).epsilon(1e-6));
    CHECK(fit.bandwidth_bytes_per_s == doctest::Approx(beta).epsilon(1e-6));
    CHECK(fit.half_bandwidth_bytes == doctest::Approx(alpha * beta).epsilon(1e-6));  // 200 kB
    CHECK(fit.max_relative_residual < 1e-9);
    CHECK(fit.points == s.bytes.size());
    std::reverse(s.bytes.begin(), s.bytes.end());
    std::reverse(s.seconds.begin(), s.seconds.end());
    const auto reversed = fit_latency_bandwidth(s.bytes, s.seconds);
    CHECK(reversed.latency_s == doctest::Approx(alpha).epsilon(1e-6));
    CHECK(reversed.bandwidth_bytes_per_s == doctest::Approx(beta).epsilon(1e-6));
  }

  TEST_CASE("with 3% noise the weighted fit still finds a latency 10^4 times smaller than the largest time") {
    const double alpha = 2.5e-6, beta = 50e9;  // 1 GiB takes 21 ms; α is 2.5 µs
    const auto s = synthetic(alpha, beta, 0.03);
    const auto fit = fit_latency_bandwidth(s.bytes, s.seconds);
    CHECK(fit.latency_s == doctest::Approx(alpha).epsilon(0.10));
    CHECK(fit.bandwidth_bytes_per_s == doctest::Approx(beta).epsilon(0.04));
    CHECK(fit.max_relative_residual < 0.07);
    // Unweighted least squares on the same points: α is lost in the large sizes' residuals.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const double k = static_cast<double>(s.bytes.size());
    for (std::size_t i = 0; i < s.bytes.size(); ++i) {
      sx += s.bytes[i];
      sy += s.seconds[i];
      sxx += s.bytes[i] * s.bytes[i];
      sxy += s.bytes[i] * s.seconds[i];
    }
    const double slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    const double unweighted_alpha = (sy - slope * sx) / k;
    CHECK(std::abs(unweighted_alpha - alpha) > 10 * std::abs(fit.latency_s - alpha));
  }

  TEST_CASE("at the fit the residuals over the fitted times squared balance: the weights are the fitted times") {
    // The two normal equations of min Σ (r_i / F_i)² with the weights held at the fitted times F_i:
    // Σ r_i / F_i² = 0 and Σ n_i r_i / F_i² = 0. Weights from the measured times satisfy them only by
    // chance; a few rounds of re-weighting bring them below 1e-5 (relative, as computed here).
    const std::uint64_t seed = bandwidth::exercise_inputs::seed(2024) ^ 0xba1a4ceull;
    INFO("seed " << seed << " (COURSE_SEED)");
    std::mt19937_64 rng(seed);
    double worst = 0;
    for (int sweep = 0; sweep < 100; ++sweep) {
      const DrawnSweep d = drawn_sweep(rng, 0.02);
      const auto fit = fit_latency_bandwidth(d.points.bytes, d.points.seconds);
      double sum_r = 0, sum_nr = 0, scale_r = 0, scale_nr = 0;
      for (std::size_t i = 0; i < d.points.bytes.size(); ++i) {
        const double n = d.points.bytes[i];
        const double fitted = fit.latency_s + n / fit.bandwidth_bytes_per_s;
        const double r = d.points.seconds[i] - fitted;
        sum_r += r / (fitted * fitted);
        sum_nr += n * r / (fitted * fitted);
        scale_r += 1 / fitted;
        scale_nr += n / fitted;
      }
      worst = std::max({worst, std::abs(sum_r / scale_r), std::abs(sum_nr / scale_nr)});
    }
    CHECK(worst < 1e-5);
  }

  TEST_CASE("on 300 sweeps drawn from the seed (awkward sizes, any order, 2% noise) alpha is within 10% and beta within 4%") {
    const std::uint64_t seed = bandwidth::exercise_inputs::seed(2024);
    INFO("seed " << seed << " (COURSE_SEED)");
    std::mt19937_64 rng(seed);
    int wrong = 0;
    for (int sweep = 0; sweep < 300; ++sweep) {
      const DrawnSweep d = drawn_sweep(rng, 0.02);
      const auto fit = fit_latency_bandwidth(d.points.bytes, d.points.seconds);
      const double alpha_error = std::abs(fit.latency_s / d.alpha - 1);
      const double beta_error = std::abs(fit.bandwidth_bytes_per_s / d.beta - 1);
      if (!(alpha_error < 0.10 && beta_error < 0.04) && wrong++ == 0) {
        INFO("sweep " << sweep << " of " << d.points.bytes.size() << " points: alpha " << d.alpha * 1e6 << " us fitted "
                      << fit.latency_s * 1e6 << " us, beta " << d.beta / 1e9 << " GB/s fitted "
                      << fit.bandwidth_bytes_per_s / 1e9 << " GB/s");
        CHECK(alpha_error < 0.10);
        CHECK(beta_error < 0.04);
      }
    }
    CHECK(wrong == 0);
  }

  TEST_CASE("two points: the line through both") {
    const std::vector<double> bytes{3000, 7'000'000}, seconds{4e-6, 1.2e-4};
    const auto fit = fit_latency_bandwidth(bytes, seconds);
    const double beta = (bytes[1] - bytes[0]) / (seconds[1] - seconds[0]);
    CHECK(fit.bandwidth_bytes_per_s == doctest::Approx(beta).epsilon(1e-9));
    CHECK(fit.latency_s == doctest::Approx(seconds[0] - bytes[0] / beta).epsilon(1e-9));
    CHECK(fit.max_relative_residual < 1e-9);
  }

  TEST_CASE("the fit refuses too few points, equal sizes, mismatched lengths and non-positive values") {
    const std::vector<double> one{1.0}, two{1.0, 2.0}, same{4.0, 4.0}, three{1.0, 2.0, 3.0}, zero{0.0, 1.0};
    CHECK_THROWS_AS(fit_latency_bandwidth(one, one), std::invalid_argument);
    CHECK_THROWS_AS(fit_latency_bandwidth(same, two), std::invalid_argument);
    CHECK_THROWS_AS(fit_latency_bandwidth(two, three), std::invalid_argument);
    CHECK_THROWS_AS(fit_latency_bandwidth(zero, two), std::invalid_argument);
    CHECK_THROWS_AS(fit_latency_bandwidth(two, zero), std::invalid_argument);
  }

  TEST_CASE("a latency below what the data can show gives no half-bandwidth size rather than a negative one") {
    // Pure bandwidth with noise can fit α slightly below zero; n½ must then be 0.
    const std::vector<double> bytes{1e3, 1e6, 1e9}, seconds{0.9e-6, 1.0e-3, 1.0};
    const auto fit = fit_latency_bandwidth(bytes, seconds);
    CHECK(fit.latency_s < 0);
    CHECK(fit.half_bandwidth_bytes == 0);
  }
}

TEST_CASE("per-copy statistics of batched trials: times divide by the batch, the CV does not change") {
  const std::vector<double> trials{6.4, 6.0, 7.2, 6.8, 6.4};  // ms for 64 copies each
  const auto per_copy = per_copy_samples(trials, 64);
  const auto batch = course::summarize(trials);
  const auto copy = course::summarize(per_copy);
  CHECK(copy.median == doctest::Approx(0.1));
  CHECK(copy.min == doctest::Approx(6.0 / 64));
  CHECK(copy.cv == doctest::Approx(batch.cv));
  CHECK_THROWS_AS(per_copy_samples(trials, 0), std::invalid_argument);
}

TEST_CASE("copies per trial: about 16 MiB per trial, between 1 and 64 copies") {
  CHECK(copies_per_trial(1024) == 64);
  CHECK(copies_per_trial(256 << 10) == 64);
  CHECK(copies_per_trial(1 << 20) == 16);
  CHECK(copies_per_trial(3 << 20) == 6);
  CHECK(copies_per_trial(16 << 20) == 1);
  CHECK(copies_per_trial(std::size_t{1} << 30) == 1);
}

TEST_CASE("the sweep runs 1 KiB to 1 GiB in x4 steps and includes the book's 32 MiB") {
  const auto sizes = sweep_sizes(1024, std::size_t{1} << 30, 4, K80Reference::bytes);
  CHECK(sizes.size() == 12);
  CHECK(sizes.front() == 1024);
  CHECK(sizes.back() == (std::size_t{1} << 30));
  CHECK(std::is_sorted(sizes.begin(), sizes.end()));
  CHECK(std::find(sizes.begin(), sizes.end(), K80Reference::bytes) != sizes.end());
  CHECK(sweep_sizes(1, 10, 4) == std::vector<std::size_t>{1, 4, 10});   // max added when stepped over
  CHECK(sweep_sizes(5, 5, 2, 5) == std::vector<std::size_t>{5});         // no repeats
  const std::size_t huge = std::size_t{1} << 62;
  CHECK(sweep_sizes(huge, SIZE_MAX, 4) == std::vector<std::size_t>{huge, SIZE_MAX});  // no overflow
  CHECK_THROWS_AS(sweep_sizes(0, 10, 2), std::invalid_argument);
}

TEST_CASE("when a copy call returns is asked at 4 KiB and at the book's size, never past the largest transfer") {
  const SweepConfig book;  // 1 KiB .. 1 GiB, the book's 32 MiB
  CHECK(call_return_sizes(book) == std::vector<std::size_t>{4096, K80Reference::bytes});
  SweepConfig small = book;
  small.min_bytes = 1024;
  small.max_bytes = 2048;
  small.source_bytes = 1000;
  CHECK(call_return_sizes(small) == std::vector<std::size_t>{1000, 2048});  // 4 KiB would not fit: the largest
  small.source_bytes = 4096;
  CHECK(call_return_sizes(small) == std::vector<std::size_t>{4096});  // the book's size is 4 KiB: one size
  small.source_bytes = 3;
  small.max_bytes = 3;
  small.min_bytes = 3;
  CHECK(call_return_sizes(small) == std::vector<std::size_t>{3});
}

TEST_CASE("sizes of zero, min above max and a step below 2 are usage errors") {
  SweepConfig ok;
  CHECK_NOTHROW(validate_sweep(ok));
  SweepConfig c = ok;
  c.source_bytes = 0;
  CHECK_THROWS_AS(validate_sweep(c), course::UsageError);
  c = ok;
  c.min_bytes = 0;
  CHECK_THROWS_AS(validate_sweep(c), course::UsageError);
  c = ok;
  c.min_bytes = c.max_bytes * 2;
  CHECK_THROWS_AS(validate_sweep(c), course::UsageError);
  c = ok;
  c.step = 1;
  CHECK_THROWS_AS(validate_sweep(c), course::UsageError);
}

TEST_CASE("a sweep that needs more than the free device memory is a usage error") {
  SweepConfig c;  // largest transfer 1 GiB: three buffers of 1 GiB + guard
  CHECK(device_bytes_needed(c) == 3 * ((std::size_t{1} << 30) + SweepConfig::guard_bytes));
  CHECK_NOTHROW(check_fits_in_device_memory(c, std::size_t{80} << 30));
  CHECK_THROWS_AS(check_fits_in_device_memory(c, std::size_t{3} << 30), course::UsageError);
  c.max_bytes = SIZE_MAX - 10;  // absurd: saturates instead of wrapping around to a small number
  CHECK(device_bytes_needed(c) == SIZE_MAX);
  CHECK_THROWS_AS(check_fits_in_device_memory(c, std::size_t{80} << 30), course::UsageError);
}

TEST_CASE("a peer matrix needs two buffers of its size on each device; absurd sizes do not wrap around") {
  const std::size_t size = std::size_t{256} << 20;
  CHECK_NOTHROW(check_peer_matrix_fits(size, 2 * (size + SweepConfig::guard_bytes), 1));
  CHECK_THROWS_AS(check_peer_matrix_fits(size, 2 * (size + SweepConfig::guard_bytes) - 1, 1), course::UsageError);
  CHECK_THROWS_AS(check_peer_matrix_fits(SIZE_MAX, std::size_t{80} << 30, 0), course::UsageError);
  CHECK_THROWS_AS(check_peer_matrix_fits(SIZE_MAX / 2, std::size_t{80} << 30, 0), course::UsageError);
}

TEST_CASE("size labels are exact binary units or bytes") {
  CHECK(size_label(1024) == "1 KiB");
  CHECK(size_label(33554432) == "32 MiB");
  CHECK(size_label(std::size_t{1} << 30) == "1 GiB");
  CHECK(size_label((1 << 20) + 7) == "1048583 B");
  CHECK(size_label(0) == "0 B");
}
