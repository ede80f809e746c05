// What the chapter's tests share: perturbed lattices, systems of any atom count with their lists and
// serial forces, the seed the grader passes, and which strategies belong to an exercise.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string_view>
#include <vector>

#include "course_test_env.hpp"
#include "force_case.hpp"
#include "forces.hpp"
#include "md.hpp"

namespace md_test {

/// COURSE_SEED when the grader sets it (fresh inputs per grading run), a fixed seed otherwise (common's rule).
inline std::uint64_t course_seed() { return course::testing::seed_from_env(20120901u); }

/// The exercise whose solution region holds a strategy ("" for none). Tests outside the exercise suites
/// leave these strategies out: in a handout their stubs are in place.
inline std::string_view exercise_of(std::string_view strategy) {
  if (strategy == "full_list") return "01.1";
  if (strategy == "triangle") return "01.2";  // its partition
  if (strategy == "thread_arrays") return "01.3";
  return "";
}

/// A lattice with every atom displaced at random by up to ±amplitude per component (a fixed sequence),
/// and some atoms moved by whole boxes: the list must not care where an atom's image is stored.
inline md::System perturbed_lattice(int cells, double amplitude, unsigned seed = 1) {
  md::System s = md::make_fcc_lattice(cells, 0.8442);
  unsigned state = seed;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / static_cast<double>(1u << 24) - 0.5;  // [-0.5, 0.5)
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.position[i].x += 2 * amplitude * next();
    s.position[i].y += 2 * amplitude * next();
    s.position[i].z += 2 * amplitude * next();
    if (i % 7 == 3) s.position[i].x += s.box;
    if (i % 11 == 5) s.position[i].z -= 2 * s.box;
  }
  md::assign_velocities(s, 1.44, 7);
  return s;
}

using md::ForceCase;

/// The smallest perturbed lattice that holds `atoms`, with atoms drawn at random (from `seed`) removed
/// until `atoms` are left: any count, not only the lattice's 4·cells³. Boxes too small for the usual
/// Rc + skin = 2.8 get a proportionally smaller reach.
inline ForceCase force_case(std::size_t atoms, std::uint64_t seed) {
  int cells = 1;
  while (4u * static_cast<std::size_t>(cells) * cells * cells < atoms) ++cells;
  md::System s = perturbed_lattice(cells, 0.2, static_cast<unsigned>(seed % 1000003u) + 1u);
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> keep(s.size());
  std::iota(keep.begin(), keep.end(), std::size_t{0});
  std::shuffle(keep.begin(), keep.end(), rng);
  keep.resize(atoms);
  std::sort(keep.begin(), keep.end());
  return md::force_case_of(s, keep);
}

/// Atom counts a partition can get wrong: none to share out, fewer atoms than threads, one either side
/// of 32, and two drawn from the seed (odd, so that no team size above 1 divides them evenly by luck).
inline std::vector<std::size_t> awkward_atom_counts(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto odd = [&](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng) | 1u;
  };
  return {1, 2, 3, 31, 33, 107, odd(200, 600), odd(601, 1500)};
}

/// Far from any force a strategy computes: an entry left as it was shows at once.
inline std::vector<md::Vec3> poisoned(std::size_t atoms) {
  return std::vector<md::Vec3>(atoms, md::Vec3{1e300, -1e300, std::nan("")});
}

/// The first atom whose force differs from the serial one by more than `tolerance` of the scale that
/// force_error uses, or force.size() when none does: what a failing check names.
inline std::size_t first_wrong_atom(const ForceCase& c, const std::vector<md::Vec3>& force, double tolerance) {
  const double scale = md::tolerance_scale(c);
  for (std::size_t i = 0; i < force.size(); ++i) {
    const md::Vec3 &f = force[i], &r = c.reference[i];
    const double worst = std::max({std::abs(f.x - r.x), std::abs(f.y - r.y), std::abs(f.z - r.z)});
    if (!(worst <= tolerance * scale)) return i;
  }
  return force.size();
}

}  // namespace md_test
