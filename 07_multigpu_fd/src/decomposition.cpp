#include "decomposition.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "stencil.hpp"

namespace wave {

StepRegions split_rows(int rows) {
  const int top_end = std::min(halo, rows);
  const int bottom_begin = std::max(rows - halo, top_end);
  return {{0, top_end}, {top_end, bottom_begin}, {bottom_begin, rows}};
}

void validate_decomposition(int ny, int slabs) {
  if (slabs < 1) throw course::UsageError("the number of slabs must be at least 1");
  if (slabs > ny) throw course::UsageError("more slabs (" + std::to_string(slabs) + ") than rows (" + std::to_string(ny) + ")");
  if (slabs > 1 && ny / slabs < halo)
    throw course::UsageError("slabs of " + std::to_string(ny / slabs) + " rows are thinner than the " +
                             std::to_string(halo) + "-row halo: use fewer slabs or a larger ny");
}

int device_of_slab(int slab, int slabs, int devices) {
  return static_cast<int>(static_cast<long long>(slab) * devices / slabs);
}

std::size_t slab_bytes(int nx, int rows) {
  const SlabLayout layout = SlabLayout::make(nx, rows);
  const std::size_t floats = 3 * layout.elements()                   // u_prev, u, u_next (ghost rows too)
                             + 2 * static_cast<std::size_t>(rows)    // courant2, damp_y
                             + static_cast<std::size_t>(layout.pitch);  // damp_x
  return floats * sizeof(float);
}

std::vector<std::size_t> device_bytes(int nx, int ny, int slabs, int devices) {
  std::vector<std::size_t> bytes(static_cast<std::size_t>(devices), 0);
  for (int s = 0; s < slabs; ++s)
    bytes[static_cast<std::size_t>(device_of_slab(s, slabs, devices))] += slab_bytes(nx, slab_rows(ny, slabs, s).size());
  return bytes;
}

}  // namespace wave
