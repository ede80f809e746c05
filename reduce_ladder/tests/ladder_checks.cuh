// GPU checks shared by the ladder's three chapters: every rung against the CPU sum on awkward sizes,
// several block sizes and misaligned starts, outputs and partials poisoned first.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "common/buffers.cuh"
#include "common/device.cuh"
#include "reduce_ladder/ladder.hpp"
#include "reduce_ladder/program.hpp"

namespace reduce::checks {

inline constexpr std::size_t big = std::size_t{1} << 24;
inline constexpr unsigned all_blocks[] = {64, 128, 256, 512, 1024};

/// The seed of an exercise's inputs: COURSE_SEED when the grader sets it (a fresh one per grading
/// run), else `fallback`, so that a plain run is reproducible.
inline std::uint64_t seed_from_env(std::uint64_t fallback) {
  const char* text = std::getenv("COURSE_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? seed : fallback;
}

/// True when the case runs under compute-sanitizer (the exercise's sanitizer test sets
/// COURSE_SANITIZER): a case then keeps its launches to a few blocks, since a racing kernel is reported
/// on every block and racecheck's cost grows with each hazard it records.
inline bool under_sanitizer() {
  const char* tool = std::getenv("COURSE_SANITIZER");
  return tool != nullptr && *tool != '\0';
}

/// `count` sizes drawn from `seed`, spread over [1, limit] on a log scale (small and large alike), so
/// that a grader's fresh seed also brings sizes nobody tuned for.
inline std::vector<std::size_t> random_sizes(std::uint64_t seed, std::size_t count, std::size_t limit) {
  const std::vector<int> draws = random_ints(2 * count, 0, 1 << 30, seed ^ 0x5eedu);
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < count; ++i) {
    const double fraction = static_cast<double>(draws[2 * i]) / (1 << 30);
    const auto size = static_cast<std::size_t>(std::pow(static_cast<double>(limit), fraction));
    sizes.push_back(std::clamp<std::size_t>(size + static_cast<std::size_t>(draws[2 * i + 1] % 7), 1, limit));
  }
  return sizes;
}

/// For the GPU case of a CPU-graded exercise: true when a GPU is usable. Without one the case checks
/// nothing and says so (the exercise's CPU cases grade it), unless REQUIRE_GPU=1, which makes the
/// missing GPU a failure, as for every GPU test.
inline bool gpu_present_for_cpu_exercise() {
  if (course::usable_device_count() > 0) return true;
  const char* require = std::getenv("REQUIRE_GPU");
  if (require != nullptr && std::strcmp(require, "1") == 0) {
    FAIL("REQUIRE_GPU=1 but no usable CUDA device");
    return false;
  }
  MESSAGE("no usable GPU: the kernel's sums are not checked here (the CPU cases grade this exercise)");
  return false;
}

/// 1, 2, 31, 32, 33, block − 1, block + 1, odd non-powers of two, 2^24 and 2^24 + 3.
inline std::vector<std::size_t> awkward_sizes(unsigned block, bool include_big) {
  std::vector<std::size_t> sizes{1, 2, 3, 5, 31, 32, 33, block - 1u, block, block + 1u, 8u * block + 7u,
                                 1000003, 3u * 65536u + 17u};
  if (include_big) {
    sizes.push_back(big);
    sizes.push_back(big + 3);
  }
  return sizes;
}

/// Where each checked run starts in the input: aligned (0) and 1, 2, 3 ints past a 16-byte boundary,
/// which the vector-load rungs must handle with a scalar head.
inline constexpr std::size_t offsets[] = {0, 1, 2, 3};
inline constexpr std::size_t capacity = big + 3 + 3;

/// The sizes a check runs at one block size: the awkward ones, plus `extra` (an exercise's sizes drawn
/// from its seed).
inline std::vector<std::size_t> sizes_for(unsigned block, bool include_big, std::span<const std::size_t> extra) {
  std::vector<std::size_t> sizes = awkward_sizes(block, include_big);
  sizes.insert(sizes.end(), extra.begin(), extra.end());
  return sizes;
}

/// Runs `variant` on ints and checks the exact 64-bit sum, twice in a row (the single-pass rungs must
/// leave their ticket ready for the next launch). `seed` draws the data; `extra` adds sizes (at most
/// `big`) to the awkward ones.
inline void check_ints(std::span<const Variant> variants, std::span<const unsigned> blocks, bool include_big,
                       std::uint64_t seed = 7, std::span<const std::size_t> extra = {}) {
  const int sm_count = course::require_device(0).sm_count;
  // Magnitudes near 2^30 with a positive mean: a 32-bit accumulator overflows after a few elements.
  const std::vector<int> host = random_ints(capacity, -(1 << 30), (1 << 30) + (1 << 29), seed);
  course::DeviceBuffer<int> input(capacity);
  input.upload(host);
  course::DeviceBuffer<long long> result(1);

  std::map<std::pair<std::size_t, std::size_t>, long long> expected;
  std::size_t scratch = 8;
  for (const unsigned block : blocks)
    for (const std::size_t n : sizes_for(block, include_big, extra))
      for (const std::size_t offset : offsets) {
        expected.try_emplace({offset, n}, reference_sum(std::span<const int>(host.data() + offset, n)));
        for (const auto& v : variants)
          scratch = std::max(scratch, scratch_bytes_for(v, n, v.shape(n, block, sm_count)));
      }
  Workspace workspace(scratch);

  for (const auto& v : variants)
    for (const unsigned block : blocks)
      for (const std::size_t n : sizes_for(block, include_big, extra))
        for (const std::size_t offset : offsets) {
          const LaunchShape shape = v.shape(n, block, sm_count);
          for (int repeat = 0; repeat < 2; ++repeat) {
            workspace.poison();
            result.fill_bytes(0xff);
            v.sum_int(input.data() + offset, n, result.data(), shape, workspace, nullptr);
            long long got = 0;
            result.download(std::span<long long>(&got, 1));
            INFO("kernel ", v.name, ", n = ", n, ", block = ", block, ", offset = ", offset, ", grid = ",
                 shape.grid, ", run ", repeat);
            CHECK(got == expected.at({offset, n}));
          }
        }
}

/// An upper bound on the rounding error of a float sum done by `shape`: the longest chain of additions
/// an element goes through (sequential per thread, then the block tree, then the partials), times the
/// unit roundoff, times the sum of magnitudes.
inline long double float_tolerance(std::size_t n, LaunchShape shape, long double sum_abs) {
  const std::size_t threads = std::size_t{shape.grid} * shape.block;
  const double per_thread = threads > 0 ? std::ceil(static_cast<double>(n) / static_cast<double>(threads)) : 4096.0;
  const double chain = per_thread + 10 + std::ceil(shape.grid / 1024.0) + 10 + 16;
  return static_cast<long double>(chain) * 0x1.0p-24L * sum_abs + 1e-30L;
}

/// Float sums against a long double reference within float_tolerance (`seed` draws the data).
inline void check_floats(std::span<const Variant> variants, std::span<const unsigned> blocks, std::uint64_t seed = 11) {
  const int sm_count = course::require_device(0).sm_count;
  const std::vector<float> host = random_floats(capacity, -1.0f, 1.25f, seed);
  course::DeviceBuffer<float> input(capacity);
  input.upload(host);
  course::DeviceBuffer<float> result(1);
  std::size_t scratch = 8;
  for (const unsigned block : blocks)
    for (const std::size_t n : awkward_sizes(block, true))
      for (const auto& v : variants)
        scratch = std::max(scratch, scratch_bytes_for(v, n, v.shape(n, block, sm_count)));
  Workspace workspace(scratch);
  for (const auto& v : variants) {
    if (!v.sum_float) continue;
    for (const unsigned block : blocks)
      for (const std::size_t n : awkward_sizes(block, true))
        for (const std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
          const FloatReference ref = reference_sum(std::span<const float>(host.data() + offset, n));
          const LaunchShape shape = v.shape(n, block, sm_count);
          workspace.poison();
          result.fill_bytes(0xff);
          v.sum_float(input.data() + offset, n, result.data(), shape, workspace, nullptr);
          float got = 0;
          result.download(std::span<float>(&got, 1));
          const long double error = std::fabs(static_cast<long double>(got) - ref.sum);
          INFO("kernel ", v.name, ", n = ", n, ", block = ", block, ", offset = ", offset, ", got ", got,
               ", reference ", static_cast<double>(ref.sum));
          CHECK(std::isfinite(got));
          CHECK(error <= float_tolerance(n, shape, ref.sum_abs));
        }
  }
}

/// The CPU-side checks every ladder program shares: validation happens before the GPU is touched.
inline void check_validation(std::span<const Variant> variants) {
  for (const long long good : {64, 128, 256, 512, 1024}) CHECK_NOTHROW(validate_block(good));
  for (const long long bad : {0, -64, 1, 32, 63, 96, 100, 1000, 2048}) CHECK_THROWS_AS(validate_block(bad), course::UsageError);
  CHECK_NOTHROW(validate_ladder_options({"2^24", "33"}, 256, {}, variants));
  CHECK_THROWS_AS(validate_ladder_options({"0"}, 256, {}, variants), course::UsageError);
  CHECK_THROWS_AS(validate_ladder_options({"abc"}, 256, {}, variants), course::UsageError);
  CHECK_THROWS_AS(validate_ladder_options({}, 256, {}, variants), course::UsageError);
  CHECK_THROWS_AS(validate_ladder_options({"2^40"}, 256, {}, variants), course::UsageError);
  CHECK_NOTHROW(validate_ladder_options({"2^32"}, 256, {}, variants));  // the limit itself is fine
  CHECK_THROWS_AS(validate_ladder_options({"4294967297"}, 256, {}, variants), course::UsageError);
  CHECK_THROWS_AS(validate_ladder_options({"2^10"}, 100, {}, variants), course::UsageError);
  CHECK_THROWS_AS(validate_ladder_options({"2^10"}, 256, {"no_such_kernel"}, variants), course::UsageError);
  CHECK_NOTHROW(validate_ladder_options({"2^10"}, 256, {variants.front().name}, variants));
}

/// The variant table is well formed: unique names, every field given.
inline void check_table(std::span<const Variant> variants) {
  std::set<std::string> names;
  for (const auto& v : variants) {
    CHECK(names.insert(v.name).second);
    CHECK(static_cast<bool>(v.shape));
    CHECK(static_cast<bool>(v.sum_int));
    CHECK(std::string(v.book_name).size() > 0);
    CHECK(std::string(v.teaches).size() > 0);
    CHECK(std::string(v.grid_formula).size() > 0);
  }
}

}  // namespace reduce::checks
