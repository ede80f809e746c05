// The halo index math: which rows each slab owns, and which rows each exchange copies where.
// (The lab's file: lab/halo_plan.cpp replaces this one in lab mode.)
#include <vector>

#include "decomposition.hpp"
#include "stencil.hpp"

namespace wave {

// [slab_rows]
RowRange slab_rows(int ny, int slabs, int slab) {
  // s·ny/N rounds down: consecutive slabs meet exactly, and sizes differ by at most one row.
  // 64-bit products: ny·slabs may overflow int for large grids and many slabs.
  const auto boundary = [&](int s) { return static_cast<int>(static_cast<long long>(s) * ny / slabs); };
  return {boundary(slab), boundary(slab + 1)};
}
// [slab_rows]

// [halo_copies]
std::vector<HaloCopy> halo_copies(int ny, int slabs) {
  std::vector<HaloCopy> copies;
  for (int s = 0; s < slabs; ++s) {
    const int rows = slab_rows(ny, slabs, s).size();
    if (s > 0) {
      // My first `halo` rows become the ghost rows below the slab above (its rows rows_above … +halo).
      const int rows_above = slab_rows(ny, slabs, s - 1).size();
      copies.push_back({s, 0, s - 1, rows_above, halo});
    }
    if (s + 1 < slabs) {
      // My last `halo` rows become the ghost rows above the slab below (its rows −halo … −1).
      copies.push_back({s, rows - halo, s + 1, -halo, halo});
    }
  }
  return copies;
}
// [halo_copies]

}  // namespace wave
