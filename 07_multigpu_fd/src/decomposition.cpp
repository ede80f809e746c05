#include "decomposition.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "stencil.hpp"

namespace wave {

// BEGIN SOLUTION 07.1
#ifndef COURSE_STUB_07_1
RowRange slab_rows(int ny, int slabs, int slab) {
  // s·ny/N rounds down: consecutive slabs meet exactly, and sizes differ by at most one row.
  // 64-bit products: ny·slabs may overflow int for large grids and many slabs.
  const auto boundary = [&](int s) { return static_cast<int>(static_cast<long long>(s) * ny / slabs); };
  return {boundary(slab), boundary(slab + 1)};
}
#else
RowRange slab_rows(int ny, int slabs, int slab) {
  // TODO (exercise 07.1): return the global rows [begin, end) that slab `slab` of `slabs` owns, for any
  // 1 <= slabs <= ny <= 2^20: every row in exactly one slab, the slabs in order, and no two slabs
  // differing in height by more than one row. This stub gives every slab the whole grid, which is
  // right for one slab only.
  (void)slabs;
  (void)slab;
  return {0, ny};
}
#endif
// END SOLUTION 07.1

std::vector<HaloCopy> halo_copies(int ny, int slabs) {
  std::vector<RowRange> ranges;
  for (int s = 0; s < slabs; ++s) ranges.push_back(slab_rows(ny, slabs, s));
  return halo_copies(ranges);
}

std::vector<HaloCopy> deepened(std::span<const HaloCopy> step_copies, int depth) {
  std::vector<HaloCopy> copies(step_copies.begin(), step_copies.end());
  for (HaloCopy& c : copies) {
    // A copy into the ghost rows above the receiver (negative rows) ends at its row 0: a deeper one starts
    // higher, with rows further up the sender. A copy into the rows below starts at the receiver's height.
    if (c.to_row < 0) {
      c.from_row -= depth - c.rows;
      c.to_row -= depth - c.rows;
    }
    c.rows = depth;
  }
  return copies;
}

StepRegions split_rows(int rows, int depth) {
  const int top_end = std::min(depth, rows);
  const int bottom_begin = std::max(rows - depth, top_end);
  return {{0, top_end}, {top_end, bottom_begin}, {bottom_begin, rows}};
}

void validate_decomposition(int ny, int slabs, int depth) {
  if (slabs < 1) throw course::UsageError("the number of slabs must be at least 1");
  if (slabs > ny) throw course::UsageError("more slabs (" + std::to_string(slabs) + ") than rows (" + std::to_string(ny) + ")");
  if (slabs > 1 && ny / slabs < depth)
    throw course::UsageError("slabs of " + std::to_string(ny / slabs) + " rows are thinner than the " +
                             std::to_string(depth) + "-row halo" + (depth > halo ? " of a temporal rung's pass" : "") +
                             ": use fewer slabs or a larger ny");
}

int device_of_slab(int slab, int slabs, int devices) {
  return static_cast<int>(static_cast<long long>(slab) * devices / slabs);
}

std::size_t slab_bytes(int nx, int rows, int buffers, int ghost) {
  const SlabLayout layout = SlabLayout::make(nx, rows, ghost);
  const std::size_t floats = static_cast<std::size_t>(buffers) * layout.elements()  // u_prev, u, u_next, …
                             + 2 * static_cast<std::size_t>(rows + 2 * ghost)  // courant2, damp_y (ghost rows too)
                             + static_cast<std::size_t>(layout.pitch);  // damp_x
  return floats * sizeof(float);
}

std::vector<std::size_t> device_bytes(int nx, int ny, int slabs, int devices, int buffers, int ghost) {
  std::vector<std::size_t> bytes(static_cast<std::size_t>(devices), 0);
  for (int s = 0; s < slabs; ++s)
    bytes[static_cast<std::size_t>(device_of_slab(s, slabs, devices))] += slab_bytes(nx, slab_rows(ny, slabs, s).size(), buffers, ghost);
  return bytes;
}

}  // namespace wave
