// What the GPU grading probes of the reduction chapters share (common/include/common/probe.hpp): rungs'
// sums written raw for the grader (ints exactly; floats within the rounding bound the chapter's tests
// allow), and the timed input, perturbed at nonce-chosen places before every repetition. It lives with the
// ladder the reduction chapters share, so that 04's and 05's probes include one copy.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/probe.hpp"
#include "common/probe_record.cuh"
#include "reduce_ladder/ladder.hpp"

namespace reduce::grading {

inline constexpr std::size_t big = std::size_t{1} << 24;
inline constexpr unsigned all_blocks[] = {64, 128, 256, 512, 1024};
/// Starts of the int runs: aligned, and 1, 2, 3 ints past a 16-byte boundary (the tests' offsets).
inline constexpr std::size_t int_offsets[] = {0, 1, 2, 3};
/// Starts of the float runs: aligned, and 3 floats past a 16-byte boundary.
inline constexpr std::size_t float_offsets[] = {0, 3};

/// The tests' awkward sizes at one block size (reduce_ladder/tests/ladder_checks.cuh): 1, 2, 31, 32, 33,
/// block ± 1, odd non-powers of two, and 2^24, 2^24 + 3 when `include_big`.
inline std::vector<std::size_t> awkward_sizes(unsigned block, bool include_big) {
  std::vector<std::size_t> sizes{1, 2, 3, 5, 31, 32, 33, block - 1u, block, block + 1u, 8u * block + 7u,
                                 1000003, 3u * 65536u + 17u};
  if (include_big) {
    sizes.push_back(big);
    sizes.push_back(big + 3);
  }
  return sizes;
}

/// `count` sizes from the grader's seed, spread over [1, limit] on a log scale.
inline std::vector<std::size_t> drawn_sizes(std::uint64_t seed, std::size_t count, std::size_t limit) {
  course::probe::Random random(course::probe::mix(seed, 0x51a35eedULL));
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < count; ++i) {
    const double fraction = random.uniform(0.0, 1.0);
    const auto size = static_cast<std::size_t>(std::pow(static_cast<double>(limit), fraction)) + random.below(7);
    sizes.push_back(std::clamp<std::size_t>(size, 1, limit));
  }
  return sizes;
}

/// The rounding bound the tests allow a float sum done by `shape` (ladder_checks.cuh's float_tolerance):
/// the longest chain of additions an element goes through, times the unit roundoff, times Σ|x|.
inline double float_bound(std::size_t n, LaunchShape shape, long double sum_abs) {
  const std::size_t threads = std::size_t{shape.grid} * shape.block;
  const double per_thread = threads > 0 ? std::ceil(static_cast<double>(n) / static_cast<double>(threads)) : 4096.0;
  const double chain = per_thread + 10 + std::ceil(shape.grid / 1024.0) + 10 + 16;
  return static_cast<double>(static_cast<long double>(chain) * 0x1.0p-24L * sum_abs + 1e-30L);
}

inline std::size_t scratch_for(std::span<const Variant> variants, std::span<const unsigned> blocks,
                               const std::vector<std::vector<std::size_t>>& sizes, int sm_count) {
  std::size_t scratch = 8;
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (const std::size_t n : sizes[b])
      for (const auto& v : variants) scratch = std::max(scratch, scratch_bytes_for(v, n, v.shape(n, blocks[b], sm_count)));
  return scratch;
}

/// The most elements a run reads: the largest size plus the largest start.
inline std::size_t elements_needed(const std::vector<std::vector<std::size_t>>& sizes) {
  std::size_t most = 1;
  for (const auto& list : sizes)
    for (const std::size_t n : list) most = std::max(most, n);
  return most + 3;
}

/// Every variant's exact int64 sum of random ints (magnitudes near 2^30, a positive mean: a 32-bit
/// accumulator overflows) for each block and its sizes, at each start of `offsets` (ints past a 16-byte
/// boundary), `repeats` times in a row (a single-pass rung must leave its ticket ready), result and
/// partials poisoned before each run. One case per variant, block and size: its sums, exact.
inline void add_int_sums(course::probe::Cases& cases, std::span<const Variant> variants,
                         std::span<const unsigned> blocks, const std::vector<std::vector<std::size_t>>& sizes,
                         std::uint64_t seed, int sm_count, std::span<const std::size_t> offsets = int_offsets,
                         int repeats = 2) {
  const std::vector<int> host = random_ints(elements_needed(sizes), -(1 << 30), (1 << 30) + (1 << 29), seed);
  course::DeviceBuffer<int> input(host.size());
  input.upload(host);
  course::DeviceBuffer<long long> result(1);
  Workspace workspace(scratch_for(variants, blocks, sizes, sm_count));
  for (const auto& v : variants)
    for (std::size_t b = 0; b < blocks.size(); ++b)
      for (const std::size_t n : sizes[b]) {
        const LaunchShape shape = v.shape(n, blocks[b], sm_count);
        std::vector<long long> sums;
        for (const std::size_t offset : offsets)
          for (int repeat = 0; repeat < repeats; ++repeat) {
            workspace.poison();
            result.fill_bytes(0xff);
            v.sum_int(input.data() + offset, n, result.data(), shape, workspace, nullptr);
            long long got = 0;
            result.download(std::span<long long>(&got, 1));
            sums.push_back(got);
          }
        std::string starts;
        for (const std::size_t offset : offsets) starts += (starts.empty() ? " +" : ", +") + std::to_string(offset);
        cases.add_exact(std::string("int64 sums: ") + v.name + ", block " + std::to_string(blocks[b]) + ", n = " +
                            std::to_string(n) + ", starts" + starts + " ints, " + std::to_string(repeats) +
                            " run(s) each",
                        sums);
      }
}

/// Every variant's float sum of random floats in [-1, 1.25) for each block and its sizes, at starts 0 and
/// 3 floats past a 16-byte boundary, result and partials poisoned first. One case per variant, block and
/// size, within twice the tests' rounding bound (the answer's sum and a correct one are each within it of
/// the exact sum). Variants without a float launcher (the library row) are left out.
inline void add_float_sums(course::probe::Cases& cases, std::span<const Variant> variants,
                           std::span<const unsigned> blocks, const std::vector<std::vector<std::size_t>>& sizes,
                           std::uint64_t seed, int sm_count) {
  const std::vector<float> host = random_floats(elements_needed(sizes), -1.0f, 1.25f, seed);
  course::DeviceBuffer<float> input(host.size());
  input.upload(host);
  course::DeviceBuffer<float> result(1);
  Workspace workspace(scratch_for(variants, blocks, sizes, sm_count));
  std::map<std::pair<std::size_t, std::size_t>, long double> sum_abs;
  for (const auto& v : variants) {
    if (!v.sum_float) continue;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      for (const std::size_t n : sizes[b]) {
        const LaunchShape shape = v.shape(n, blocks[b], sm_count);
        std::vector<double> sums;
        double bound = 0;
        for (const std::size_t offset : float_offsets) {
          auto [where, fresh] = sum_abs.try_emplace({offset, n}, 0.0L);
          if (fresh) where->second = reference_sum(std::span<const float>(host.data() + offset, n)).sum_abs;
          bound = std::max(bound, float_bound(n, shape, where->second));
          workspace.poison();
          result.fill_bytes(0xff);
          v.sum_float(input.data() + offset, n, result.data(), shape, workspace, nullptr);
          float got = 0;
          result.download(std::span<float>(&got, 1));
          sums.push_back(got);
        }
        cases.add(std::string("float sums: ") + v.name + ", block " + std::to_string(blocks[b]) + ", n = " +
                      std::to_string(n) + ", starts +0, +3 floats",
                  sums, course::probe::Tolerance{0.0, 2.0 * bound});
      }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Timed mode: the perf program's input (ints in [-1000, 3000), a positive mean: the sum of 2^24 or 2^28
// overflows 32 bits, and stays below 2^53, so a double carries it exactly), made on the device from the
// seed; before every repetition the previous repetition's places are restored and up to 64 new ones set.
// ---------------------------------------------------------------------------------------------------------

inline constexpr int timed_lo = -1000;
inline constexpr int timed_span = 4000;
inline constexpr int perturbed_places = 64;

/// Element i of the timed input: a pure function of (seed, i), so the host restores any place without a
/// copy of the array.
__host__ __device__ inline int timed_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return timed_lo + static_cast<int>(z % timed_span);
}

__global__ void fill_timed_input(int* input, std::size_t n, std::uint64_t seed) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += threads)
    input[i] = timed_value(seed, i);
}

/// One repetition's change to the input, passed by value (no copy): restore, then set.
struct Perturbation {
  unsigned restore_place[perturbed_places];
  int restore_value[perturbed_places];
  unsigned set_place[perturbed_places];
  int set_value[perturbed_places];
  int restores;
  int sets;
};

__global__ void perturb_input(int* input, Perturbation change) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < change.restores) input[change.restore_place[i]] = change.restore_value[i];
  __syncthreads();  // a place restored and set again ends with the new value
  if (i < change.sets) input[change.set_place[i]] = change.set_value[i];
}

/// The timed input: n ints from the seed, on the device; perturb() makes repetition `rep` of `nonce` see
/// the seed's array with only that repetition's places changed, whatever ran before (so the same nonce
/// gives the same inputs in the exercise's and the reference's process, warm-ups or not).
class TimedInput {
 public:
  TimedInput(std::size_t n, std::uint64_t seed) : input_(n), n_(n), seed_(seed) {
    fill_timed_input<<<1024, 256>>>(input_.data(), n, seed);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  const int* data() const { return input_.data(); }
  std::size_t size() const { return n_; }

  /// Enqueues (default stream) the change for (nonce, rep): one small kernel, cheap next to a sum.
  void perturb(std::uint64_t nonce, int rep) {
    Perturbation change{};
    for (const unsigned place : previous_) {
      change.restore_place[change.restores] = place;
      change.restore_value[change.restores] = timed_value(seed_, place);
      ++change.restores;
    }
    previous_.clear();
    const auto places = course::probe::places(nonce, rep, 0x9e7a11ceULL, n_, perturbed_places);
    course::probe::Random values(course::probe::mix(course::probe::mix(nonce, static_cast<std::uint64_t>(rep)),
                                                    0x7a1be5ULL));
    for (const std::uint64_t place : places) {
      const int value = timed_lo + static_cast<int>(values.below(timed_span));
      // One writer per place: a place drawn twice keeps its first value.
      if (std::find(previous_.begin(), previous_.end(), static_cast<unsigned>(place)) != previous_.end()) continue;
      previous_.push_back(static_cast<unsigned>(place));
      change.set_place[change.sets] = static_cast<unsigned>(place);
      change.set_value[change.sets] = value;
      ++change.sets;
    }
    perturb_input<<<1, perturbed_places>>>(input_.data(), change);
    CUDA_CHECK_LAUNCH();
  }

 private:
  course::DeviceBuffer<int> input_;
  std::size_t n_;
  std::uint64_t seed_;
  std::vector<unsigned> previous_;  // the places the last perturb() set (n < 2^32 here)
};

/// What the exercise rung's sum of `input` records (common/probe_record.cuh: a stream capture, not run), with
/// the reference's kernels and those of every other rung of `tables` named as theirs: the `ran` of the done
/// records, which the grader compares with the instructor's answer's. A rung that cannot be recorded (one that
/// finishes on the host) names nothing.
inline std::vector<std::string> recorded_rung(const Variant& exercise, const Variant& reference,
                                              std::span<const std::span<const Variant>> tables, const int* input,
                                              std::size_t n, unsigned block, int sm_count) {
  std::size_t scratch = scratch_bytes_for(exercise, n, exercise.shape(n, block, sm_count));
  for (const auto table : tables)
    for (const auto& v : table) scratch = std::max(scratch, scratch_bytes_for(v, n, v.shape(n, block, sm_count)));
  Workspace workspace(scratch);
  course::DeviceBuffer<long long> result(1);
  course::Stream stream;
  const auto call = [&](const Variant& v) {
    return [&v, &workspace, &result, &stream, input, n, block, sm_count] {
      v.sum_int(input, n, result.data(), v.shape(n, block, sm_count), workspace, stream.get());
    };
  };
  std::vector<course::probe::KnownKernels> known{
      {std::string("a kernel of the reference (") + reference.name + ")", course::probe::kernels_enqueued(stream.get(), call(reference))},
      {"a kernel of another rung of the ladder", {}}};
  for (const auto table : tables)
    for (const auto& v : table)
      if (&v != &exercise && &v != &reference) known[1].kernels.merge(course::probe::kernels_enqueued(stream.get(), call(v)));
  return course::probe::record_call(stream.get(), call(exercise), known);
}

/// The timed mode of a reduction optimize exercise (03.3, 04.3, 05.3): the exercise's rung or the reference
/// sums the timed input (n ints, `block` threads per block) once per repetition, after perturb(); `none`
/// perturbs and reads back only. The check is the sum itself, exact (every perturbed place lands in it).
/// `tables`: every rung the exercise's code could hand its work to (recorded_rung).
inline void run_timed_sum(const course::probe::Options& options, const Variant& exercise, const Variant& reference,
                          std::span<const std::span<const Variant>> tables, std::size_t n, unsigned block,
                          int sm_count) {
  const Variant* chosen = options.time_variant == "exercise"    ? &exercise
                          : options.time_variant == "reference" ? &reference
                                                                : nullptr;
  TimedInput input(n, options.seed);
  const std::vector<std::string> ran =
      chosen == &exercise ? recorded_rung(exercise, reference, tables, input.data(), n, block, sm_count)
                          : std::vector<std::string>{};
  course::DeviceBuffer<long long> result(1);
  const LaunchShape exercise_shape = exercise.shape(n, block, sm_count);
  const LaunchShape reference_shape = reference.shape(n, block, sm_count);
  Workspace workspace(std::max(scratch_bytes_for(exercise, n, exercise_shape),
                               scratch_bytes_for(reference, n, reference_shape)));
  const LaunchShape shape = chosen == &exercise ? exercise_shape : reference_shape;
  result.fill_bytes(0xff);
  course::probe::run_timed(
      options, course::probe::Tolerance::exact(),
      [&](std::uint64_t nonce, int rep) {
        input.perturb(nonce, rep);
        if (chosen != nullptr) chosen->sum_int(input.data(), n, result.data(), shape, workspace, nullptr);
        CUDA_CHECK(cudaStreamSynchronize(nullptr));
        long long sum = 0;
        result.download(std::span<long long>(&sum, 1));
        return std::vector<double>{static_cast<double>(sum)};  // |sum| < 2^53: exact
      },
      ran);
}

}  // namespace reduce::grading
