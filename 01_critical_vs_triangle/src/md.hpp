/// \file md.hpp
/// \brief The molecular-dynamics engine of chapter 01: the Lennard-Jones benchmark system (fcc lattice,
/// reduced units), the cell-binned Verlet neighbour list, thermodynamics and the velocity-Verlet loop.
///
/// Reduced Lennard-Jones units throughout: ε = σ = m = k_B = 1. The potential is cut at Rc and NOT
/// shifted, as LAMMPS' `pair_style lj/cut` does by default, so that our step-0 energy and pressure can be
/// compared digit for digit with LAMMPS' `in.lj` benchmark.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace md {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};

/// A cubic periodic box of side `box` holding atoms of unit mass.
struct System {
  double box = 0;
  std::vector<Vec3> position;
  std::vector<Vec3> velocity;
  std::size_t size() const noexcept { return position.size(); }
};

/// `cells`³ fcc unit cells (4 atoms each) at reduced number density `density`.
System make_fcc_lattice(int cells, double density);

/// Random velocities (uniform per component, fixed seed), zero total momentum, scaled so that the
/// temperature with 3N − 3 degrees of freedom (LAMMPS' convention) is exactly `temperature`.
void assign_velocities(System& system, double temperature, std::uint64_t seed);

double kinetic_energy(const System& system);
/// 2 KE / (3N − 3): the centre of mass does not move, so it carries no temperature.
double temperature(const System& system);

/// Which pairs a neighbour list holds. Half: each pair once (for Newton's third law: one evaluation
/// updates both atoms). Full: each pair twice, once in each atom's list (no shared writes, twice the work).
enum class ListKind { half, full };

/// Verlet neighbour list in compressed rows: atom i's neighbours are
/// neighbours[offsets[i]] … neighbours[offsets[i+1] − 1], every atom within `reach` = Rc + skin.
struct NeighbourList {
  ListKind kind = ListKind::half;
  double reach = 0;
  std::vector<std::size_t> offsets;      ///< N + 1 entries
  std::vector<std::int32_t> neighbours;
  /// Optional (build_neighbour_list fills it, N entries): row i holds first the pairs that were found without
  /// crossing the box, then, from neighbours[image_from[i]] on, those found through a periodic image. The
  /// first kind keep their plain difference x_i − x_j for the list's life (the image they were found
  /// through, as LAMMPS' ghost atoms keep theirs); only the second need the minimum image. Empty (a box
  /// under 3 cells a side, positions not all inside [0, box) at the build, or switched off): every pair
  /// takes the minimum image.
  std::vector<std::size_t> image_from;
  std::size_t size() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
};

/// Wraps every position into [0, box) and reorders the atoms (positions and velocities together) by
/// the cell they sit in, so that atoms close in space are close in memory: the force loop then finds
/// its neighbours' data in cache. Called at every list rebuild. Throws std::invalid_argument if a
/// position is not finite (a blown-up run has no cell to sort into).
void wrap_and_sort_by_cell(System& system, double reach);

/// Builds the list with cell binning (cells of side ≥ reach; the own cell and its 26 neighbours, or for a
/// half list the own cell and 13 of them: O(N) instead of O(N²)), using `threads` OpenMP threads.
/// Needs reach ≤ box / 2, so that a pair within reach has one image only, and finite positions
/// (std::invalid_argument otherwise).
/// What one build leaves for the next to reuse: each thread's row buffer and the last list's arrays.
/// Without it every rebuild asks the operating system for fresh pages (tens of MB for a full list) and
/// pays a page fault for each 4 KiB of them, a fair share of the build's time.
struct NeighbourScratch {
  std::vector<std::vector<std::int32_t>> rows_of_thread;
  NeighbourList recycled;  ///< a list no longer needed: the build takes over its arrays
};
/// How the build's distance pass runs: at the CPU's widest vectors (the default), or built for the
/// baseline x86-64 only, as before the lesson step that vectorized it (to time that step).
enum class ListBuildPass { vectorized, baseline };
NeighbourList build_neighbour_list(const System& system, double reach, ListKind kind, int threads,
                                   NeighbourScratch* scratch = nullptr, ListBuildPass pass = ListBuildPass::vectorized);

/// A list of the same pairs found by checking every pair: O(N²), the reference for the tests. (Which of
/// the two rows a half-list pair sits in may differ from build_neighbour_list's choice.)
NeighbourList brute_force_neighbour_list(const System& system, double reach, ListKind kind);

/// The minimum-image separation component: valid for |d| < 1.5 box, which holds because positions
/// are wrapped at each rebuild and move far less than a box between rebuilds.
inline double minimum_image(double d, double box, double half_box) noexcept {
  if (d > half_box) return d - box;
  if (d < -half_box) return d + box;
  return d;
}

/// Potential energy, virial (Σ r·F over pairs) and the closest pair of the configuration.
struct PairSums {
  double potential = 0;
  double virial = 0;
  double closest = 0;           ///< the smallest separation of a listed pair (infinity if the list holds none)
  std::size_t interacting = 0;  ///< listed pairs closer than the cut-off, each counted once
};
/// The sums over the pairs of a half or a full list (a full list holds each pair twice and is halved),
/// on `threads` OpenMP threads (1: a fixed summation order, as for the step-0 check against LAMMPS).
PairSums pair_sums(const System& system, const NeighbourList& list, double cutoff, int threads = 1);

/// What LAMMPS prints as thermo output, per atom where LAMMPS does.
struct Thermo {
  double temperature = 0;
  double potential_per_atom = 0;  ///< E_pair
  double total_per_atom = 0;      ///< TotEng
  double pressure = 0;            ///< (2 KE + virial) / (3 V): kinetic part included
};
Thermo measure_thermo(const System& system, const NeighbourList& half_list, double cutoff);

}  // namespace md
