/// \file first_kernel.hpp
/// \brief Chapter 00's ladder: the problem sizes, the launch shape of each kernel, the launchers (host
/// functions the driver and the tests call) and the table of variants that walks them all.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <vector>

#include "launch_shape.hpp"

namespace first_kernel {

/// The side of the square tile of the 2-D kernels: blocks of tile_dim × tile_dim threads, one element
/// each. 32 makes every row of a block one warp.
inline constexpr unsigned tile_dim = 32;
/// The largest element count of one array (--n, and width · height): 2^30 floats, 4 GiB. Below it every
/// index of the kernels fits an int, the last block's threads past the end included.
inline constexpr std::size_t max_elements = std::size_t{1} << 30;

/// What one run works on: every variant reads these.
struct Problem {
  std::size_t n = std::size_t{1} << 26;  ///< elements of each 1-D array (--n): 256 MiB of floats
  unsigned width = 8192;                 ///< columns of the 2-D matrix (--width); rows are stored one after another
  unsigned height = 8192;                ///< rows of the 2-D matrix (--height)
  unsigned stride = 32;                  ///< copy_strided: floats between the reads of neighbouring threads (--stride)
  unsigned block = 256;                  ///< threads per block of the 1-D kernels (--block)
  float a = 2.0f;                        ///< saxpy's a
  int sm_count = 0;                      ///< the device's SMs: the grid-stride kernel's grid
  int max_threads_per_sm = 0;            ///< threads one SM holds at once: the same

  std::size_t matrix_elements() const { return std::size_t{width} * height; }
};

/// The two numbers of a launch `kernel<<<grid, block>>>`: how many blocks, and how many threads each.
struct LaunchShape {
  dim3 grid;
  dim3 block;
};

/// The device arrays one variant reads and writes (device pointers of the current GPU).
/// 1-D variants: `x` (n floats, read) and `y` (n floats, written; saxpy also reads it).
/// 2-D variants: `in` (width × height, read) and `out` (width × height, written).
struct DeviceArrays {
  const float* x = nullptr;
  float* y = nullptr;
  const float* in = nullptr;
  float* out = nullptr;
};

/// Whether a variant works on the 1-D arrays or on the matrix.
enum class Layout { vector, matrix };

/// One rung of the ladder: what the driver times, the tests check and the lesson's table shows.
struct Variant {
  const char* name;     ///< ours: the table, the JSON, --variants, the lesson
  const char* teaches;  ///< one line: what this kernel adds to the one before
  Layout layout;
  /// The chapter's launch shape for this variant (built on exercise 00.1's blocks_for).
  LaunchShape (*shape)(const Problem& p);
  /// Enqueues the kernel on `stream` with `shape` and checks the launch. Any shape that covers the data
  /// works for the one-thread-per-element kernels; the grid-stride kernel takes any grid at all; the 2-D
  /// kernels need blocks of tile_dim × tile_dim.
  void (*launch)(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
  /// Bytes one run must move: every element read once and written once (saxpy reads y too).
  double (*bytes)(const Problem& p);
  /// The CPU reference. 1-D: `input` is x, `output` holds y before the run and receives y after it.
  /// 2-D: `input` is the matrix, `output` receives the expected result.
  void (*on_cpu)(const Problem& p, std::span<const float> input, std::span<float> output);
  /// True when the GPU must match the CPU bit for bit (copies, transposes); saxpy may differ by the
  /// rounding of one multiply-add (the GPU fuses it into one instruction, FMA).
  bool exact;
};

/// The ladder, in the lesson's order: saxpy, saxpy_grid_stride, copy_coalesced, copy_strided, copy_2d,
/// transpose_naive, transpose_shared.
std::span<const Variant> variants();

/// One thread per element: blocks_for(n, block) blocks of `block` threads.
LaunchShape one_thread_per_element(const Problem& p);
/// The grid-stride kernel's grid: enough blocks to fill every SM once (SMs × threads per SM / block),
/// fewer when n needs fewer.
LaunchShape grid_filling_the_gpu(const Problem& p);
/// One thread per matrix element: blocks of tile_dim × tile_dim, blocks_for_matrix of them.
LaunchShape one_thread_per_matrix_element(const Problem& p);

/// copy_strided's read: output element i comes from input element strided_source(i, n, stride), so
/// that neighbouring threads read `stride` floats apart. The first m · stride elements (m = n / stride)
/// are an m-row, stride-column table read down its columns; the last n − m · stride elements (fewer than
/// `stride`) are copied in place. Every input element is read exactly once.
/// 32-bit arithmetic (n ≤ max_elements): a 64-bit division costs a GPU dozens of instructions.
__host__ __device__ inline unsigned strided_source(unsigned i, unsigned n, unsigned stride) {
  const unsigned m = n / stride;
  if (i >= m * stride) return i;
  return (i % m) * stride + i / m;
}

// The launchers (one kernel each; the kernels are in src/*.cu).
void launch_saxpy(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
void launch_saxpy_grid_stride(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
void launch_copy_coalesced(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
void launch_copy_strided(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
void launch_copy_2d(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
/// Exercise 00.2: the transpose, one thread per element (reads coalesced, writes strided).
void launch_transpose_naive(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);
/// Exercise 00.3: the transpose through a shared-memory tile (reads and writes coalesced).
void launch_transpose_shared(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream);

/// The host ritual in one function, the lesson's first program: allocate device memory, copy x and y
/// in, launch saxpy, check the launch, wait for it, copy y back. Returns a·x + y; `x` and `y` must have
/// the same size (at most max_elements).
std::vector<float> saxpy_on_gpu(float a, std::span<const float> x, std::span<const float> y);

}  // namespace first_kernel
