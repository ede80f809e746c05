/// \file stencil.hpp
/// \brief The numerics every part of the chapter shares (CPU reference, GPU kernels, tests): the
/// 8th-order weights, the padded slab layout, and the one cell update whose arithmetic order is fixed.
#pragma once
#include <cmath>
#include <cstddef>

#if defined(__CUDACC__)
#define WAVE_HD __host__ __device__
#else
#define WAVE_HD
#endif

namespace wave {

/// Rows (and columns) of neighbours on each side: an 8th-order centred second derivative needs 4.
inline constexpr int halo = 4;
/// Left margin of each stored row, in floats. 32 floats = 128 bytes keeps the first cell of every row
/// aligned to a cache line (so a warp's 32 loads are one line), while the 4 floats just left of it
/// hold the zero boundary.
inline constexpr int x_origin = 32;

// [taylor_weights]
/// 8th-order Taylor weights of d²/dx² on a grid of spacing 1: f'' ≈ Σ_k w_k (f(x+k) + f(x−k)), k = 0..4
/// (w_0 counted once). They sum to zero (a constant has no curvature) — the book's did not.
inline constexpr double taylor_weights[5] = {-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0};
/// The same in float, as the kernels use them. Two axes share the centre: 2·w_0.
inline constexpr float weight_center_2d = static_cast<float>(2.0 * (-205.0 / 72.0));
inline constexpr float weight_1 = static_cast<float>(8.0 / 5.0);
inline constexpr float weight_2 = static_cast<float>(-1.0 / 5.0);
inline constexpr float weight_3 = static_cast<float>(8.0 / 315.0);
inline constexpr float weight_4 = static_cast<float>(-1.0 / 560.0);
// [taylor_weights]

/// Where cell (x, y) of a slab lives: rows of `pitch` floats, `ghost` ghost rows above and below the
/// slab's own rows, a 128-byte left margin. Everything outside the nx × rows cells is zero unless a
/// neighbour slab's halo copy wrote it: the rigid boundary costs no branch. One step needs `halo` ghost
/// rows; a temporal rung that advances K steps per pass in a slab with neighbours needs halo · K.
struct SlabLayout {
  int nx = 0;      ///< cells per row
  int rows = 0;    ///< rows this slab owns (ghost rows not counted)
  int pitch = 0;   ///< floats per stored row: a multiple of 32, at least x_origin + nx + 8
  int ghost = halo;  ///< ghost rows above and below

  /// The layout of a slab of `rows` rows of `nx` cells with `ghost` ghost rows on either side.
  static SlabLayout make(int nx, int rows, int ghost = halo) {
    const int needed = x_origin + nx + 2 * halo;  // right margin ≥ 8: a float4 at x+4 stays inside
    return {nx, rows, (needed + 31) / 32 * 32, ghost};
  }
  /// Floats to allocate, ghost rows included.
  std::size_t elements() const { return static_cast<std::size_t>(rows + 2 * ghost) * static_cast<std::size_t>(pitch); }
  /// Offset of cell (x, y); y may be −ghost … rows+ghost−1 (ghost rows), x may be −halo … nx+halo−1.
  WAVE_HD std::size_t index(int x, int y) const {
    return static_cast<std::size_t>(y + ghost) * static_cast<std::size_t>(pitch) +
           static_cast<std::size_t>(x_origin + x);
  }
};

// Each operation rounded exactly once, in the order written: the GPU uses the _rn intrinsics (which
// the compiler never fuses or reorders), the CPU plain IEEE operations and std::fma. So the GPU, the
// CPU reference and every decomposition compute bit-identical numbers.
WAVE_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
WAVE_HD inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
WAVE_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
WAVE_HD inline float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// [cell_update]
/// The four neighbours at distance k: (left + right) + (up + down).
WAVE_HD inline float ring_sum(float left, float right, float up, float down) {
  return add_rn(add_rn(left, right), add_rn(up, down));
}

/// One leapfrog step of u_tt = v²∇²u for one cell:
///   u_next = damp · (2u − u_prev + (v·dt/h)² · Σ_k w_k · ring_k)
/// `ring1..ring4` from ring_sum, `courant2` = (v·dt/h)² of this row, `damp` = 1 outside the sponge.
WAVE_HD inline float leapfrog_cell(float center, float prev, float ring1, float ring2, float ring3, float ring4,
                                   float courant2, float damp) {
  float lap = mul_rn(weight_center_2d, center);
  lap = fma_rn(weight_1, ring1, lap);
  lap = fma_rn(weight_2, ring2, lap);
  lap = fma_rn(weight_3, ring3, lap);
  lap = fma_rn(weight_4, ring4, lap);
  return mul_rn(damp, fma_rn(courant2, lap, sub_rn(add_rn(center, center), prev)));
}
// [cell_update]

}  // namespace wave
