#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "common/errors.hpp"
#include "physics.hpp"
#include "stencil.hpp"

using namespace wave;

TEST_CASE("the 8th-order weights annihilate constants and match f'' up to the 9th Taylor term") {
  // Σ_k w_k (f(x+k) + f(x−k)) expands into moments Σ_{k≥1} w_k k^m (m even): the weights must give
  // m = 0: w_0 + 2Σw_k = 0, m = 2: Σ w_k k² = 1, and m = 4, 6, 8: 0.
  double m0 = taylor_weights[0];
  for (int k = 1; k <= 4; ++k) m0 += 2 * taylor_weights[k];
  CHECK(m0 == doctest::Approx(0.0).epsilon(1e-15));
  for (int m : {2, 4, 6, 8}) {
    double moment = 0;
    for (int k = 1; k <= 4; ++k) moment += taylor_weights[k] * std::pow(k, m);
    CHECK(moment == doctest::Approx(m == 2 ? 1.0 : 0.0).scale(1.0).epsilon(1e-12));
  }
}

TEST_CASE("the Laplacian's error falls as h^8 on a smooth function") {
  const auto f = [](double x, double y) { return std::sin(2 * x) * std::cos(3 * y); };
  const double x = 0.3, y = 0.7, exact = -(4.0 + 9.0) * f(x, y);
  std::vector<double> errors;
  for (double h : {0.4, 0.2, 0.1, 0.05}) errors.push_back(std::fabs(laplacian_8th(f, x, y, h) - exact));
  for (std::size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log2(errors[i - 1] / errors[i]);
    INFO("halving h from step " << i << ": error " << errors[i - 1] << " -> " << errors[i]);
    CHECK(order > 7.5);
    CHECK(order < 8.6);
  }
}

TEST_CASE("the CFL check accepts stable time steps and refuses unstable ones") {
  // −symbol at θ = π per axis: 205/72 + 2(8/5 + 1/5 + 8/315 + 1/560); two axes; C²·S ≤ 4.
  const double per_axis = 205.0 / 72 + 2 * (8.0 / 5 + 1.0 / 5 + 8.0 / 315 + 1.0 / 560);
  CHECK(courant_limit() == doctest::Approx(2.0 / std::sqrt(2 * per_axis)).epsilon(1e-9));
  Problem p;
  p.model = VelocityModel::layered;  // v_max = 3500 m/s, h = 10 m
  const double dt_limit = courant_limit() * p.spacing_m / 3500.0;
  p.dt_s = 0.99 * dt_limit;
  CHECK_NOTHROW(resolve(p));
  p.dt_s = 1.01 * dt_limit;
  CHECK_THROWS_AS(resolve(p), course::UsageError);
  p.dt_s = 0;
  p.courant = 0.6;
  CHECK_THROWS_AS(resolve(p), course::UsageError);
}

TEST_CASE("bad problems are refused with UsageError") {
  Problem p;
  p.source_x = p.nx;
  CHECK_THROWS_AS(resolve(p), course::UsageError);
  p = Problem{};
  p.sponge_width = p.nx;
  CHECK_THROWS_AS(resolve(p), course::UsageError);
  CHECK_THROWS_AS(parse_velocity_model("marble"), course::UsageError);
}

TEST_CASE("the source, the sponge and the velocity layers are where they should be") {
  CHECK(ricker(1.0 / 15.0, 15.0) == doctest::Approx(1.0));
  CHECK(std::fabs(ricker(1.0, 15.0)) < 1e-10);
  const auto d = sponge_profile(100, 10);
  for (int i = 10; i < 90; ++i) CHECK(d[static_cast<std::size_t>(i)] == 1.0f);
  for (int i = 0; i < 9; ++i) CHECK(d[static_cast<std::size_t>(i)] < d[static_cast<std::size_t>(i + 1)]);
  CHECK(d[0] == d[99]);
  Problem p;
  p.ny = 9;
  CHECK(velocity_of_row(p, 0) == 1500.0);
  CHECK(velocity_of_row(p, 4) == 2500.0);
  CHECK(velocity_of_row(p, 8) == 3500.0);
}

TEST_CASE("the CPU reference is exactly mirror-symmetric about a centred source") {
  Problem p;
  p.nx = 41;
  p.ny = 33;
  p.sponge_width = 5;
  p.model = VelocityModel::constant;
  const auto u = cpu_simulate(p, 80);  // source at (20, 16)
  double peak = 0;
  for (int y = 0; y < p.ny; ++y)
    for (int x = 0; x < p.nx; ++x) {
      const float a = u[static_cast<std::size_t>(y * p.nx + x)], b = u[static_cast<std::size_t>(y * p.nx + (p.nx - 1 - x))];
      REQUIRE(a == b);  // ring_sum adds left+right: swapping them changes no bit
      peak = std::max(peak, static_cast<double>(std::fabs(a)));
    }
  CHECK(peak > 1e-4);  // the wave exists
  CHECK(std::isfinite(peak));
}
