/// \file decomposition.hpp
/// \brief Splitting ny rows into slabs along y, and which rows each halo exchange moves where.
/// Pure host code: the CPU tests check it for thousands of (ny, slabs); slab_rows is exercise 07.1,
/// halo_copies exercise 07.2.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "stencil.hpp"

namespace wave {

/// Half-open range of rows [begin, end).
struct RowRange {
  int begin = 0;
  int end = 0;
  int size() const { return end - begin; }
  bool operator==(const RowRange&) const = default;
};

/// The global rows slab `slab` of `slabs` owns. Every row belongs to exactly one slab, slabs are in
/// order, and their sizes differ by at most one (ny need not divide evenly).
RowRange slab_rows(int ny, int slabs, int slab);

/// One halo copy: `rows` rows starting at local row `from_row` of slab `from_slab` (rows it owns) go to
/// local row `to_row` of slab `to_slab` (its ghost rows: negative above, ≥ its row count below).
struct HaloCopy {
  int from_slab = 0;
  int from_row = 0;
  int to_slab = 0;
  int to_row = 0;
  int rows = 0;
  bool operator==(const HaloCopy&) const = default;
};

/// Every copy one step needs when the grid is cut into `slabs` (consecutive row ranges, in order, each
/// at least `halo` rows), in slab order: slab s sends its first `halo` rows up to slab s−1's ghost rows
/// below it, and its last `halo` rows down to slab s+1's ghost rows above it. Edges of the grid send
/// nothing (their ghost rows stay zero: the rigid boundary). Only the slabs' heights matter.
std::vector<HaloCopy> halo_copies(std::span<const RowRange> slabs);

/// The copies for ny rows cut into `slabs` slabs by slab_rows. Requires every slab ≥ halo rows.
std::vector<HaloCopy> halo_copies(int ny, int slabs);
/// The same exchange `depth` rows deep (depth ≥ halo), for a temporal rung whose pass advances K steps
/// (depth = halo · K): each copy of `step_copies` (halo_copies' plan) moves `depth` rows, the ghost rows
/// nearest the receiver's own rows included. Derived from the one-step plan, so the two cannot disagree
/// about which neighbour's rows land where. Requires every sender ≥ depth rows.
std::vector<HaloCopy> deepened(std::span<const HaloCopy> step_copies, int depth);

/// The local rows one step computes in each part when it overlaps the exchange: the `top` and
/// `bottom` rows (those the neighbours need, and those that read ghost rows) first, on the halo
/// stream; the `interior` meanwhile on the other stream. Together they cover [0, rows) once. `depth`:
/// the rows each neighbour needs (halo for one step, halo · K for a temporal pass of K steps).
struct StepRegions {
  RowRange top, interior, bottom;
};
StepRegions split_rows(int rows, int depth = halo);

/// Throws course::UsageError unless 1 ≤ slabs and, with more than one slab, every slab has at least
/// `depth` rows (a thinner slab could not supply the rows its neighbour needs; depth is halo for a
/// one-step rung, halo · K for a temporal rung).
void validate_decomposition(int ny, int slabs, int depth = halo);

/// The device slab `slab` runs on when `slabs` slabs share `devices` devices: contiguous groups, so
/// that neighbouring slabs share a device and most copies stay local.
int device_of_slab(int slab, int slabs, int devices);

/// Device memory a slab of `rows` rows of `nx` cells with `ghost` ghost rows allocates: `buffers` padded
/// fields and its slices of the coefficient arrays, ghost rows included (what Slab's constructor
/// allocates; keep the two in step).
std::size_t slab_bytes(int nx, int rows, int buffers = 3, int ghost = halo);

/// The device memory each of `devices` devices holds when `slabs` slabs of an nx × ny grid share them
/// (index d: the d-th device of the run). Lets a run that cannot fit be refused before it allocates.
std::vector<std::size_t> device_bytes(int nx, int ny, int slabs, int devices, int buffers = 3, int ghost = halo);

}  // namespace wave
