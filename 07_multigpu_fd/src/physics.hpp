/// \file physics.hpp
/// \brief The problem (grid, velocity model, source, time step), its stability check, the per-row and
/// per-column coefficient arrays, and the CPU reference step.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stencil.hpp"

namespace wave {

enum class VelocityModel { constant, layered };

/// "constant" / "layered"; throws course::UsageError for anything else.
VelocityModel parse_velocity_model(const std::string& name);
const char* to_string(VelocityModel model);

/// Everything that defines a run's numbers. Positions are global: a decomposition never moves them.
struct Problem {
  int nx = 1024;                 ///< cells along x
  int ny = 1024;                 ///< cells along y (the decomposed axis)
  double spacing_m = 10.0;       ///< h
  double dt_s = 0.0;             ///< time step; 0 = from `courant`
  double courant = 0.45;         ///< v_max·dt/h when dt_s is 0
  VelocityModel model = VelocityModel::layered;
  int sponge_width = 20;         ///< absorbing cells along each edge; 0 = rigid walls only
  int source_x = -1;             ///< −1 = nx/2
  int source_y = -1;             ///< −1 = ny/2
  double source_peak_hz = 15.0;  ///< Ricker peak frequency
};

/// The largest stable v·dt/h for leapfrog with these weights in 2-D: 2/sqrt(2·max_θ(−symbol)) ≈ 0.5546.
double courant_limit();
/// Velocity of global row y in m/s (the layered model: 1500 / 2500 / 3500 m/s in thirds of ny).
double velocity_of_row(const Problem& p, int y);
double max_velocity(const Problem& p);

/// Fills in the defaults (dt from the Courant number, the source in the centre) and checks everything:
/// sizes, source inside the grid, sponge not wider than a third of the grid, dt stable by the CFL
/// condition. Throws course::UsageError with one line naming the problem.
Problem resolve(Problem p);

/// (v(y)·dt/h)² for each global row, in float (the kernels' `courant2`).
std::vector<float> courant2_per_row(const Problem& p);
/// Damping factor of each of `n` cells along an axis: 1 inside, falling towards the edges over
/// `width` cells (a Cerjan-style sponge; damp(x, y) = damp_x[x] · damp_y[y]).
std::vector<float> sponge_profile(int n, int width);
/// The Ricker wavelet r(t) = (1 − 2a)·e^(−a), a = (π f (t − 1/f))².
double ricker(double t_s, double peak_hz);
/// What step `step` (producing u at time (step+1)·dt) adds at the source cell: (v·dt/h)²·r(step·dt).
float source_value(const Problem& p, int step);

/// The 8th-order approximation of ∇²f at (x, y) with spacing h, in double (the order-of-accuracy test).
template <class F>
double laplacian_8th(F&& f, double x, double y, double h) {
  double sum = 2.0 * taylor_weights[0] * f(x, y);
  for (int k = 1; k <= 4; ++k)
    sum += taylor_weights[k] * (f(x - k * h, y) + f(x + k * h, y) + f(x, y - k * h) + f(x, y + k * h));
  return sum / (h * h);
}

/// Per-slab inputs of a step: the global arrays sliced to the slab's rows.
struct StepCoefficients {
  std::span<const float> courant2;  ///< per local row
  std::span<const float> damp_x;    ///< per x
  std::span<const float> damp_y;    ///< per local row
  int source_x = -1, source_y = -1; ///< local; source_y = −1 when the source is not in these rows
  float source = 0.0f;
};

/// The CPU reference: the same arithmetic as the kernels (leapfrog_cell), rows [row_begin, row_end).
void cpu_step(const SlabLayout& layout, std::span<const float> prev, std::span<const float> cur,
              std::span<float> next, const StepCoefficients& c, int row_begin, int row_end);

/// Runs `steps` steps of the whole grid on the CPU from rest; returns u (nx × ny, row-major, compact).
std::vector<float> cpu_simulate(const Problem& p, int steps);

/// Copies the nx × rows cells of a padded slab into a compact row-major array.
std::vector<float> compact(const SlabLayout& layout, std::span<const float> padded);

}  // namespace wave
