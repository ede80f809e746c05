// Grading probe of exercise 03.3 (common/probe.hpp): the neighbored_less_x2 rung (src/neighbored_less_x2.cu,
// the student's file, in the chapter's library as the tests and reduce_divergence_exercise link it).
//
// Verdict (`--seed S --out F`): the rung's sums, as the tests run it: ints drawn from the seed (magnitudes
// near 2^30, so a 32-bit accumulator overflows at once) at the awkward sizes (1, 2, 31, 33, block ± 1, …,
// 2^24 + 3) and sizes drawn from the seed, blocks of 64 … 1024 threads, starts 0 … 3 elements past a
// 16-byte boundary, twice in a row, partials and result poisoned before each run: the exact int64 sums,
// raw. Floats drawn from the seed at starts 0 and 3: the float sums, raw, each with the tolerance twice the
// tests' rounding bound (float_tolerance in ladder_checks.cuh: the student's sum and the instructor's may
// each be that far from the exact sum, in their own order of additions). It judges nothing.
//
// Timed (`--time exercise|reference|none`): reduce_divergence_exercise's perf case, n = 2^24 ints, block
// 512, through the reduction chapters' shared timed mode (reduce_ladder/probe_cases.cuh, run_timed_sum): each
// repetition restores the previous repetition's places and sets 64 new ones chosen from the grader's nonce
// and the repetition, runs the sum (exercise: neighbored_less_x2; reference: neighbored_less,
// exercises.json's reference_variant; none: no sum), waits, and returns the sum, exact: the input changes
// every repetition, so no earlier sum passes. Before the warm-up, the exercise's side records what one sum
// enqueues (the reference's kernels and neighbored's named as theirs), carried as `ran` in the done records
// for the grader to compare with the answer's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "reduce_ladder/probe_cases.cuh"
#include "reduce_divergence.hpp"

namespace {

using course::probe::mix;
using course::probe::Random;

constexpr std::size_t big = std::size_t{1} << 24;
constexpr unsigned blocks[] = {64, 128, 256, 512, 1024};
constexpr std::size_t int_offsets[] = {0, 1, 2, 3};
constexpr std::size_t float_offsets[] = {0, 3};
constexpr std::size_t capacity = big + 3 + 3;

const reduce::Variant& rung(std::span<const reduce::Variant> table, const std::string& name) {
  for (const auto& v : table)
    if (name == v.name) return v;
  throw std::logic_error("probe_03_3: no rung named " + name);
}

// ladder_checks.cuh's awkward sizes (with 2^24 and 2^24 + 3) and `extra`.
std::vector<std::size_t> sizes_for(unsigned block, const std::vector<std::size_t>& extra) {
  std::vector<std::size_t> sizes{1, 2, 3, 5, 31, 32, 33, block - 1u, block, block + 1u, 2u * block - 1u,
                                 2u * block + 1u, 8u * block + 7u, 1000003, 3u * 65536u + 17u, big, big + 3};
  sizes.insert(sizes.end(), extra.begin(), extra.end());
  return sizes;
}

// ladder_checks.cuh's float_tolerance: the longest chain of additions an element goes through, times the
// unit roundoff, times the sum of magnitudes.
double float_tolerance(std::size_t n, reduce::LaunchShape shape, long double sum_abs) {
  const std::size_t threads = std::size_t{shape.grid} * shape.block;
  const double per_thread = threads > 0 ? std::ceil(static_cast<double>(n) / static_cast<double>(threads)) : 4096.0;
  const double chain = per_thread + 10 + std::ceil(shape.grid / 1024.0) + 10 + 16;
  return static_cast<double>(static_cast<long double>(chain) * 0x1.0p-24L * sum_abs + 1e-30L);
}

void verdict(const course::probe::Options& options, int sm_count) {
  const reduce::Variant& x2 = rung(reduce::divergence_exercise_variants(), "neighbored_less_x2");
  course::probe::Cases cases("03.3", options.seed);
  Random random(mix(options.seed, 0x0303));
  std::vector<std::size_t> drawn;  // log scale, 1 … 2^24
  for (int k = 0; k < 8; ++k)
    drawn.push_back(std::clamp<std::size_t>(
        static_cast<std::size_t>(std::pow(static_cast<double>(big), random.uniform(0.0, 1.0))) + random.below(7), 1,
        big));

  std::vector<int> ints(capacity);
  for (auto& x : ints) x = static_cast<int>(static_cast<long long>(random.below(5u << 29)) - (1LL << 30));
  std::vector<float> floats(capacity);
  for (auto& x : floats) x = static_cast<float>(random.uniform(-1.0, 1.25));
  course::DeviceBuffer<int> int_input(capacity);
  int_input.upload(ints);
  course::DeviceBuffer<float> float_input(capacity);
  float_input.upload(floats);
  course::DeviceBuffer<long long> int_result(1);
  course::DeviceBuffer<float> float_result(1);

  std::size_t scratch = 8;
  for (const unsigned block : blocks)
    for (const std::size_t n : sizes_for(block, drawn))
      scratch = std::max(scratch, reduce::scratch_bytes_for(x2, n, x2.shape(n, block, sm_count)));
  reduce::Workspace workspace(scratch);

  for (const unsigned block : blocks) {
    std::vector<long long> sums;
    std::string sizes_text;
    for (const std::size_t n : sizes_for(block, drawn)) {
      if (!sizes_text.empty()) sizes_text += ",";
      sizes_text += std::to_string(n);
      const reduce::LaunchShape shape = x2.shape(n, block, sm_count);
      for (const std::size_t offset : int_offsets)
        for (int repeat = 0; repeat < 2; ++repeat) {
          workspace.poison();
          int_result.fill_bytes(0xff);
          x2.sum_int(int_input.data() + offset, n, int_result.data(), shape, workspace, nullptr);
          CUDA_CHECK(cudaDeviceSynchronize());
          long long got = 0;
          int_result.download(std::span<long long>(&got, 1));
          sums.push_back(got);
        }
    }
    cases.add_exact("int sums block=" + std::to_string(block) + " n=" + sizes_text +
                        " (each at starts 0,1,2,3, twice)",
                    sums);
  }

  std::map<std::pair<std::size_t, std::size_t>, long double> sums_of_magnitudes;  // each (n, start) once
  for (const unsigned block : blocks)
    for (const std::size_t n : sizes_for(block, drawn))
      for (const std::size_t offset : float_offsets) {
        const reduce::LaunchShape shape = x2.shape(n, block, sm_count);
        auto [known, added] = sums_of_magnitudes.try_emplace({n, offset}, 0.0L);
        if (added)
          for (std::size_t i = 0; i < n; ++i) known->second += std::fabs(static_cast<long double>(floats[offset + i]));
        const long double sum_abs = known->second;
        workspace.poison();
        float_result.fill_bytes(0xff);
        x2.sum_float(float_input.data() + offset, n, float_result.data(), shape, workspace, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        float got = 0;
        float_result.download(std::span<float>(&got, 1));
        cases.add("float sum block=" + std::to_string(block) + " n=" + std::to_string(n) + " start " +
                      std::to_string(offset),
                  std::vector<float>{got}, {0.0, 2 * float_tolerance(n, shape, sum_abs)});
      }
  cases.write(options.out);
}

void timed(const course::probe::Options& options, int sm_count) {
  // exercises.json perf: reduce_divergence_exercise --n 2^24 --block 512.
  const std::span<const reduce::Variant> tables[] = {reduce::divergence_variants(),
                                                     reduce::divergence_exercise_variants()};
  reduce::grading::run_timed_sum(options, rung(reduce::divergence_exercise_variants(), "neighbored_less_x2"),
                                 rung(reduce::divergence_variants(), "neighbored_less"), tables, big, 512, sm_count);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "03.3", true);
  const int sm_count = course::require_device(options.device).sm_count;
  if (options.timed())
    timed(options, sm_count);
  else
    verdict(options, sm_count);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_03_3", body, argc, argv); }
