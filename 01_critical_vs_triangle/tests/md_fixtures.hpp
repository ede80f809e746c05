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

/// A system of exactly `atoms` atoms, sorted by cell, with both lists and the serial forces: the input
/// every strategy test compares against.
struct ForceCase {
  md::System system;
  double cutoff = 0;
  md::NeighbourList half, full;
  std::vector<md::Vec3> reference;  ///< the serial strategy's forces
  double scale = 0;                 ///< pair_force_scale: the floor of force_error
  md::ForceInput input(md::ListKind kind) const {
    return {system.position, system.box, cutoff, kind == md::ListKind::full ? &full : &half};
  }
  /// force_error of `force` against the serial forces.
  double error(const std::vector<md::Vec3>& force) const { return md::force_error(force, reference, scale); }
};

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
  ForceCase c;
  c.system.box = s.box;
  for (const std::size_t i : keep) {
    c.system.position.push_back(s.position[i]);
    c.system.velocity.push_back(s.velocity[i]);
  }
  const double reach = std::min(2.8, 0.49 * s.box);
  c.cutoff = reach - std::min(0.3, 0.25 * reach);
  md::wrap_and_sort_by_cell(c.system, reach);
  c.half = md::build_neighbour_list(c.system, reach, md::ListKind::half, 2);
  c.full = md::build_neighbour_list(c.system, reach, md::ListKind::full, 2);
  c.reference.resize(atoms);
  md::ForceWorkspace ws;
  md::find_variant("serial")->compute(c.input(md::ListKind::half), c.reference, ws, 1);
  c.scale = md::pair_force_scale(c.input(md::ListKind::half));
  return c;
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
  double scale = c.scale;
  for (const md::Vec3& r : c.reference) scale = std::max({scale, std::abs(r.x), std::abs(r.y), std::abs(r.z)});
  if (scale == 0) scale = 1;  // no interacting pair: every force is zero, compare absolutely
  for (std::size_t i = 0; i < force.size(); ++i) {
    const md::Vec3 &f = force[i], &r = c.reference[i];
    const double worst = std::max({std::abs(f.x - r.x), std::abs(f.y - r.y), std::abs(f.z - r.z)});
    if (!(worst <= tolerance * scale)) return i;
  }
  return force.size();
}

}  // namespace md_test
