// What the grading probes of chapter 01 share (common/probe.hpp): systems of any atom count built from the
// grader's seed, as the tests' fixture (tests/md_fixtures.hpp) builds them: a perturbed fcc lattice
// (some atoms stored a whole box away) thinned at random to the count, then sorted by cell with both lists
// and the serial forces (src/force_case.hpp, which the tests use too). The random numbers come from
// course::probe::Random alone, so that both builds draw the same systems and the probes need nothing of
// the test harness.
//
// Forces are written raw, x, y, z per atom, with the tests' tolerance: every component within 1e-10 of the
// force scale (the largest single pair force or, if larger, the largest serial force component; 1 when no
// pair interacts), which only the summation order may use up. The scale comes from the serial strategy,
// outside every solution region, and the grader takes it from the instructor's build.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "common/probe.hpp"
#include "force_case.hpp"
#include "forces.hpp"
#include "md.hpp"

namespace md_grading {

using md::ForceCase;

/// An fcc lattice at the default density, every atom displaced by up to ±amplitude per component, and
/// some atoms stored a whole box or two away (the list must not care where an atom's image is stored).
inline md::System perturbed_lattice(int cells, double amplitude, course::probe::Random& random) {
  md::System s = md::make_fcc_lattice(cells, 0.8442);
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.position[i].x += random.uniform(-amplitude, amplitude);
    s.position[i].y += random.uniform(-amplitude, amplitude);
    s.position[i].z += random.uniform(-amplitude, amplitude);
    if (i % 7 == 3) s.position[i].x += s.box;
    if (i % 11 == 5) s.position[i].z -= 2 * s.box;
  }
  md::assign_velocities(s, 1.44, random.next());
  return s;
}

/// The smallest perturbed lattice that holds `atoms`, thinned at random to `atoms`; boxes too small for
/// the usual reach Rc + skin = 2.8 get a proportionally smaller one (as the tests' force_case).
inline ForceCase system_of(std::size_t atoms, course::probe::Random& random) {
  int cells = 1;
  while (4u * static_cast<std::size_t>(cells) * cells * cells < atoms) ++cells;
  md::System s = perturbed_lattice(cells, 0.2, random);
  std::vector<std::size_t> keep(s.size());
  std::iota(keep.begin(), keep.end(), std::size_t{0});
  for (std::size_t i = keep.size(); i > 1; --i) std::swap(keep[i - 1], keep[random.below(i)]);  // Fisher-Yates
  keep.resize(atoms);
  std::sort(keep.begin(), keep.end());
  return md::force_case_of(s, keep);
}

/// The tests' absolute tolerance of one force component for the system `c`.
inline course::probe::Tolerance force_tolerance(const ForceCase& c) { return {0.0, 1e-10 * md::tolerance_scale(c)}; }

/// Far from any force a strategy computes: an entry left as it was shows at once (NaN is written as "nan").
inline std::vector<md::Vec3> poisoned(std::size_t atoms) {
  return std::vector<md::Vec3>(atoms, md::Vec3{1e300, -1e300, std::numeric_limits<double>::quiet_NaN()});
}

inline std::vector<double> flatten(const std::vector<md::Vec3>& force) {
  std::vector<double> values;
  values.reserve(3 * force.size());
  for (const md::Vec3& f : force) {
    values.push_back(f.x);
    values.push_back(f.y);
    values.push_back(f.z);
  }
  return values;
}

/// The tests' atom counts (none to share out but one, fewer atoms than threads, one either side of 32,
/// 107, two odd ones from the seed), and a few more: 8, a prime, a count every team of 1 … 7 divides,
/// and another odd one from the seed.
inline std::vector<std::size_t> atom_counts(course::probe::Random& random) {
  return {1, 2, 3, 31, 33, 107, (200 + random.below(401)) | 1u, (601 + random.below(900)) | 1u,
          8, 257, 420, (700 + random.below(800)) | 1u};
}

}  // namespace md_grading
