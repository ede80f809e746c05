// What the exercises' tests check, shared by the CPU and the GPU tests: the contracts of slab_rows and
// halo_copies written as properties (what any right answer satisfies, not one way of computing it), and
// the inputs drawn from COURSE_SEED.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "course_test_env.hpp"
#include "decomposition.hpp"
#include "stencil.hpp"

namespace wave::testing {

/// A generator seeded from COURSE_SEED (the grader draws a fresh one per run; a fixed seed otherwise),
/// mixed with `salt` so that each test draws its own sequence.
inline std::mt19937_64 seeded_rng(std::uint64_t salt) {
  const std::uint64_t base = course::testing::seed_from_env(20240607u);
  std::seed_seq sequence{static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(base >> 32),
                         static_cast<std::uint32_t>(salt)};
  return std::mt19937_64(sequence);
}

/// The first way slab_rows(ny, slabs, ·) breaks its contract, or "" when it keeps it: the slabs, in
/// order, cover rows 0 … ny−1 once, none is empty, and no two differ in height by more than one row.
inline std::string partition_problem(int ny, int slabs) {
  const auto where = [&](int s) {
    return "ny " + std::to_string(ny) + ", " + std::to_string(slabs) + " slabs, slab " + std::to_string(s) + ": ";
  };
  // Sizes within one row of each other means every size is ny/slabs rounded down or up.
  const int low = ny / slabs, high = (ny + slabs - 1) / slabs;
  int expected_begin = 0;
  for (int s = 0; s < slabs; ++s) {
    const RowRange r = slab_rows(ny, slabs, s);
    if (r.begin != expected_begin)
      return where(s) + "begins at row " + std::to_string(r.begin) + ", but the slab before ends at row " +
             std::to_string(expected_begin);
    if (r.size() < 1) return where(s) + "is empty (rows " + std::to_string(r.begin) + " … " + std::to_string(r.end) + ")";
    if (r.size() < low || r.size() > high)
      return where(s) + "has " + std::to_string(r.size()) + " rows; with sizes within one row of each other " +
             "every slab has " + std::to_string(low) + (low == high ? "" : " or " + std::to_string(high));
    expected_begin = r.end;
  }
  if (expected_begin != ny)
    return where(slabs - 1) + "the last slab ends at row " + std::to_string(expected_begin) + ", not at ny";
  return "";
}

/// Consecutive row ranges of the given heights, starting at row 0.
inline std::vector<RowRange> ranges_of(const std::vector<int>& heights) {
  std::vector<RowRange> ranges;
  int begin = 0;
  for (const int h : heights) {
    ranges.push_back({begin, begin + h});
    begin += h;
  }
  return ranges;
}

/// "4,5,4": the heights of `slabs`, for messages.
inline std::string heights_text(const std::vector<RowRange>& slabs) {
  std::string text;
  for (const RowRange& r : slabs) {
    if (!text.empty()) text += ',';
    text += std::to_string(r.size());
  }
  return text;
}

/// The first way `copies` fails to be the halo exchange of `slabs`, or "" when it is one: every copy
/// goes between neighbours, reads rows its sender owns and writes ghost rows of its receiver, each row
/// landing where the same global row belongs; every ghost row inside the grid is written exactly once,
/// and no ghost row past the grid's edge is written (those hold the rigid wall's zeros).
inline std::string plan_problem(const std::vector<RowRange>& slabs, const std::vector<HaloCopy>& copies) {
  const int count = static_cast<int>(slabs.size());
  const int ny = slabs.empty() ? 0 : slabs.back().end;
  const std::string cut = "slabs of " + heights_text(slabs) + " rows: ";
  std::map<std::pair<int, int>, int> written;  // (slab, local ghost row) -> times written
  for (const HaloCopy& c : copies) {
    const std::string copy = cut + "the copy " + std::to_string(c.from_slab) + " -> " + std::to_string(c.to_slab) +
                             " (from local row " + std::to_string(c.from_row) + ", to local row " +
                             std::to_string(c.to_row) + ", " + std::to_string(c.rows) + " rows) ";
    if (c.from_slab < 0 || c.from_slab >= count || c.to_slab < 0 || c.to_slab >= count)
      return copy + "names a slab that does not exist";
    if (c.to_slab != c.from_slab - 1 && c.to_slab != c.from_slab + 1) return copy + "is not between neighbours";
    if (c.rows < 1) return copy + "moves no row";
    const RowRange from = slabs[static_cast<std::size_t>(c.from_slab)], to = slabs[static_cast<std::size_t>(c.to_slab)];
    for (int i = 0; i < c.rows; ++i) {
      const int source = c.from_row + i, ghost = c.to_row + i;
      if (source < 0 || source >= from.size())
        return copy + "reads local row " + std::to_string(source) + ", which its sender does not own";
      if (ghost < -halo || ghost >= to.size() + halo)
        return copy + "writes local row " + std::to_string(ghost) + ", outside the receiver's storage";
      if (ghost >= 0 && ghost < to.size())
        return copy + "overwrites local row " + std::to_string(ghost) + ", which the receiver owns and computes";
      if (from.begin + source != to.begin + ghost)
        return copy + "puts global row " + std::to_string(from.begin + source) + " into the ghost row that stands for global row " +
               std::to_string(to.begin + ghost);
      ++written[{c.to_slab, ghost}];
    }
  }
  for (int s = 0; s < count; ++s) {
    const RowRange r = slabs[static_cast<std::size_t>(s)];
    for (int g = -halo; g < r.size() + halo; ++g) {
      if (g >= 0 && g < r.size()) continue;
      const int global = r.begin + g;
      const int expected = global >= 0 && global < ny ? 1 : 0;
      const int times = written.count({s, g}) ? written.at({s, g}) : 0;
      if (times != expected)
        return cut + "ghost row " + std::to_string(g) + " of slab " + std::to_string(s) + " (global row " +
               std::to_string(global) + ") is written " + std::to_string(times) + " times, not " +
               std::to_string(expected);
    }
  }
  return "";
}

}  // namespace wave::testing
