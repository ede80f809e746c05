/// \file force_case.hpp
/// \brief Inputs whose forces are known, for the chapter's checks: its tests (tests/md_fixtures.hpp) and
/// its grading probes (grading/force_cases.hpp) take the atoms they keep of a lattice, each with its own
/// random numbers, and build the rest here: any atom count, sorted by cell, both lists, the serial forces.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "forces.hpp"
#include "md.hpp"

namespace md {

/// A system of exactly N atoms, sorted by cell, with both lists and the serial strategy's forces: the
/// input every strategy check compares against.
struct ForceCase {
  System system;
  double cutoff = 0;
  NeighbourList half, full;
  std::vector<Vec3> reference;  ///< the serial strategy's forces
  double scale = 0;             ///< pair_force_scale: the floor of force_error
  ForceInput input(ListKind kind) const {
    return {system.position, system.box, cutoff, kind == ListKind::full ? &full : &half};
  }
  /// force_error of `force` against the serial forces.
  double error(const std::vector<Vec3>& force) const { return force_error(force, reference, scale); }
};

/// The atoms `keep` (indices into `lattice`, sorted, no repeats) of a lattice, as a ForceCase. Boxes too
/// small for the usual reach Rc + skin = 2.8 get a proportionally smaller one.
inline ForceCase force_case_of(const System& lattice, const std::vector<std::size_t>& keep) {
  ForceCase c;
  c.system.box = lattice.box;
  for (const std::size_t i : keep) {
    c.system.position.push_back(lattice.position[i]);
    c.system.velocity.push_back(lattice.velocity[i]);
  }
  const double reach = std::min(2.8, 0.49 * lattice.box);
  c.cutoff = reach - std::min(0.3, 0.25 * reach);
  wrap_and_sort_by_cell(c.system, reach);
  c.half = build_neighbour_list(c.system, reach, ListKind::half, 2);
  c.full = build_neighbour_list(c.system, reach, ListKind::full, 2);
  c.reference.resize(keep.size());
  ForceWorkspace ws;
  find_variant("serial")->compute(c.input(ListKind::half), c.reference, ws, 1);
  c.scale = pair_force_scale(c.input(ListKind::half));
  return c;
}

/// The scale of the checks' per-component tolerance: the largest single pair force or, if larger, the
/// largest serial force component; 1 when no pair interacts (every force is zero: compare absolutely).
inline double tolerance_scale(const ForceCase& c) {
  double scale = c.scale;
  for (const Vec3& r : c.reference) scale = std::max({scale, std::abs(r.x), std::abs(r.y), std::abs(r.z)});
  return scale == 0 ? 1.0 : scale;
}

}  // namespace md
