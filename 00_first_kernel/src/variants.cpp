// The ladder as data: each rung's kernel, launch shape, byte count and CPU reference.
#include <algorithm>
#include <array>
#include <cmath>

#include "first_kernel.hpp"

namespace first_kernel {
namespace {

double bytes_saxpy(const Problem& p) { return 3.0 * sizeof(float) * static_cast<double>(p.n); }  // x, y in; y out
double bytes_copy(const Problem& p) { return 2.0 * sizeof(float) * static_cast<double>(p.n); }   // x in; y out
double bytes_matrix(const Problem& p) { return 2.0 * sizeof(float) * static_cast<double>(p.matrix_elements()); }

// std::fma: the GPU fuses a·x + y into one multiply-add with one rounding, and so does this.
void saxpy_on_cpu(const Problem& p, std::span<const float> x, std::span<float> y) {
  for (std::size_t i = 0; i < p.n; ++i) y[i] = std::fma(p.a, x[i], y[i]);
}
void copy_on_cpu(const Problem& p, std::span<const float> x, std::span<float> y) {
  std::copy_n(x.begin(), p.n, y.begin());
}
void strided_copy_on_cpu(const Problem& p, std::span<const float> x, std::span<float> y) {
  const auto n = static_cast<unsigned>(p.n);
  for (unsigned i = 0; i < n; ++i) y[i] = x[strided_source(i, n, p.stride)];
}
void matrix_copy_on_cpu(const Problem& p, std::span<const float> in, std::span<float> out) {
  std::copy_n(in.begin(), p.matrix_elements(), out.begin());
}
void transpose_on_cpu(const Problem& p, std::span<const float> in, std::span<float> out) {
  for (std::size_t row = 0; row < p.height; ++row)
    for (std::size_t col = 0; col < p.width; ++col) out[col * p.height + row] = in[row * p.width + col];
}

constexpr std::array<Variant, 7> table{{
    {"saxpy", "the first kernel: y = a*x + y, one thread per element, a bounds check", Layout::vector,
     one_thread_per_element, launch_saxpy, bytes_saxpy, saxpy_on_cpu, false},
    {"saxpy_grid_stride", "a grid that fills the GPU once; each thread loops over the array by the grid's size",
     Layout::vector, grid_filling_the_gpu, launch_saxpy_grid_stride, bytes_saxpy, saxpy_on_cpu, false},
    {"copy_coalesced", "a warp reads 32 neighbouring floats: 4 sectors of 32 bytes per request", Layout::vector,
     one_thread_per_element, launch_copy_coalesced, bytes_copy, copy_on_cpu, true},
    {"copy_strided", "a warp reads floats `stride` apart: 32 sectors per request, 4 useful bytes in each",
     Layout::vector, one_thread_per_element, launch_copy_strided, bytes_copy, strided_copy_on_cpu, true},
    {"copy_2d", "2-D indexing: a grid of 32 x 32 blocks, a bounds check on both axes", Layout::matrix,
     one_thread_per_matrix_element, launch_copy_2d, bytes_matrix, matrix_copy_on_cpu, true},
    {"transpose_naive", "reads along rows (coalesced), writes down columns (strided)", Layout::matrix,
     one_thread_per_matrix_element, launch_transpose_naive, bytes_matrix, transpose_on_cpu, true},
    {"transpose_shared", "a 32 x 33 shared-memory tile and __syncthreads(): both sides coalesced", Layout::matrix,
     one_thread_per_matrix_element, launch_transpose_shared, bytes_matrix, transpose_on_cpu, true},
}};

}  // namespace

std::span<const Variant> variants() { return table; }

LaunchShape one_thread_per_element(const Problem& p) {
  return {dim3(blocks_for(p.n, p.block)), dim3(p.block)};
}

LaunchShape grid_filling_the_gpu(const Problem& p) {
  // As many blocks as the SMs hold at once (if the block's registers allow it); more would only queue.
  const std::size_t resident = static_cast<std::size_t>(std::max(1, p.sm_count)) *
                               std::max<std::size_t>(1, static_cast<std::size_t>(p.max_threads_per_sm) / p.block);
  return {dim3(static_cast<unsigned>(std::min<std::size_t>(blocks_for(p.n, p.block), resident))), dim3(p.block)};
}

LaunchShape one_thread_per_matrix_element(const Problem& p) {
  const Blocks2D blocks = blocks_for_matrix(p.width, p.height, tile_dim, tile_dim);
  return {dim3(blocks.x, blocks.y), dim3(tile_dim, tile_dim)};
}

}  // namespace first_kernel
