// What the chapter's tests share: the grader's seed, sizes drawn from it, the launch shapes the tests
// choose themselves, and one check of a kernel against its CPU reference with guard zones around the
// output.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "course_test_env.hpp"
#include "first_kernel.hpp"
#include "workspace.hpp"

namespace first_kernel::testing {

/// COURSE_SEED when the grader sets it (a fresh one per grading run), else `fallback` (common's rule).
inline std::uint64_t seed(std::uint64_t fallback) { return course::testing::seed_from_env(fallback); }

/// `count` sizes in [1, max] drawn from `seed`.
inline std::vector<std::size_t> random_sizes(std::uint64_t seed, int count, std::size_t max) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(1, max);
  std::vector<std::size_t> sizes;
  for (int i = 0; i < count; ++i) sizes.push_back(pick(rng));
  return sizes;
}

/// For the GPU case of a CPU-graded exercise: common's rule (REQUIRE_GPU=1 makes a missing GPU a failure).
inline bool gpu_present_for_cpu_exercise() {
  return course::testing::gpu_present_for_cpu_exercise("the kernels are");
}

inline const Variant& rung(const char* name) {
  for (const auto& v : variants())
    if (std::string(v.name) == name) return v;
  FAIL("no rung named ", name);
  return variants().front();
}

inline unsigned ceil_div(std::size_t n, unsigned d) { return static_cast<unsigned>((n + d - 1) / d); }

/// The tests' own shape, independent of exercise 00.1: one thread per element (or per matrix element,
/// in blocks of tile_dim × tile_dim), each partial block included.
inline LaunchShape covering_shape(const Variant& v, const Problem& p) {
  if (v.layout == Layout::matrix)
    return {dim3(ceil_div(p.width, tile_dim), ceil_div(p.height, tile_dim)), dim3(tile_dim, tile_dim)};
  return {dim3(ceil_div(p.n, p.block)), dim3(p.block)};
}

/// Floats of guard zone after an output: wider than any write a kernel without its bounds check could
/// make past the end (a missing check reaches up to 32 columns or rows beyond the matrix).
inline std::size_t guard_floats(const Problem& p, const Variant& v) {
  return v.layout == Layout::matrix ? std::size_t{tile_dim} * (std::size_t{p.width} + p.height + tile_dim) : 2048;
}

/// What one run of a kernel did: where its output first differs from the CPU's ("" when it agrees),
/// and whether it wrote into the guard zone after the output.
struct RunOutcome {
  std::string difference;
  bool wrote_outside = false;
};

/// Runs `v` once with `shape` on random data drawn from `seed`, the output poisoned with 0xFF bytes and
/// followed by a poisoned guard zone (the input too has one, filled with random data), and compares with
/// v.on_cpu. `runs` > 1 runs it again on the same buffers (a kernel must not depend on the output's old
/// contents).
inline RunOutcome run_against_cpu(const Variant& v, const Problem& p, LaunchShape shape, std::uint64_t seed,
                                  int runs = 1) {
  const bool vector = v.layout == Layout::vector;
  const std::size_t count = vector ? p.n : p.matrix_elements();
  const std::size_t guard = guard_floats(p, v);
  std::vector<float> input(count + guard), before(count + guard);
  fill_random(input, seed);
  fill_random(before, seed + 1);
  course::DeviceBuffer<float> in_dev(count + guard), out_dev(count + guard);
  in_dev.upload(input);
  for (int r = 0; r < runs; ++r) {
    out_dev.fill_bytes(0xff);
    if (vector) out_dev.upload(std::span<const float>(before).first(count));  // saxpy reads y
    DeviceArrays a;
    if (vector) a = {in_dev.data(), out_dev.data(), nullptr, nullptr};
    else a = {nullptr, nullptr, in_dev.data(), out_dev.data()};
    v.launch(p, a, shape, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<float> got(count + guard);
  out_dev.download(got);
  std::vector<float> expected(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(count));
  v.on_cpu(p, std::span<const float>(input).first(count), expected);
  RunOutcome outcome;
  outcome.difference = first_difference(std::span<const float>(got).first(count), expected, v.exact);
  for (std::size_t i = count; i < got.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &got[i], sizeof bits);
    outcome.wrote_outside = outcome.wrote_outside || bits != 0xffffffffu;
  }
  return outcome;
}

/// Awkward matrices: one element, a row, a column, just under and over the tile, not square, and a
/// thousand by 999.
inline std::vector<std::pair<unsigned, unsigned>> awkward_matrices() {
  return {{1, 1}, {31, 33}, {33, 31}, {32, 32}, {1, 1000}, {1000, 1}, {1000, 999}, {4097, 65}, {64, 4099}};
}

/// Awkward vector sizes for blocks of `block` threads.
inline std::vector<std::size_t> awkward_sizes(unsigned block) {
  return {1, 31, 32, 33, block - 1, block, block + 1, 2 * block + 1, 1000, 100003, (std::size_t{1} << 20) + 7};
}

}  // namespace first_kernel::testing
