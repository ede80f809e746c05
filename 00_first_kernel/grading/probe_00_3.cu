// Grading probe of exercise 00.3 (common/probe.hpp): launch_transpose_shared of the exercise's own
// src/transpose_shared.cu.
//
// Verdict (--out): the same cases as 00.2's probe (transpose_cases.cuh), through the exercise's launcher.
// The grader also runs it under compute-sanitizer --tool racecheck (COURSE_SANITIZER=racecheck), on the
// small matrices then (transpose_cases.cuh), so that a racing kernel is still reported in seconds.
// The untouched handout launches 00.2's transpose_naive, which is right: its verdict agrees, and only its
// time is graded down.
//
// Timed (--time): the perf size of exercises.json (first_kernel --width 8192 --height 8192), the tests'
// grid of 32 × 32 blocks. Each repetition first overwrites 64 elements of `in`, at places chosen from
// (nonce, repetition), with values chosen from the same (one small copy and a 64-thread kernel), then runs
// the variant (`exercise`: the exercise's transpose; `reference`: copy_2d, exercises.json's
// reference_variant, the same bytes with every access coalesced; `none`: nothing), waits for it, and reads
// back 128 elements of `in` as the variant must have placed them in `out`: the 64 just written and 64
// more at places from (nonce, repetition, another salt). A transpose finds in(r, c) at out[c·height + r],
// a copy at out[r·width + c]: the same values for both variants, exactly. A result cached from an earlier
// call misses the new values; work left out shows at the random places.
// Before the warm-up, the exercise's side records what one transpose of the timed matrix enqueues (copy_2d's
// and the other rungs' kernels named as theirs, and whether its own kernels use shared memory), carried as
// `ran` in the done records for the grader to compare with the answer's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "common/probe_record.cuh"
#include "transpose_cases.cuh"

namespace {

using namespace first_kernel;
using grading::covering_matrix_shape;

constexpr unsigned perf_width = 8192, perf_height = 8192;  // exercises.json "perf": --width 8192 --height 8192
constexpr int touched = 64;                                // places perturbed per repetition
constexpr int sampled = 2 * touched;                       // places read back per repetition

struct Patch {
  unsigned long long place[touched];   ///< elements of `in` to overwrite (row · width + col)
  float value[touched];
  unsigned long long sample[sampled];  ///< elements of `in` whose value is read back from `out`
};

// Splitmix-style hash to floats in [-1, 1): the starting matrix, the same in every build for one seed.
__global__ void fill_from_seed(float* data, std::size_t count, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    unsigned long long z = seed + 0x9e3779b97f4a7c15ULL * (i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    data[i] = static_cast<float>(static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
}

__global__ void scatter(const Patch* patch, float* in) {
  const int i = threadIdx.x;
  if (i < touched) in[patch->place[i]] = patch->value[i];
}

// Reads in(r, c) where the variant put it: out[c · height + r] after a transpose, out[r · width + c] after a copy.
__global__ void gather(const Patch* patch, const float* out, unsigned width, unsigned height, bool transposed,
                       float* samples) {
  const int i = threadIdx.x;
  if (i >= sampled) return;
  const unsigned long long place = patch->sample[i];
  const unsigned long long row = place / width, col = place % width;
  samples[i] = out[transposed ? col * height + row : place];
}

// What one launch_transpose_shared of the timed matrix enqueues (common/probe_record.cuh: a stream capture,
// not run), with copy_2d's kernel (the reference) and every other rung's named as theirs, and whether a kernel
// of its own uses shared memory, as the task prescribes: the `ran` the grader compares with the answer's.
std::vector<std::string> recorded_transpose(const Problem& p, const DeviceArrays& arrays, LaunchShape shape) {
  course::Stream stream;
  std::vector<course::probe::KnownKernels> known{{"a kernel of the reference (copy_2d)", {}},
                                                 {"a kernel of another rung of the chapter", {}}};
  for (const Variant& v : variants()) {
    if (std::string(v.name) == "transpose_shared") continue;
    auto kernels = course::probe::kernels_enqueued(stream.get(), [&] { v.launch(p, arrays, v.shape(p), stream.get()); });
    known[std::string(v.name) == "copy_2d" ? 0 : 1].kernels.merge(kernels);
  }
  return course::probe::record_call(stream.get(), [&] { launch_transpose_shared(p, arrays, shape, stream.get()); },
                                    known, true);
}

void run_timed(const course::probe::Options& options) {
  const std::size_t count = std::size_t{perf_width} * perf_height;
  course::DeviceBuffer<float> in(count), out(count), samples(sampled);
  course::DeviceBuffer<Patch> patch(1);
  fill_from_seed<<<1024, 256>>>(in.data(), count, course::probe::mix(options.seed, 0x0003));
  CUDA_CHECK_LAUNCH();
  out.fill_bytes(0xff);
  CUDA_CHECK(cudaDeviceSynchronize());

  Problem p;
  p.width = perf_width;
  p.height = perf_height;
  const DeviceArrays arrays{nullptr, nullptr, in.data(), out.data()};
  const LaunchShape shape = covering_matrix_shape(perf_width, perf_height);
  const std::string& variant = options.time_variant;
  const bool transposed = variant != "reference";  // `none` reads back as the exercise would
  Patch host{};
  std::vector<float> back(sampled);
  const std::vector<std::string> ran = variant == "exercise" ? recorded_transpose(p, arrays, shape)
                                                             : std::vector<std::string>{};

  const auto repetition = [&](std::uint64_t nonce, int rep) -> std::vector<double> {
    const auto places = course::probe::places(nonce, rep, 0x7031, count, touched);
    course::probe::Random values(course::probe::mix(course::probe::mix(nonce, static_cast<std::uint64_t>(rep)), 0x7032));
    for (int i = 0; i < touched; ++i) {
      host.place[i] = places[static_cast<std::size_t>(i)];
      host.value[i] = static_cast<float>(values.uniform(-1.0, 1.0));
    }
    // A place drawn twice gets one value (its last), so that the 64 threads' writes agree.
    for (int i = 0; i < touched; ++i)
      for (int j = i + 1; j < touched; ++j)
        if (host.place[j] == host.place[i]) host.value[i] = host.value[j];
    const auto random_places = course::probe::places(nonce, rep, 0x7033, count, touched);
    for (int i = 0; i < touched; ++i) {
      host.sample[i] = host.place[i];
      host.sample[touched + i] = random_places[static_cast<std::size_t>(i)];
    }
    CUDA_CHECK(cudaMemcpy(patch.data(), &host, sizeof host, cudaMemcpyHostToDevice));
    scatter<<<1, touched>>>(patch.data(), in.data());
    CUDA_CHECK_LAUNCH();
    if (variant == "exercise") launch_transpose_shared(p, arrays, shape, nullptr);
    else if (variant == "reference") launch_copy_2d(p, arrays, shape, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    gather<<<1, sampled>>>(patch.data(), out.data(), perf_width, perf_height, transposed, samples.data());
    CUDA_CHECK_LAUNCH();
    samples.download(back);  // synchronous: after the gather
    return std::vector<double>(back.begin(), back.end());
  };
  course::probe::run_timed(options, course::probe::Tolerance::exact(), repetition, ran);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "00.3", true);
  course::require_device(options.device);  // NoDeviceError (exit 77) without a GPU
  if (options.timed()) {
    run_timed(options);
    return 0;
  }
  course::probe::Cases cases("00.3", options.seed);
  grading::add_transpose_cases(cases, launch_transpose_shared, options.seed);
  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_00_3", body, argc, argv); }
