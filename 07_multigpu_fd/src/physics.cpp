#include "physics.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "common/errors.hpp"

namespace wave {

VelocityModel parse_velocity_model(const std::string& name) {
  if (name == "constant") return VelocityModel::constant;
  if (name == "layered") return VelocityModel::layered;
  throw course::UsageError("unknown velocity model '" + name + "' (use constant or layered)");
}

const char* to_string(VelocityModel model) { return model == VelocityModel::constant ? "constant" : "layered"; }

double courant_limit() {
  // Von Neumann: a mode e^{i(θx + φy)} multiplies by g with g² − (2 − C²·S)g + 1 = 0, S = −symbol
  // summed over both axes; |g| = 1 needs C²·S ≤ 4 for every θ, φ. The worst θ is searched, not assumed.
  double worst = 0.0;
  for (int i = 0; i <= 4096; ++i) {
    const double theta = std::numbers::pi * i / 4096.0;
    double symbol = taylor_weights[0];
    for (int k = 1; k <= 4; ++k) symbol += 2.0 * taylor_weights[k] * std::cos(k * theta);
    worst = std::max(worst, -symbol);
  }
  return 2.0 / std::sqrt(2.0 * worst);
}

double velocity_of_row(const Problem& p, int y) {
  if (p.model == VelocityModel::constant) return 2000.0;
  // Layers by global row: the same for every decomposition.
  const long long third = static_cast<long long>(y) * 3 / p.ny;
  return third == 0 ? 1500.0 : third == 1 ? 2500.0 : 3500.0;
}

double max_velocity(const Problem& p) { return p.model == VelocityModel::constant ? 2000.0 : 3500.0; }

Problem resolve(Problem p) {
  const auto fail = [](const std::string& why) { throw course::UsageError(why); };
  if (p.nx < 1 || p.ny < 1) fail("nx and ny must be at least 1");
  if (p.nx > (1 << 20) || p.ny > (1 << 20)) fail("nx and ny must be at most 2^20");
  if (!(p.spacing_m > 0)) fail("the grid spacing must be positive");
  if (p.sponge_width < 0 || p.sponge_width > std::min(p.nx, p.ny) / 3)
    fail("sponge width must be between 0 and a third of the smaller grid side");
  if (p.source_x < 0) p.source_x = p.nx / 2;
  if (p.source_y < 0) p.source_y = p.ny / 2;
  if (p.source_x >= p.nx || p.source_y >= p.ny) fail("the source must lie inside the grid");
  const double limit = courant_limit();
  if (p.dt_s == 0.0) {
    if (!(p.courant > 0)) fail("the Courant number must be positive");
    p.dt_s = p.courant * p.spacing_m / max_velocity(p);
  }
  if (!(p.dt_s > 0)) fail("dt must be positive");
  const double courant = max_velocity(p) * p.dt_s / p.spacing_m;
  if (courant > limit) {
    std::ostringstream msg;
    msg << "unstable time step: v_max·dt/h = " << courant << " exceeds the 8th-order leapfrog limit " << limit
        << " (dt must be at most " << limit * p.spacing_m / max_velocity(p) << " s)";
    fail(msg.str());
  }
  p.courant = courant;
  return p;
}

std::vector<float> courant2_per_row(const Problem& p) {
  std::vector<float> c(static_cast<std::size_t>(p.ny));
  for (int y = 0; y < p.ny; ++y) {
    const double c1 = velocity_of_row(p, y) * p.dt_s / p.spacing_m;
    c[static_cast<std::size_t>(y)] = static_cast<float>(c1 * c1);
  }
  return c;
}

std::vector<float> sponge_profile(int n, int width) {
  std::vector<float> d(static_cast<std::size_t>(n), 1.0f);
  for (int i = 0; i < width; ++i) {
    // Distance-to-the-edge weighting: strongest at the wall, 1 where the sponge meets the interior.
    const double depth = static_cast<double>(width - i) / width;
    const float damp = static_cast<float>(std::exp(-0.08 * depth * depth));
    d[static_cast<std::size_t>(i)] = std::min(d[static_cast<std::size_t>(i)], damp);
    d[static_cast<std::size_t>(n - 1 - i)] = std::min(d[static_cast<std::size_t>(n - 1 - i)], damp);
  }
  return d;
}

double ricker(double t_s, double peak_hz) {
  const double a = std::pow(std::numbers::pi * peak_hz * (t_s - 1.0 / peak_hz), 2);
  return (1.0 - 2.0 * a) * std::exp(-a);
}

float source_value(const Problem& p, int step) {
  const double c = velocity_of_row(p, p.source_y) * p.dt_s / p.spacing_m;
  return static_cast<float>(c * c * ricker(step * p.dt_s, p.source_peak_hz));
}

void cpu_step(const SlabLayout& L, std::span<const float> prev, std::span<const float> cur, std::span<float> next,
              const StepCoefficients& c, int row_begin, int row_end) {
  for (int y = row_begin; y < row_end; ++y) {
    const float courant2 = c.courant2[static_cast<std::size_t>(y)];
    const float damp_y = c.damp_y[static_cast<std::size_t>(y)];
    for (int x = 0; x < L.nx; ++x) {
      const auto u = [&](int dx, int dy) { return cur[L.index(x + dx, y + dy)]; };
      const std::size_t i = L.index(x, y);
      float out = leapfrog_cell(u(0, 0), prev[i], ring_sum(u(-1, 0), u(1, 0), u(0, -1), u(0, 1)),
                                ring_sum(u(-2, 0), u(2, 0), u(0, -2), u(0, 2)),
                                ring_sum(u(-3, 0), u(3, 0), u(0, -3), u(0, 3)),
                                ring_sum(u(-4, 0), u(4, 0), u(0, -4), u(0, 4)), courant2,
                                mul_rn(c.damp_x[static_cast<std::size_t>(x)], damp_y));
      if (y == c.source_y && x == c.source_x) out = add_rn(out, c.source);
      next[i] = out;
    }
  }
}

std::vector<float> cpu_simulate(const Problem& problem, int steps) {
  const Problem p = resolve(problem);
  const SlabLayout L = SlabLayout::make(p.nx, p.ny);
  std::vector<float> buf[3] = {std::vector<float>(L.elements()), std::vector<float>(L.elements()),
                               std::vector<float>(L.elements())};
  const auto courant2 = courant2_per_row(p);
  const auto damp_x = sponge_profile(p.nx, p.sponge_width);
  const auto damp_y = sponge_profile(p.ny, p.sponge_width);
  StepCoefficients c{courant2, damp_x, damp_y, p.source_x, p.source_y, 0.0f};
  for (int n = 0; n < steps; ++n) {
    c.source = source_value(p, n);
    cpu_step(L, buf[n % 3], buf[(n + 1) % 3], buf[(n + 2) % 3], c, 0, p.ny);
  }
  return compact(L, buf[(steps + 1) % 3]);
}

std::vector<float> compact(const SlabLayout& L, std::span<const float> padded) {
  std::vector<float> out(static_cast<std::size_t>(L.nx) * static_cast<std::size_t>(L.rows));
  for (int y = 0; y < L.rows; ++y)
    std::copy_n(padded.begin() + static_cast<std::ptrdiff_t>(L.index(0, y)), L.nx,
                out.begin() + static_cast<std::ptrdiff_t>(y) * L.nx);
  return out;
}

}  // namespace wave
