#include "md.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "vector_clones.hpp"

namespace md {

System make_fcc_lattice(int cells, double density) {
  if (cells < 1 || !(density > 0)) throw std::invalid_argument("make_fcc_lattice: cells and density must be positive");
  const double lattice = std::cbrt(4.0 / density);  // 4 atoms per cubic unit cell
  System system;
  system.box = cells * lattice;
  const std::array<Vec3, 4> basis{{{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}}};
  system.position.reserve(std::size_t{4} * cells * cells * cells);
  for (int z = 0; z < cells; ++z)
    for (int y = 0; y < cells; ++y)
      for (int x = 0; x < cells; ++x)
        for (const Vec3& b : basis)
          system.position.push_back({(x + b.x) * lattice, (y + b.y) * lattice, (z + b.z) * lattice});
  system.velocity.assign(system.position.size(), Vec3{});
  return system;
}

void assign_velocities(System& system, double temperature_target, std::uint64_t seed) {
  const std::size_t n = system.size();
  if (n < 2) return;  // one atom with zero momentum cannot move: nothing to scale
  // SplitMix64 and our own [0,1) conversion: the same velocities with every standard library.
  auto next = [state = seed]() mutable {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
  };
  Vec3 momentum{};
  for (Vec3& v : system.velocity) {
    v = {next(), next(), next()};
    momentum.x += v.x, momentum.y += v.y, momentum.z += v.z;
  }
  const double inv_n = 1.0 / static_cast<double>(n);
  for (Vec3& v : system.velocity) v.x -= momentum.x * inv_n, v.y -= momentum.y * inv_n, v.z -= momentum.z * inv_n;
  const double now = temperature(system);
  const double scale = now > 0 ? std::sqrt(temperature_target / now) : 0.0;
  for (Vec3& v : system.velocity) v.x *= scale, v.y *= scale, v.z *= scale;
}

double kinetic_energy(const System& system) {
  double twice = 0;
  for (const Vec3& v : system.velocity) twice += v.x * v.x + v.y * v.y + v.z * v.z;
  return 0.5 * twice;
}

double temperature(const System& system) {
  const std::size_t n = system.size();
  if (n < 2) return 0;
  return 2.0 * kinetic_energy(system) / (3.0 * static_cast<double>(n) - 3.0);
}

namespace {

/// The cell grid: `per_side`³ cells of side box / per_side ≥ reach. Never more cells than atoms: a
/// dilute system (a huge box) would otherwise ask for billions of empty cells; larger cells only mean
/// more candidates per cell, never a missed pair.
struct CellGrid {
  int per_side = 1;
  double side = 0;
  CellGrid(double box, double reach, std::size_t atoms)
      : per_side(static_cast<int>(std::clamp(std::floor(box / reach), 1.0,
                                             std::max(1.0, std::floor(std::cbrt(static_cast<double>(atoms))))))),
        side(box / per_side) {}
  int coordinate(double wrapped) const noexcept { return std::min(static_cast<int>(wrapped / side), per_side - 1); }
  int index(const Vec3& p) const noexcept {
    return (coordinate(p.z) * per_side + coordinate(p.y)) * per_side + coordinate(p.x);
  }
  int count() const noexcept { return per_side * per_side * per_side; }
};

/// x mapped into [0, box). fmod is exact for any finite x, so even an atom flung a million boxes away
/// lands inside the box (x − box·floor(x/box) would not: its rounding error grows with |x|).
double wrap(double x, double box) noexcept {
  if (x >= 0 && x < box) return x;  // nearly every atom between rebuilds: no division
  double w = std::fmod(x, box);
  if (w < 0) w += box;
  return w >= box ? 0.0 : w;  // x just below 0 can round up to exactly box
}

Vec3 wrap(const Vec3& p, double box) noexcept { return {wrap(p.x, box), wrap(p.y, box), wrap(p.z, box)}; }

bool finite(const Vec3& p) noexcept { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

[[noreturn]] void throw_non_finite(const char* where, std::size_t atom) {
  throw std::invalid_argument(std::string(where) + ": atom " + std::to_string(atom) +
                              " has a non-finite position (the run blew up before this call)");
}

/// Whether a pair (i, j), i ≠ j, goes into i's row when every neighbour cell is searched. Half list: i < j
/// with an even sum, or i > j with an odd sum, so each pair lands in exactly one row and every row gets
/// about half of its neighbours, whatever the atom order (the plain rule "j > i" would give the first
/// atoms all of their neighbours and the last ones none).
bool keeps(ListKind kind, std::int64_t i, std::int64_t j) noexcept {
  return kind == ListKind::full || ((i < j) == ((i + j) % 2 == 0));
}

/// kept[k] = 1 where candidate k (at px[k], py[k], pz[k]) is within reach of `p`, else 0: the build's
/// hottest loop, one vector lane per candidate. Inlined into the two functions below.
[[gnu::always_inline]] inline void mark_in_reach_body(const double* __restrict px, const double* __restrict py,
                                                      const double* __restrict pz, std::size_t count, Vec3 p,
                                                      double reach2, unsigned char* __restrict kept) {
#pragma omp simd
  for (std::size_t k = 0; k < count; ++k) {
    const double dx = p.x - px[k], dy = p.y - py[k], dz = p.z - pz[k];
    kept[k] = static_cast<unsigned char>(dx * dx + dy * dy + dz * dz < reach2);
  }
}

/// The pass at the CPU's widest vectors (one clone per width, the loader picks).
MD_VECTOR_CLONES
void mark_in_reach(const double* __restrict px, const double* __restrict py, const double* __restrict pz,
                   std::size_t count, Vec3 p, double reach2, unsigned char* __restrict kept) {
  mark_in_reach_body(px, py, pz, count, p, reach2, kept);
}

/// The same pass built for the baseline only (SSE2 cannot compare doubles into bytes: it stays scalar), so
/// that the lesson can time the step (ListBuildPass::baseline).
void mark_in_reach_baseline(const double* __restrict px, const double* __restrict py, const double* __restrict pz,
                            std::size_t count, Vec3 p, double reach2, unsigned char* __restrict kept) {
  mark_in_reach_body(px, py, pz, count, p, reach2, kept);
}

/// Eight marks (bytes 0 or 1) as the low 8 bits of a number, bit k for mark k: then the packing visits only
/// the kept candidates (a full row keeps at most 4π/81, about a sixth, of its 27 cells' atoms), one
/// count-trailing-zeros each, instead of stepping through every candidate. The multiplication moves byte
/// k's bit to bit 56 + k; the shifted copies never overlap, so nothing carries.
inline std::uint64_t marks_of_eight(const unsigned char* marks) noexcept {
  std::uint64_t bytes = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&bytes, marks, sizeof bytes);
  } else {
    for (int k = 0; k < 8; ++k) bytes |= std::uint64_t{marks[k]} << (8 * k);
  }
  return (bytes * 0x0102040810204080ULL) >> 56;
}

/// The atoms binned by cell: wrapped positions, each atom's cell, and the atoms of cell c in
/// atoms[start[c]] … atoms[start[c+1] − 1].
struct CellBins {
  std::vector<Vec3> wrapped;
  std::vector<int> cell;
  std::vector<std::size_t> start;
  std::vector<std::int32_t> atoms;
};

CellBins bin_atoms(const System& system, const CellGrid& grid, int threads) {
  const std::size_t n = system.size();
  CellBins bins{std::vector<Vec3>(n), std::vector<int>(n),
                std::vector<std::size_t>(static_cast<std::size_t>(grid.count()) + 1, 0), std::vector<std::int32_t>(n)};
  for (std::size_t i = 0; i < n; ++i)
    if (!finite(system.position[i])) throw_non_finite("build_neighbour_list", i);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    bins.wrapped[i] = wrap(system.position[i], system.box);
    bins.cell[i] = grid.index(bins.wrapped[i]);
  }
  for (std::size_t i = 0; i < n; ++i) ++bins.start[static_cast<std::size_t>(bins.cell[i]) + 1];
  std::partial_sum(bins.start.begin(), bins.start.end(), bins.start.begin());
  std::vector<std::size_t> fill(bins.start.begin(), bins.start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) bins.atoms[fill[static_cast<std::size_t>(bins.cell[i])]++] = static_cast<std::int32_t>(i);
  return bins;
}

/// The cell offsets searched around an atom's cell: all 27, or the own cell and the 13 "forward" ones.
/// Two neighbouring cells differ by a unique offset d in {-1,0,1}^3, and exactly one of d, -d is
/// forward, so with the half stencil each pair is found exactly once and every atom gets about half
/// its neighbours.
std::vector<std::array<int, 3>> stencil_offsets(bool half_stencil) {
  std::vector<std::array<int, 3>> offsets;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const bool forward = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
        const bool own = dx == 0 && dy == 0 && dz == 0;
        if (!half_stencil || forward || own) offsets.push_back({dx, dy, dz});
      }
  return offsets;
}

/// Turns the row lengths in list.offsets into offsets and copies each thread's rows into place: thread
/// t built the rows of atoms first_atom[t] onwards, contiguously.
void gather_rows(const std::vector<std::vector<std::int32_t>>& rows_of_thread, const std::vector<std::size_t>& first_atom,
                 NeighbourList& list, int threads) {
  std::partial_sum(list.offsets.begin(), list.offsets.end(), list.offsets.begin());
  list.neighbours.resize(list.offsets.back());
  for (std::size_t i = 0; i < list.image_from.size(); ++i) list.image_from[i] += list.offsets[i];  // counts -> indices
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const auto& rows = rows_of_thread[static_cast<std::size_t>(t)];
    if (!rows.empty())
      std::copy(rows.begin(), rows.end(), list.neighbours.begin() +
                                              static_cast<std::ptrdiff_t>(list.offsets[first_atom[static_cast<std::size_t>(t)]]));
  }
}

}  // namespace

void wrap_and_sort_by_cell(System& system, double reach) {
  const std::size_t n = system.size();
  const CellGrid grid(system.box, reach, n);
  std::vector<int> cell(n);
  std::vector<std::size_t> start(static_cast<std::size_t>(grid.count()) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!finite(system.position[i])) throw_non_finite("wrap_and_sort_by_cell", i);
    system.position[i] = wrap(system.position[i], system.box);
    cell[i] = grid.index(system.position[i]);
    ++start[static_cast<std::size_t>(cell[i]) + 1];
  }
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<Vec3> position(n), velocity(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t to = start[static_cast<std::size_t>(cell[i])]++;
    position[to] = system.position[i];
    velocity[to] = system.velocity[i];
  }
  system.position = std::move(position);
  system.velocity = std::move(velocity);
}

NeighbourList build_neighbour_list(const System& system, double reach, ListKind kind, int threads,
                                   NeighbourScratch* scratch, ListBuildPass pass) {
  if (!(reach > 0) || reach > 0.5 * system.box)
    throw std::invalid_argument("build_neighbour_list: need 0 < reach <= box / 2");
  const std::size_t n = system.size();
  const double box = system.box, half_box = 0.5 * box, reach2 = reach * reach;
  const CellGrid grid(box, reach, n);
  const int per_side = grid.per_side;
  // With fewer than 3 cells a side, the 27-cell stencil names some cells twice: visit each once.
  const bool dedupe = per_side < 3;

  const CellBins bins = bin_atoms(system, grid, threads);
  const std::vector<Vec3>& wrapped = bins.wrapped;
  const std::vector<int>& cell = bins.cell;
  const std::vector<std::size_t>& cell_start = bins.start;
  const std::vector<std::int32_t>& cell_atoms = bins.atoms;

  NeighbourScratch fresh;
  NeighbourScratch& reuse = scratch ? *scratch : fresh;
  NeighbourList list = std::move(reuse.recycled);
  list.kind = kind;
  list.reach = reach;
  list.offsets.assign(n + 1, 0);
  list.image_from.assign(n, 0);  // the number of plain pairs per row for now; made indices in gather_rows
  std::vector<std::vector<std::int32_t>>& rows_of_thread = reuse.rows_of_thread;
  rows_of_thread.resize(static_cast<std::size_t>(threads));
  std::vector<std::size_t> first_atom(static_cast<std::size_t>(threads) + 1, n);

  // Half list with 3+ cells a side: the own cell (partners j > i only) and the 13 cells of a "forward"
  // half stencil. Otherwise (full list, or a box too small for 3 cells) all 27 cells, each visited once,
  // and the parity rule `keeps` picks the row.
  const bool half_stencil = kind == ListKind::half && per_side >= 3;
  const std::vector<std::array<int, 3>> offsets = stencil_offsets(half_stencil);

#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t begin = n * t / team, end = n * (t + 1) / team;
    first_atom[t] = begin;
    auto& rows = rows_of_thread[t];
    // Room for a typical row count (kept from the last build if larger); a row that does not fit grows it.
    rows.resize(std::max({rows.size(), std::size_t{1024}, (end - begin) * (kind == ListKind::full ? 80 : 40)}));
    std::size_t used = 0;
    // [candidates]
    // The candidates of the cell the thread's atoms are in: the stencil's atoms, copied once per cell
    // (the atoms are sorted by cell, so consecutive atoms share it), each position moved by ±box where its
    // cell was reached across the box: a plain difference is then the pair's separation, as with LAMMPS'
    // ghost atoms. Those from inside the box come first (the first `inside` of them).
    std::vector<double> cx, cy, cz;
    std::vector<std::int32_t> cj;
    std::vector<unsigned char> keep;
    int candidates_of = -1;
    std::size_t inside = 0, own_first = 0, own_last = 0;
    const auto gather_candidates = [&](int home) {
      cx.clear(), cy.clear(), cz.clear(), cj.clear();
      const int hx = home % per_side, hy = home / per_side % per_side, hz = home / (per_side * per_side);
      std::array<int, 27> stencil{};
      std::array<Vec3, 27> shift{};
      int cells = 0, inside_cells = 0;
      for (const bool across : {false, true})
        for (const auto& d : offsets) {
          const int ux = hx + d[0], uy = hy + d[1], uz = hz + d[2];
          if (across != (ux < 0 || ux >= per_side || uy < 0 || uy >= per_side || uz < 0 || uz >= per_side)) continue;
          const int x = (ux + per_side) % per_side, y = (uy + per_side) % per_side, z = (uz + per_side) % per_side;
          const auto side_shift = [&](int u) { return u < 0 ? -box : u >= per_side ? box : 0.0; };
          shift[static_cast<std::size_t>(cells)] = {side_shift(ux), side_shift(uy), side_shift(uz)};
          stencil[static_cast<std::size_t>(cells++)] = (z * per_side + y) * per_side + x;
          inside_cells += !across;
        }
      if (dedupe) {  // fewer than 3 cells a side: one cell may be reached both ways; all take the minimum image
        std::sort(stencil.begin(), stencil.begin() + cells);
        cells = static_cast<int>(std::unique(stencil.begin(), stencil.begin() + cells) - stencil.begin());
        inside_cells = 0;
        shift.fill(Vec3{});
      }
      for (int c = 0; c < cells; ++c) {
        if (c == inside_cells) inside = cj.size();
        const auto cs = static_cast<std::size_t>(stencil[static_cast<std::size_t>(c)]);
        if (cs == static_cast<std::size_t>(home)) own_first = cj.size();
        const Vec3 move = shift[static_cast<std::size_t>(c)];
        for (std::size_t k = cell_start[cs]; k < cell_start[cs + 1]; ++k) {
          const std::int32_t j = cell_atoms[k];
          const Vec3 pj = wrapped[static_cast<std::size_t>(j)];
          cx.push_back(pj.x + move.x), cy.push_back(pj.y + move.y), cz.push_back(pj.z + move.z), cj.push_back(j);
        }
        if (cs == static_cast<std::size_t>(home)) own_last = cj.size();
      }
      if (inside_cells == cells) inside = cj.size();
      keep.assign(cj.size() + 8, 0);  // 8 more, always 0: the packing reads the marks 8 at a time
      candidates_of = home;
    };
    // [candidates]
    for (std::size_t i = begin; i < end; ++i) {
      if (cell[i] != candidates_of) gather_candidates(cell[i]);
      const Vec3 pi = wrapped[i];
      const std::size_t count = cj.size();
      const auto self = static_cast<std::int32_t>(i);
      // Plain pointers: through the vectors' own, the compiler must assume a byte store to `kept` may change
      // them, and would reload them at every candidate.
      const double* __restrict px = cx.data();
      const double* __restrict py = cy.data();
      const double* __restrict pz = cz.data();
      const std::int32_t* __restrict pj = cj.data();
      unsigned char* __restrict kept = keep.data();
      // One pass marks each candidate (in reach, and this row's to keep), then a scalar pass packs the
      // marked ones, eight marks at a time as the bits of a number (marks_of_eight): it steps through the
      // kept candidates only, not through every candidate.
      if (dedupe) {  // a box under 3 cells a side (tests, tiny systems): the general rule, scalar
        for (std::size_t k = 0; k < count; ++k) {
          const double dx = minimum_image(pi.x - px[k], box, half_box), dy = minimum_image(pi.y - py[k], box, half_box),
                       dz = minimum_image(pi.z - pz[k], box, half_box);
          kept[k] = static_cast<unsigned char>(dx * dx + dy * dy + dz * dz < reach2 && pj[k] != self && keeps(kind, self, pj[k]));
        }
      } else {  // the vector pass, then the own cell's rule
        (pass == ListBuildPass::vectorized ? mark_in_reach : mark_in_reach_baseline)(px, py, pz, count, pi, reach2, kept);
        // In the own cell: a full row takes everyone but i, a half row only the partners j > i.
        for (std::size_t k = own_first; k < own_last; ++k)
          kept[k] &= static_cast<unsigned char>(half_stencil ? pj[k] > self : pj[k] != self);
      }
      if (used + count > rows.size()) rows.resize(2 * (used + count));
      const std::size_t row_begin = used;
      std::int32_t* __restrict out = rows.data();
      const auto pack = [&](std::size_t from, std::size_t to) {
        std::size_t at = used;
        for (std::size_t k = from; k < to; k += 8) {
          std::uint64_t mask = marks_of_eight(kept + k);
          if (to - k < 8) mask &= (std::uint64_t{1} << (to - k)) - 1;  // the range's last, partial group
          for (; mask != 0; mask &= mask - 1) out[at++] = pj[k + static_cast<std::size_t>(std::countr_zero(mask))];
        }
        used = at;
      };
      pack(0, inside);
      list.image_from[i] = used - row_begin;  // the number of plain pairs, for now
      pack(inside, count);
      list.offsets[i + 1] = used - row_begin;  // the row length for now; prefix-summed below
    }
    rows.resize(used);
  }
  gather_rows(rows_of_thread, first_atom, list, threads);
  // The plain differences hold for the positions as given only if they are the wrapped ones the cells were
  // found from (run_md wraps before every build; a caller may not): otherwise every pair takes the image.
  if (dedupe) list.image_from.clear();  // every row's pairs take the image (see the stencil above)
  for (std::size_t i = 0; i < n && !list.image_from.empty(); ++i)
    if (wrapped[i].x != system.position[i].x || wrapped[i].y != system.position[i].y ||
        wrapped[i].z != system.position[i].z) {
      list.image_from.clear();
      break;
    }
  return list;
}

NeighbourList brute_force_neighbour_list(const System& system, double reach, ListKind kind) {
  const std::size_t n = system.size();
  const double box = system.box, reach2 = reach * reach;
  NeighbourList list;
  list.kind = kind;
  list.reach = reach;
  list.offsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i || !keeps(kind, static_cast<std::int64_t>(i), static_cast<std::int64_t>(j))) continue;
      const Vec3 &a = system.position[i], &b = system.position[j];
      // The general minimum image (any positions, wrapped or not): the slow, obviously right way.
      const double dx = (a.x - b.x) - box * std::nearbyint((a.x - b.x) / box);
      const double dy = (a.y - b.y) - box * std::nearbyint((a.y - b.y) / box);
      const double dz = (a.z - b.z) - box * std::nearbyint((a.z - b.z) / box);
      if (dx * dx + dy * dy + dz * dz < reach2) list.neighbours.push_back(static_cast<std::int32_t>(j));
    }
    list.offsets[i + 1] = list.neighbours.size();
  }
  return list;
}

PairSums pair_sums(const System& system, const NeighbourList& list, double cutoff, int threads) {
  const double box = system.box, half_box = 0.5 * box, cutoff2 = cutoff * cutoff;
  const auto rows = static_cast<std::ptrdiff_t>(list.size());
  const Vec3* x = system.position.data();
  // No pair within the list's reach leaves the closest distance unknown (infinite), never the reach itself:
  // a reach of 0.5 sigma would otherwise read as two atoms 0.5 sigma apart (issue 31, item 6).
  double potential = 0, virial = 0, closest2 = std::numeric_limits<double>::infinity();
  std::size_t interacting = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : potential, virial, interacting) \
    reduction(min : closest2)
  for (std::ptrdiff_t i = 0; i < rows; ++i) {
    const Vec3 pi = x[i];
    for (std::size_t k = list.offsets[static_cast<std::size_t>(i)]; k < list.offsets[static_cast<std::size_t>(i) + 1]; ++k) {
      const Vec3 pj = x[static_cast<std::size_t>(list.neighbours[k])];
      const double dx = minimum_image(pi.x - pj.x, box, half_box), dy = minimum_image(pi.y - pj.y, box, half_box),
                   dz = minimum_image(pi.z - pj.z, box, half_box);
      const double r2 = dx * dx + dy * dy + dz * dz;
      closest2 = std::min(closest2, r2);
      if (r2 >= cutoff2) continue;
      ++interacting;
      const double sr2 = 1.0 / r2, sr6 = sr2 * sr2 * sr2;
      potential += 4.0 * sr6 * (sr6 - 1.0);
      virial += 48.0 * sr6 * (sr6 - 0.5);  // r · F = r² · F/r
    }
  }
  const double pairs_counted = list.kind == ListKind::full ? 2.0 : 1.0;  // a full list holds each pair twice
  return {potential / pairs_counted, virial / pairs_counted, std::sqrt(closest2),
          list.kind == ListKind::full ? interacting / 2 : interacting};
}

Thermo measure_thermo(const System& system, const NeighbourList& half_list, double cutoff) {
  const PairSums sums = pair_sums(system, half_list, cutoff);
  const double n = static_cast<double>(system.size());
  const double volume = system.box * system.box * system.box;
  const double kinetic = kinetic_energy(system);
  Thermo thermo;
  thermo.temperature = temperature(system);
  thermo.potential_per_atom = sums.potential / n;
  thermo.total_per_atom = (sums.potential + kinetic) / n;
  thermo.pressure = (2.0 * kinetic + sums.virial) / (3.0 * volume);
  return thermo;
}

}  // namespace md
