// Grading probe of exercise 05.2 (issue 30; common/include/common/probe.hpp): the student's warp_tail
// (src/warp_tail.cuh), linked exactly as the exercise's tests link it. The grader also runs this probe under
// `compute-sanitizer --tool racecheck` (exercises.json "sanitizer"), with COURSE_SANITIZER set: then every
// part runs a handful of blocks (racecheck slows with every hazard it records), each path still taken.
//
// What it writes, raw:
//  - warp_tail's sums of 2,048 sets of 64 values (4 under the sanitizer), one warp per set, as the tests
//    run it: 64-bit ints past 32 bits, exact; floats, one case per set within twice the tests' bound
//    (8 · 2^-24 · Σ|x| each way);
//  - the same 64-bit sums with the warp split in two groups of lanes (masks chosen and drawn from the seed,
//    each group calling warp_tail from its own place in the code): under independent thread scheduling the
//    two groups then run apart, one past the other until a __syncwarp (or a shuffle) makes it wait, which is
//    a schedule the exercise's code must survive. A fold that relies on lock step (the book's volatile
//    code, or one __syncwarp per step) reads slots the other group has not yet written, or has already
//    overwritten, and ends with another sum; a correct one waits at every step;
//  - the exact int64 sums of the three rungs that finish with warp_tail (unroll8_last_warp, unroll8_complete,
//    unroll8_templated) on the tests' small awkward sizes and every block of 64 … 1024 threads.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "reduce_ladder/probe_cases.cuh"
#include "reduce_unroll.hpp"
#include "warp_tail.cuh"

namespace {

using namespace reduce;

bool under_sanitizer() {
  const char* tool = std::getenv("COURSE_SANITIZER");
  return tool != nullptr && *tool != '\0';
}

// One warp per block folds the block's 64 values with warp_tail, as the last-warp rungs do.
template <class Acc>
__global__ void warp_tail_kernel(const Acc* values, Acc* sums) {
  __shared__ Acc s[64];
  const unsigned lane = threadIdx.x;
  s[lane] = values[blockIdx.x * 64 + lane];
  s[lane + 32] = values[blockIdx.x * 64 + lane + 32];
  __syncwarp();
  const Acc sum = warp_tail(s, lane);
  if (lane == 0) sums[blockIdx.x] = sum;
}

// The lanes in `first_group` call warp_tail from one place in the code, the others from another. Each
// branch also leaves a mark in `entered` (after the call in one branch, before it in the other), so the two
// branches neither begin nor end with the same instruction: no optimiser can hoist or sink the two copies of
// warp_tail into one converged call. The host ignores the marks.
__global__ void warp_tail_split_kernel(const long long* values, long long* sums, unsigned* entered,
                                       unsigned first_group) {
  __shared__ long long s[64];
  const unsigned lane = threadIdx.x;
  s[lane] = values[blockIdx.x * 64 + lane];
  s[lane + 32] = values[blockIdx.x * 64 + lane + 32];
  __syncwarp();
  long long sum = 0;
  if ((first_group >> lane) & 1u) {
    sum = warp_tail(s, lane);
    entered[blockIdx.x * 32 + lane] = 1;
  } else {
    entered[blockIdx.x * 32 + lane] = 2;
    sum = warp_tail(s, lane);
  }
  if (lane == 0) sums[blockIdx.x] = sum;
}

template <class Acc>
std::vector<Acc> run_sets(const std::vector<Acc>& values, bool split, unsigned first_group = 0) {
  const std::size_t sets = values.size() / 64;
  course::DeviceBuffer<Acc> input(values.size());
  course::DeviceBuffer<Acc> sums(sets);
  input.upload(values);
  sums.fill_bytes(0xff);
  if constexpr (std::is_same_v<Acc, long long>) {
    if (split) {
      course::DeviceBuffer<unsigned> entered(32 * sets);
      warp_tail_split_kernel<<<static_cast<unsigned>(sets), 32>>>(input.data(), sums.data(), entered.data(),
                                                                    first_group);
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaDeviceSynchronize());  // before `entered` is freed
    } else {
      warp_tail_kernel<Acc><<<static_cast<unsigned>(sets), 32>>>(input.data(), sums.data());
      CUDA_CHECK_LAUNCH();
    }
  } else {
    warp_tail_kernel<Acc><<<static_cast<unsigned>(sets), 32>>>(input.data(), sums.data());
    CUDA_CHECK_LAUNCH();
  }
  std::vector<Acc> got(sets);
  sums.download(got);
  return got;
}

// 64-bit values: ints near ±2^30, every third one times 4096 (past 32 bits), as the tests draw them.
std::vector<long long> wide_values(std::size_t sets, std::uint64_t seed) {
  const std::vector<int> draws = random_ints(64 * sets, -(1 << 30), 1 << 30, seed);
  std::vector<long long> values(draws.begin(), draws.end());
  for (std::size_t i = 0; i < values.size(); i += 3) values[i] *= 4096;
  return values;
}

void add_tail_sums(course::probe::Cases& cases, std::uint64_t seed, std::size_t sets) {
  cases.add_exact("warp_tail, converged warp: int64 sums of " + std::to_string(sets) + " sets of 64",
                  run_sets(wide_values(sets, course::probe::mix(seed, 1)), false));
  const std::vector<float> floats = random_floats(64 * sets, -1.0f, 1.25f, course::probe::mix(seed, 2));
  const std::vector<float> got = run_sets(floats, false);
  for (std::size_t set = 0; set < sets; ++set) {
    const long double sum_abs = reference_sum(std::span<const float>(floats.data() + set * 64, 64)).sum_abs;
    const double bound = static_cast<double>(2 * 8 * 0x1.0p-24L * sum_abs);
    cases.add("warp_tail, converged warp: float sum of set " + std::to_string(set), std::vector<float>{got[set]},
              course::probe::Tolerance{0.0, bound});
  }
}

void add_split_sums(course::probe::Cases& cases, std::uint64_t seed, std::size_t sets) {
  std::vector<unsigned> groups{0x0000ffffu, 0x55555555u, 0x33333333u, 0x0f0f0f0fu, 0x00ff00ffu, 0x00000001u,
                               0x80000000u};
  course::probe::Random random(course::probe::mix(seed, 3));
  for (int drawn = 0; drawn < 4; ++drawn) groups.push_back(static_cast<unsigned>(random.next() >> 32) | 1u);
  const std::size_t count = groups.size();
  for (std::size_t g = 0; g < count; ++g) groups.push_back(~groups[g]);  // each group first, and second
  const std::vector<long long> values = wide_values(sets, course::probe::mix(seed, 4));
  for (const unsigned group : groups) {
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08x", group);
    cases.add_exact("warp_tail, warp split into lanes " + std::string(mask) + " and the rest: int64 sums of " +
                        std::to_string(sets) + " sets of 64",
                    run_sets(values, true, group));
  }
}

void add_rung_sums(course::probe::Cases& cases, std::uint64_t seed, int sm_count, bool small) {
  std::vector<Variant> rungs;
  for (const auto& v : unroll_variants())
    for (const char* name : {"unroll8_last_warp", "unroll8_complete", "unroll8_templated"})
      if (std::strcmp(v.name, name) == 0) rungs.push_back(v);
  if (rungs.size() != 3) throw std::logic_error("probe_05_2: a rung that calls warp_tail is missing");
  std::vector<std::vector<std::size_t>> sizes;
  for (const unsigned block : grading::all_blocks) {
    sizes.push_back({1, 33, std::size_t{8} * block + 7});  // a partial block, then a full one and a partial
    if (!small) sizes.back().push_back(70001);
  }
  const std::size_t once[] = {0};
  grading::add_int_sums(cases, rungs, grading::all_blocks, sizes, seed, sm_count, once, 1);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "05.2", true);
  if (options.timed()) throw course::UsageError("exercise 05.2 is not timed: use --out FILE");
  const course::DeviceInfo device = course::require_device(options.device);
  const bool small = under_sanitizer();
  course::probe::Cases cases("05.2", options.seed);
  add_tail_sums(cases, options.seed, small ? 4 : 2048);
  add_split_sums(cases, options.seed, small ? 1 : 64);
  add_rung_sums(cases, course::probe::mix(options.seed, 5), device.sm_count, small);
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_05_2", body, argc, argv); }
