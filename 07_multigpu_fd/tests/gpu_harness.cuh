/// \file gpu_harness.cuh
/// \brief What the GPU tests share: a run that poisons every cell a step must write, a bit-for-bit
/// comparison that also reports the largest difference, and a resolved problem.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.cuh"
#include "physics.hpp"
#include "solver.cuh"

namespace wave::testing {

// Runs `steps` steps, poisoning (0xFF = NaN) everything a step must write before each step (each pass
// of a temporal rung: K steps, and one at a time for those left over), so a cell that no kernel or copy
// writes turns into NaN and fails the comparison.
inline std::vector<float> gpu_run(const Problem& p, const Variant& v, int slabs, bool overlap, int steps, int devices = 1) {
  SlabSolver solver({p, slabs, devices, overlap, &v, 0});
  for (int n = 0; n < steps;) {
    const int chunk = std::min(v.steps_per_pass, steps - n);
    solver.poison_next();
    solver.advance(chunk);
    n += chunk;
  }
  return solver.gather();
}

struct Difference {
  long long cells = 0;
  double max_abs = 0, peak = 0;
};

inline Difference compare(const std::vector<float>& got, const std::vector<float>& expected) {
  Difference d;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    d.peak = std::max(d.peak, static_cast<double>(std::fabs(expected[i])));
    if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0) {
      ++d.cells;
      const double diff = std::fabs(static_cast<double>(got[i]) - expected[i]);
      d.max_abs = std::isnan(diff) ? INFINITY : std::max(d.max_abs, diff);
    }
  }
  return d;
}

inline Problem make_problem(int nx, int ny, VelocityModel model, int sponge) {
  Problem p;
  p.nx = nx;
  p.ny = ny;
  p.model = model;
  p.sponge_width = sponge;
  return resolve(p);
}

}  // namespace wave::testing
