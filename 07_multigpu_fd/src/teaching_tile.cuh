/// \file teaching_tile.cuh
/// \brief The 2-D shared-memory tile with its halo, taught on the smallest star (radius 1, five points)
/// so that the lesson can show the pattern without showing exercise 07.3's kernel (radius 4, padded
/// slabs, the fixed arithmetic of update_cell). Not a rung of the ladder: the lesson's snippet and one
/// GPU test use it.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include <cuda_runtime.h>

namespace wave::teaching {

/// Cells per block along x and y (one thread each) and the star's reach: a block stores
/// (tile_x + 2·radius) × (tile_y + 2·radius) values.
inline constexpr int tile_x = 32;
inline constexpr int tile_y = 8;
inline constexpr int radius = 1;

/// out = the 5-point Laplacian of `in` (nx × ny floats, row-major, zero outside the mesh), one block per
/// tile_x × tile_y cells, each block staging its cells and their halo in shared memory. Device pointers.
void launch_laplacian5_tiled(const float* in, float* out, int nx, int ny, cudaStream_t stream);

/// The same on the CPU: (left + right) + (up + down) − 4·centre, zero outside the mesh.
inline std::vector<float> laplacian5_reference(std::span<const float> in, int nx, int ny) {
  auto at = [&](int x, int y) {
    return x < 0 || x >= nx || y < 0 || y >= ny ? 0.0f : in[static_cast<std::size_t>(y) * nx + x];
  };
  std::vector<float> out(in.size());
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      out[static_cast<std::size_t>(y) * nx + x] =
          (at(x - 1, y) + at(x + 1, y)) + (at(x, y - 1) + at(x, y + 1)) - 4.0f * at(x, y);
  return out;
}

}  // namespace wave::teaching
