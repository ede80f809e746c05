// Partitions of the particles among the threads: equal shares (the chapter's code), and the triangle
// method's staircase (exercise 01.2: its suite grades it).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "forces.hpp"
#include "md_fixtures.hpp"
#include "partition.hpp"

namespace {

std::vector<long> shares_of(const std::vector<std::size_t>& bounds) {
  std::vector<long> shares;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) shares.push_back(static_cast<long>(bounds[k + 1]) - static_cast<long>(bounds[k]));
  return shares;
}

/// Simulates the critical section with the model's clock: thread k arrives after share_k · t_p, passes
/// take Tc each, one at a time, in order of arrival. Returns the total idle time of the team.
double simulated_idle(const std::vector<std::size_t>& bounds, double particle_time, double section_time) {
  const auto shares = shares_of(bounds);
  std::vector<double> arrival;
  for (long s : shares) arrival.push_back(static_cast<double>(s) * particle_time);
  std::vector<std::size_t> order(arrival.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return arrival[a] < arrival[b]; });
  double free_at = 0, idle = 0;
  std::vector<double> exit(arrival.size());
  for (std::size_t k : order) {
    const double enter = std::max(arrival[k], free_at);
    idle += enter - arrival[k];
    exit[k] = free_at = enter + section_time;
  }
  for (double e : exit) idle += free_at - e;
  return idle;
}

/// Every particle owned exactly once: threads + 1 boundaries from 0 to n, never decreasing.
void require_cover(const std::vector<std::size_t>& bounds, std::size_t n, int threads) {
  REQUIRE(bounds.size() == static_cast<std::size_t>(threads) + 1);
  REQUIRE(bounds.front() == 0);
  REQUIRE(bounds.back() == n);
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) REQUIRE(bounds[k] <= bounds[k + 1]);
}

}  // namespace

TEST_CASE("equal shares cover every particle once and differ by one particle at most") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{32'000}})
    for (int threads : {1, 2, 3, 7, 16, 64}) {
      CAPTURE(n);
      CAPTURE(threads);
      const auto bounds = md::equal_partition(n, threads);
      require_cover(bounds, n, threads);
      const auto shares = shares_of(bounds);
      const auto [low, high] = std::minmax_element(shares.begin(), shares.end());
      CHECK(*high - *low <= 1);
    }
  CHECK_THROWS_AS(md::equal_partition(10, 0), std::invalid_argument);
  CHECK(md::max_triangle_step(32'000, 16) == doctest::Approx(2.0 * 32'000 / (16 * 15)));
  CHECK(std::isinf(md::max_triangle_step(32'000, 1)));
}

TEST_SUITE("exercise 01.2") {
  TEST_CASE("the triangle partition covers each particle exactly once for any N, thread count and step") {
    const double steps[] = {0.0, 0.4, 1.0, 3.7, 17.0, 250.0, 1e6, 1e300, -5.0,
                            std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
    for (std::size_t n = 0; n <= 300; n += (n < 70 ? 1 : 23)) {
      for (int threads = 1; threads <= 40; ++threads) {
        for (double step : steps) {
          CAPTURE(n);
          CAPTURE(threads);
          CAPTURE(step);
          const auto bounds = md::triangle_partition(n, threads, step);
          require_cover(bounds, n, threads);
          std::vector<int> owners(n, 0);
          for (std::size_t k = 0; k + 1 < bounds.size(); ++k)
            for (std::size_t i = bounds[k]; i < bounds[k + 1]; ++i) ++owners[i];
          for (std::size_t i = 0; i < n; ++i) REQUIRE(owners[i] == 1);
        }
      }
    }
    // Large N: boundaries only (up to 2^31 particles, team sizes up to 1024).
    for (std::size_t n : {std::size_t{1} << 20, std::size_t{665'500}, std::size_t{2'147'483'000}})
      for (int threads : {2, 7, 16, 1024})
        for (double step : {0.0, 123.4, 1e12}) {
          CAPTURE(n);
          CAPTURE(threads);
          CAPTURE(step);
          require_cover(md::triangle_partition(n, threads, step), n, threads);
        }
    CHECK_THROWS_AS(md::triangle_partition(10, 0, 1.0), std::invalid_argument);
    CHECK_THROWS_AS(md::triangle_partition(10, -3, 1.0), std::invalid_argument);
  }

  TEST_CASE("triangle shares climb by the step: thread k gets n0 + k*delta particles") {
    const std::size_t n = 100'000;
    for (int threads : {2, 3, 8, 11, 16}) {
      for (double step : {1.0, 37.5, 250.0, 1000.0}) {
        if (step > md::max_triangle_step(n, threads)) continue;
        const auto shares = shares_of(md::triangle_partition(n, threads, step));
        const double first = static_cast<double>(n) / threads - step * (threads - 1) / 2.0;
        for (int k = 0; k < threads; ++k) {
          CAPTURE(threads);
          CAPTURE(step);
          CAPTURE(k);
          CHECK(std::abs(static_cast<double>(shares[static_cast<std::size_t>(k)]) - (first + k * step)) <= 1.0);
        }
      }
    }
  }

  TEST_CASE("random staircases (from the grader's seed): shares within one particle of n0 + k*delta") {
    std::mt19937_64 rng(md_test::course_seed());
    for (int trial = 0; trial < 2000; ++trial) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 5'000'000)(rng);
      const int threads = std::uniform_int_distribution<int>(1, 64)(rng);
      const double limit = threads > 1 ? md::max_triangle_step(n, threads) : 0.0;
      const double step = std::uniform_real_distribution<double>(0.0, 1.0)(rng) * limit;
      CAPTURE(n);
      CAPTURE(threads);
      CAPTURE(step);
      const auto bounds = md::triangle_partition(n, threads, step);
      require_cover(bounds, n, threads);
      const auto shares = shares_of(bounds);
      const double first = static_cast<double>(n) / threads - step * (threads - 1) / 2.0;
      for (int k = 0; k < threads; ++k)
        REQUIRE(std::abs(static_cast<double>(shares[static_cast<std::size_t>(k)]) - (first + k * step)) <= 1.0);
    }
  }

  TEST_CASE("a zero step gives equal shares; one thread gets everything") {
    for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{1000}, std::size_t{32'000}})
      for (int threads : {1, 3, 16}) {
        const auto shares = shares_of(md::triangle_partition(n, threads, 0.0));
        for (long s : shares) CHECK(std::abs(static_cast<double>(s) - static_cast<double>(n) / threads) <= 1.0);
      }
    const auto one = md::triangle_partition(777, 1, 50.0);
    CHECK(one == std::vector<std::size_t>{0, 777});
  }

  TEST_CASE("a step steeper than 2N/(Nth(Nth-1)) is clamped: the first thread gets (almost) nothing") {
    const std::size_t n = 32'000;
    const int threads = 16;
    const double steepest = md::max_triangle_step(n, threads);
    const auto clamped = md::triangle_partition(n, threads, 10 * steepest);
    const auto shares = shares_of(clamped);
    CHECK(shares.front() <= 1);
    for (std::size_t k = 1; k < shares.size(); ++k) CHECK(shares[k] >= shares[k - 1]);
    CHECK(std::abs(static_cast<double>(shares.back()) - (threads - 1) * steepest) <= 1.0);
    CHECK(md::triangle_partition(n, threads, std::numeric_limits<double>::infinity()) == clamped);
    // A negative or undefined step is no staircase at all: the equal shares of a zero step.
    const auto flat = md::triangle_partition(n, threads, 0.0);
    CHECK(md::triangle_partition(n, threads, -40.0) == flat);
    CHECK(md::triangle_partition(n, threads, std::numeric_limits<double>::quiet_NaN()) == flat);
  }

  TEST_CASE("with delta = Tc/t_p the staircase halves the idle time of the critical section (model clock)") {
    const std::size_t n = 200'000;
    const double particle_time = 1.0, section_time = 400.0;  // Δ = 400 particles
    for (int threads : {2, 4, 8, 11}) {
      const double pairs = threads * (threads - 1.0);
      const double critical = simulated_idle(md::equal_partition(n, threads), particle_time, section_time);
      const double triangle =
          simulated_idle(md::triangle_partition(n, threads, section_time / particle_time), particle_time, section_time);
      CAPTURE(threads);
      CHECK(critical == doctest::Approx(pairs * section_time).epsilon(0.01));
      CHECK(triangle == doctest::Approx(pairs * section_time / 2).epsilon(0.02));
    }
  }

  TEST_CASE("the triangle strategy with a forced, too steep staircase still sums every force once") {
    // The driver's triangle rows: its partition feeds the critical method's section, which must add
    // every row's forces once whatever the shares, including a first thread that owns nothing.
    const std::uint64_t seed = md_test::course_seed();
    const std::size_t atoms = md_test::awkward_atom_counts(seed)[6];
    const md_test::ForceCase c = md_test::force_case(atoms, seed);
    for (const int threads : {2, 3, 7}) {
      CAPTURE(threads);
      md::ForceWorkspace steep;
      steep.triangle_threads = threads;  // as if calibrated: no calibration run
      steep.triangle_step = 1e9;
      auto force = md_test::poisoned(atoms);
      md::find_variant("triangle")->compute(c.input(md::ListKind::half), force, steep, threads);
      CHECK(c.error(force) <= 1e-10);
      CHECK(steep.times.front().particles == 0);
      std::size_t rows = 0;
      for (const md::ThreadTimes& t : steep.times) rows += t.particles;
      CHECK(rows == atoms);
    }
  }
}
