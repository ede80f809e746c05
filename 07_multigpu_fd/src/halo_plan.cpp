// The halo plan: which rows each exchange copies where. Exercise 07.2 (a planted bug to find and fix).
#include <vector>

#include "decomposition.hpp"
#include "stencil.hpp"

namespace wave {

// BEGIN SOLUTION 07.2
#ifndef COURSE_STUB_07_2
std::vector<HaloCopy> halo_copies(std::span<const RowRange> slabs) {
  std::vector<HaloCopy> copies;
  const int count = static_cast<int>(slabs.size());
  for (int s = 0; s < count; ++s) {
    const int rows = slabs[static_cast<std::size_t>(s)].size();
    // My first `halo` rows become the ghost rows below the slab above: its local rows from its own height
    // on, so the receiver's height places them, not mine (the two differ by a row on an uneven split).
    if (s > 0) copies.push_back({s, 0, s - 1, slabs[static_cast<std::size_t>(s - 1)].size(), halo});
    // My last `halo` rows, rows−halo … rows−1, become the ghost rows −halo … −1 above the slab below.
    if (s + 1 < count) copies.push_back({s, rows - halo, s + 1, -halo, halo});
  }
  return copies;
}
#else
std::vector<HaloCopy> halo_copies(std::span<const RowRange> slabs) {
  // TODO (exercise 07.2): a run cut into slabs is not bit-for-bit the one-slab run. The plan below has a
  // bug; the exercise's tests show what goes wrong. Find it and fix it.
  std::vector<HaloCopy> copies;
  const int count = static_cast<int>(slabs.size());
  for (int s = 0; s < count; ++s) {
    const int rows = slabs[static_cast<std::size_t>(s)].size();
    const int last_row = rows - 1;
    // My first `halo` rows go up: into the ghost rows of the slab above, which start at its height.
    if (s > 0) copies.push_back({s, 0, s - 1, slabs[static_cast<std::size_t>(s - 1)].size(), halo});
    // My last `halo` rows, counted back from my last row, go down: into the ghost rows −halo … −1 below.
    if (s + 1 < count) copies.push_back({s, last_row - halo, s + 1, -halo, halo});
  }
  return copies;
}
#endif
// END SOLUTION 07.2

}  // namespace wave
