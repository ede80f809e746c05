// What the grading probes of exercises 00.2 and 00.3 write in verdict mode (common/probe.hpp): the output
// of a transpose launcher, run on the exercise's own file, for matrices drawn from the grader's seed.
//
// As exercise.00.2/00.3 do: the tests' awkward matrices (1 × 1 to 4097 × 65 and 64 × 4099, sides that are
// not multiples of 32) and matrices drawn from the seed, random input followed by a random guard zone,
// the output poisoned with 0xFF bytes (a NaN) and followed by a poisoned guard zone wider than any write a
// missing bounds check could make, each matrix run twice on the same buffers (poisoned again before the
// second run). The grid is the tests' own (one thread per element in 32 × 32 blocks), not exercise 00.1's.
//
// The transpose has one right answer, bit for bit, so what is written is the output itself: raw for small
// matrices, and for every matrix a 64-bit hash of each output row's bits (no other output gives a row's
// hash) and of each 1,024-float chunk of the guard zone (its poison unchanged: nothing written outside the
// output). An element never written keeps its NaN and changes its row's hash. All exact.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../src/first_kernel.hpp"
#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/probe.hpp"

namespace first_kernel::grading {

using Launcher = void (*)(const Problem&, const DeviceArrays&, LaunchShape, cudaStream_t);

inline unsigned ceil_div(std::size_t n, unsigned d) { return static_cast<unsigned>((n + d - 1) / d); }

/// The tests' own grid: one thread per element of `in`, blocks of tile_dim × tile_dim, partial blocks included.
inline LaunchShape covering_matrix_shape(unsigned width, unsigned height) {
  return {dim3(ceil_div(width, tile_dim), ceil_div(height, tile_dim)), dim3(tile_dim, tile_dim)};
}

/// Floats of guard zone after the output (the tests' guard_floats for a matrix).
inline std::size_t guard_floats(unsigned width, unsigned height) {
  return std::size_t{tile_dim} * (std::size_t{width} + height + tile_dim);
}

inline std::uint64_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// A hash of floats' bits, in order (course::probe::mix chained): a different value or place changes it.
inline long long hash_floats(const float* values, std::size_t count, std::uint64_t salt) {
  std::uint64_t h = course::probe::mix(salt, count);
  for (std::size_t i = 0; i < count; ++i) h = course::probe::mix(h, bits_of(values[i]));
  return static_cast<long long>(h);
}

/// The matrices of the exercise's suite, and the ones drawn from the seed (the suite draws three up to
/// 1500 × 1500; a few more and smaller ones here, each side anything from 1).
/// Under compute-sanitizer (COURSE_SANITIZER set by the grader) only matrices of at most 70,000 elements
/// and drawn sides up to 100: every path still runs (partial blocks on both axes, one block, many), and a
/// racing kernel, reported on every block under racecheck, still ends in seconds.
inline std::vector<std::pair<unsigned, unsigned>> matrices(course::probe::Random& random) {
  const char* tool = std::getenv("COURSE_SANITIZER");
  const bool small = tool != nullptr && *tool != '\0';
  const std::uint64_t drawn_side = small ? 100 : 1500;
  std::vector<std::pair<unsigned, unsigned>> shapes = {{1, 1},    {2, 3},     {31, 33},  {33, 31},   {32, 32},
                                                       {64, 64},  {1, 1000},  {1000, 1}, {1000, 999}, {4097, 65},
                                                       {64, 4099}, {97, 1}, {1, 97}};
  for (int i = 0; i < 3; ++i)
    shapes.emplace_back(static_cast<unsigned>(1 + random.below(drawn_side)), static_cast<unsigned>(1 + random.below(drawn_side)));
  for (int i = 0; i < 3; ++i)
    shapes.emplace_back(static_cast<unsigned>(1 + random.below(100)), static_cast<unsigned>(1 + random.below(100)));
  if (small)
    std::erase_if(shapes, [](const auto& shape) { return std::size_t{shape.first} * shape.second > 70'000; });
  return shapes;
}

/// Runs `launch` on every matrix and adds its outputs to `cases` (see the file's comment).
inline void add_transpose_cases(course::probe::Cases& cases, Launcher launch, std::uint64_t seed) {
  course::probe::Random random(course::probe::mix(seed, 0x0002));
  for (const auto& [width, height] : matrices(random)) {
    const std::size_t count = std::size_t{width} * height;
    const std::size_t guard = guard_floats(width, height);
    std::vector<float> input(count + guard);
    for (float& v : input) v = static_cast<float>(random.uniform(-1.0, 1.0));
    course::DeviceBuffer<float> in(count + guard), out(count + guard);
    in.upload(input);
    Problem p;
    p.width = width;
    p.height = height;
    const DeviceArrays arrays{nullptr, nullptr, in.data(), out.data()};
    const std::string shape = std::to_string(width) + "x" + std::to_string(height);
    std::vector<float> got(count + guard);
    for (int run = 1; run <= 2; ++run) {
      out.fill_bytes(0xff);  // NaN everywhere: an element never written stays NaN
      launch(p, arrays, covering_matrix_shape(width, height), nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      out.download(got);
      const std::string prefix = shape + " run " + std::to_string(run);
      if (run == 1 && count <= 4096)
        cases.add(prefix + " out (raw)", std::vector<float>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(count)),
                  course::probe::Tolerance::exact());
      // out is `width` rows of `height` floats: one hash per row.
      std::vector<long long> rows;
      rows.reserve(width);
      for (std::size_t r = 0; r < width; ++r) rows.push_back(hash_floats(got.data() + r * height, height, r));
      cases.add_exact(prefix + " out row hashes", rows);
      std::vector<long long> chunks;
      for (std::size_t at = 0; at < guard; at += 1024)
        chunks.push_back(hash_floats(got.data() + count + at, std::min<std::size_t>(1024, guard - at), at));
      cases.add_exact(prefix + " guard zone after out (1024-float chunk hashes)", chunks);
    }
  }
}

}  // namespace first_kernel::grading
