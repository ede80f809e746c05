// GPU checks shared by the ladder's three chapters: every rung against the CPU sum on awkward sizes,
// several block sizes and misaligned starts, outputs and partials poisoned first.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "common/buffers.cuh"
#include "common/device.cuh"
#include "course_test_env.hpp"
#include "reduce_ladder/ladder.hpp"
#include "reduce_ladder/program.hpp"

namespace reduce::checks {

inline constexpr std::size_t big = std::size_t{1} << 24;
inline constexpr unsigned all_blocks[] = {64, 128, 256, 512, 1024};

// The grader's seed and the sanitizer flag: one definition for every chapter (common/testing).
using course::testing::seed_from_env;
using course::testing::under_sanitizer;

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

/// For the GPU case of a CPU-graded exercise: true when a GPU is usable (REQUIRE_GPU=1 makes a missing
/// one a failure; course_test_env.hpp).
inline bool gpu_present_for_cpu_exercise() {
  return course::testing::gpu_present_for_cpu_exercise("the kernel's sums are");
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
/// The float checks' starts: aligned, and 3 floats past a 16-byte boundary.
inline constexpr std::size_t float_offsets[] = {0, 3};

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
        if (!expected.contains({offset, n}))  // each sum once: the sizes repeat across block sizes
          expected.emplace(std::pair{offset, n}, reference_sum(std::span<const int>(host.data() + offset, n)));
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
            // Before the launch, so that a CUDA error thrown by it is reported with the case too.
            INFO("kernel ", v.name, ", n = ", n, ", block = ", block, ", offset = ", offset, ", grid = ",
                 shape.grid, ", run ", repeat);
            workspace.poison();
            result.fill_bytes(0xff);
            v.sum_int(input.data() + offset, n, result.data(), shape, workspace, nullptr);
            long long got = 0;
            result.download(std::span<long long>(&got, 1));
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

/// Float sums against a long double reference within float_tolerance (`seed` draws the data; `extra`
/// adds sizes, at most `big`, to the awkward ones). Rungs without a float launcher (the library row)
/// are left out.
inline void check_floats(std::span<const Variant> variants, std::span<const unsigned> blocks, std::uint64_t seed = 11,
                         std::span<const std::size_t> extra = {}) {
  const int sm_count = course::require_device(0).sm_count;
  const std::vector<float> host = random_floats(capacity, -1.0f, 1.25f, seed);
  course::DeviceBuffer<float> input(capacity);
  input.upload(host);
  course::DeviceBuffer<float> result(1);
  std::map<std::pair<std::size_t, std::size_t>, FloatReference> references;
  std::size_t scratch = 8;
  for (const unsigned block : blocks)
    for (const std::size_t n : sizes_for(block, true, extra)) {
      for (const std::size_t offset : float_offsets)
        if (!references.contains({offset, n}))
          references.emplace(std::pair{offset, n}, reference_sum(std::span<const float>(host.data() + offset, n)));
      for (const auto& v : variants)
        scratch = std::max(scratch, scratch_bytes_for(v, n, v.shape(n, block, sm_count)));
    }
  Workspace workspace(scratch);
  for (const auto& v : variants) {
    if (!v.sum_float) continue;
    for (const unsigned block : blocks)
      for (const std::size_t n : sizes_for(block, true, extra))
        for (const std::size_t offset : float_offsets) {
          const FloatReference& ref = references.at({offset, n});
          const LaunchShape shape = v.shape(n, block, sm_count);
          INFO("kernel ", v.name, ", n = ", n, ", block = ", block, ", offset = ", offset, ", grid = ", shape.grid,
               ", reference ", static_cast<double>(ref.sum));
          workspace.poison();
          result.fill_bytes(0xff);
          v.sum_float(input.data() + offset, n, result.data(), shape, workspace, nullptr);
          float got = 0;
          result.download(std::span<float>(&got, 1));
          const long double error = std::fabs(static_cast<long double>(got) - ref.sum);
          CHECK_MESSAGE(std::isfinite(got), "got ", got);
          CHECK_MESSAGE(error <= float_tolerance(n, shape, ref.sum_abs), "got ", got);
        }
  }
}

/// The sizes the walk of every rung adds to the awkward ones: 1000, 2^20 + 7, and either side of the
/// single-pass rungs' one-block grid at every block size (one trip of one block covers 4 ints × 4 or 8
/// loads × block threads; past it the grid has several blocks, a ticket and a last-block finish).
inline std::vector<std::size_t> every_rung_extra_sizes() {
  std::vector<std::size_t> sizes{1000, (std::size_t{1} << 20) + 7};
  for (const unsigned block : all_blocks)
    for (const std::size_t loads : {4u, 8u})
      for (const std::size_t n : {4 * loads * block - 1, 4 * loads * block, 4 * loads * block + 1}) sizes.push_back(n);
  return sizes;
}

/// The walk the test preset runs on every rung of a chapter's tables (the chapter's TEST_SUITE("gpu"),
/// as chapter 07's test_gpu.cu walks its variants()): random ints summed exactly in 64 bits, and
/// random floats within the rounding bound of a long double sum, at every awkward size (1, 31, 33, 1000,
/// block ± 1, 2^20 + 7, 2^24 + 3, either side of the one-block grid …), every block size from 64 to
/// 1024, starts up to 3 elements past a 16-byte boundary, outputs and partials poisoned before each
/// run, each int run done twice (a single-pass rung must leave its ticket ready). Fixed seeds: a
/// failure here reproduces, and names the rung, size, block and start.
inline void check_every_rung(std::span<const Variant> rungs) {
  REQUIRE_MESSAGE(!rungs.empty(), "no rung to check: the chapter's tables are empty");
  const std::vector<std::size_t> extra = every_rung_extra_sizes();
  check_ints(rungs, all_blocks, true, 2029, extra);
  check_floats(rungs, all_blocks, 2039, extra);
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
