// Grading probe of exercise 06.3 (the pipeline through a device ring): the student's ring_pipeline, written
// raw for the grader to compare with the answer's (common/probe.hpp).
//
// Verdict (--seed S --out F): the suite's sizes (1, 2, 31, 33, 1000, 4097, 100003, 2^20 and one drawn
// from the seed), rings from 1 element to 3n + 5 (and one drawn), 1, 2, 3 and 8 blocking streams, with the
// output and 1024 guard floats on either side of both halves of the ring poisoned (0xFF bytes: NaN) before
// each call; and 64 MiB through a quarter-size ring. Per call it writes
//  - the output: every element for n <= 4097; above that the first and last 64 elements, 256 elements at
//    places drawn from the seed, and a 64-bit fingerprint (FNV-1a over the bits, as two 32-bit halves) of
//    all n, which only the bit-exact output has;
//  - the input after the call (every element for n <= 4097, else its fingerprint): ring_pipeline must
//    leave it unchanged;
//  - the guard zones' bits: the 16 floats next to the ring on each side, and each zone's fingerprint.
//  And what ring_pipeline does with nothing to do (no element, an empty ring, no stream): the exception.
//  Tolerance: exact (the suite compares bit for bit).
//
// Timed (--time exercise|reference|none): the perf run's shape (`streams --variants ring_pipeline`: 256 MiB,
// a quarter-size ring, 8 blocking streams; reference: the chapter's pipeline, 32 chunks over 8 streams,
// over full-size device buffers) at a fixed kernel length, 2388 FMAs per element: the count the balanced
// calibration chose at this size on the H100 (results/h100/06_streams.json, extra.calibration), fixed so
// that every process computes the same numbers. Each repetition writes new inputs at 64 places chosen
// from (nonce, repetition) and the poison into the output at 32 other places, runs the variant (exercise:
// ring_pipeline; reference: PipelineRunner::run, the code exercise 06.2 fixes, timed from the instructor's
// build; none: neither), synchronises the device, and returns the output at those 96 places and at 32
// places chosen after the run.
// Before the warm-up, the exercise's side watches one ring_pipeline of the timed input for device memory
// allocated during the call (probe_record.cuh: more than 64 MiB at any moment; the task allows none), carried
// as `ran` in the done records for the grader to compare with the answer's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "common/probe_record.cuh"
#include "model.hpp"
#include "streams.cuh"

namespace {

using course::probe::Cases;
using course::probe::Options;
using course::probe::Random;
using course::probe::Tolerance;
using namespace streams;

constexpr int verdict_iterations = 7;                   // the suite's
constexpr std::size_t guard = 1024;                     // poisoned floats on either side of each ring half
constexpr std::size_t written_whole = 4097;             // outputs up to this size are written element by element
constexpr std::size_t timed_elements = (256u << 20) / sizeof(float);  // streams' default --size 256MiB
constexpr int timed_iterations = 2388;                  // see the file comment
constexpr int timed_streams = 8;                        // streams' default --sweep-streams
constexpr int timed_reference_chunks = 32;              // the ring_pipeline scenario's reference
constexpr int perturbed_places = 64, poisoned_places = 32, sampled_places = 32;

std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// FNV-1a over the values' bits: equal for two arrays only when (but for a 2^-64 chance) every bit is.
std::vector<long long> fingerprint(const float* values, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= bits_of(values[i]);
    h *= 0x100000001b3ULL;
  }
  return {static_cast<long long>(h >> 32), static_cast<long long>(h & 0xffffffffu)};
}

std::vector<long long> bits(const float* values, std::size_t n) {
  std::vector<long long> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = bits_of(values[i]);
  return out;
}

struct BlockingStreams {
  explicit BlockingStreams(int count) {
    for (int i = 0; i < count; ++i) owned.emplace_back(cudaStreamDefault);
    for (const course::Stream& s : owned) handles.push_back(s.get());
  }
  std::span<const cudaStream_t> first(int count) const { return {handles.data(), static_cast<std::size_t>(count)}; }
  std::vector<course::Stream> owned;
  std::vector<cudaStream_t> handles;
};

// The ring with `guard` floats on either side of each half, all poisoned.
struct GuardedRing {
  explicit GuardedRing(std::size_t capacity) : in(capacity + 2 * guard), out(capacity + 2 * guard), capacity(capacity) {}
  DeviceRing ring() { return {in.data() + guard, out.data() + guard, capacity}; }
  void poison() {
    in.fill_bytes(0xff);
    out.fill_bytes(0xff);
  }
  // The guard zones' bits (the 16 floats next to the ring) and fingerprints, in zone order.
  std::vector<long long> guard_facts() const {
    std::vector<long long> facts;
    std::vector<float> zone(guard);
    for (const course::DeviceBuffer<float>* buffer : {&in, &out})
      for (const std::size_t offset : {std::size_t{0}, guard + capacity}) {
        CUDA_CHECK(cudaMemcpy(zone.data(), buffer->data() + offset, guard * sizeof(float), cudaMemcpyDeviceToHost));
        const float* near = offset == 0 ? zone.data() + guard - 16 : zone.data();
        const std::vector<long long> b = bits(near, 16), f = fingerprint(zone.data(), guard);
        facts.insert(facts.end(), b.begin(), b.end());
        facts.insert(facts.end(), f.begin(), f.end());
      }
    return facts;
  }
  course::DeviceBuffer<float> in, out;
  std::size_t capacity;
};

// The output (and the input after the call) as the file comment says.
void add_output(Cases& cases, const std::string& name, const float* out, const float* in, std::size_t n, Random& random) {
  if (n <= written_whole) {
    cases.add(name + ": output", std::vector<float>(out, out + n), Tolerance::exact());
    cases.add(name + ": input after", std::vector<float>(in, in + n), Tolerance::exact());
    return;
  }
  std::vector<float> picked(out, out + 64);
  picked.insert(picked.end(), out + n - 64, out + n);
  for (int i = 0; i < 256; ++i) picked.push_back(out[random.below(n)]);
  cases.add(name + ": output at places", picked, Tolerance::exact());
  cases.add_exact(name + ": output fingerprint", fingerprint(out, n));
  cases.add_exact(name + ": input after fingerprint", fingerprint(in, n));
}

std::string exception_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument&) {
    return "invalid_argument";
  } catch (const std::exception&) {
    return "another exception";
  }
  return "no exception";
}

void verdict(const Options& options) {
  Cases cases("06.3", options.seed);
  Random random(options.seed);
  const BlockingStreams streams(8);

  std::vector<std::size_t> sizes = {1, 2, 31, 33, 1000, 4097, 100003, std::size_t{1} << 20};
  sizes.push_back(1 + random.below(std::size_t{3} << 20));
  for (const std::size_t n : sizes) {
    course::PinnedBuffer<float> host_in(n), host_out(n);
    for (std::size_t i = 0; i < n; ++i) host_in[i] = static_cast<float>(random.uniform(0.0, 1.0));
    std::vector<std::size_t> capacities = {1, 3, 32, std::max<std::size_t>(1, n / 4), n / 8 + 1, n, 3 * n + 5};
    capacities.push_back(1 + random.below(2 * n));
    for (const std::size_t capacity : capacities) {
      if (n / capacity > 4096) continue;  // millions of one-element chunks: minutes of API calls (the suite's rule)
      GuardedRing ring(capacity);
      for (const int stream_count : {1, 2, 3, 8}) {
        const std::string name = "n=" + std::to_string(n) + " ring=" + std::to_string(capacity) + " streams=" +
                                 std::to_string(stream_count);
        ring.poison();
        std::memset(host_out.data(), 0xff, host_out.bytes());
        ring_pipeline(host_in.data(), host_out.data(), n, verdict_iterations, ring.ring(), streams.first(stream_count));
        // No synchronisation: the results must be on the host when ring_pipeline returns.
        add_output(cases, name, host_out.data(), host_in.data(), n, random);
        cases.add_exact(name + ": guards", ring.guard_facts());
      }
    }
  }

  // 64 MiB through a quarter-size ring on 8 streams (the suite's second case).
  {
    const std::size_t n = (64u << 20) / sizeof(float);
    const int iterations = 50;
    course::PinnedBuffer<float> host_in(n), host_out(n);
    for (std::size_t i = 0; i < n; ++i) host_in[i] = static_cast<float>(random.uniform(0.0, 1.0));
    GuardedRing ring(ring_capacity(n));
    ring.poison();
    std::memset(host_out.data(), 0xff, host_out.bytes());
    ring_pipeline(host_in.data(), host_out.data(), n, iterations, ring.ring(), streams.first(8));
    const std::string name = "64MiB ring=" + std::to_string(ring_capacity(n)) + " streams=8 iterations=50";
    add_output(cases, name, host_out.data(), host_in.data(), n, random);
    cases.add_exact(name + ": guards", ring.guard_facts());
  }

  // Nothing to do: no element, an empty ring, no stream.
  {
    course::PinnedBuffer<float> host(4);
    GuardedRing ring(4);
    cases.add_exact("refusals: n=0, empty ring, no stream",
                    std::vector<std::string>{
                        exception_of([&] { ring_pipeline(host.data(), host.data(), 0, 1, ring.ring(), streams.first(1)); }),
                        exception_of([&] { ring_pipeline(host.data(), host.data(), 4, 1, DeviceRing{}, streams.first(1)); }),
                        exception_of([&] { ring_pipeline(host.data(), host.data(), 4, 1, ring.ring(), streams.first(0)); })});
  }
  cases.write(options.out);
}

void timed(const Options& options) {
  const std::size_t n = timed_elements;
  course::PinnedBuffer<float> host_in(n), host_out(n);
  Random random(options.seed);
  for (std::size_t i = 0; i < n; ++i) host_in[i] = static_cast<float>(random.uniform(0.0, 1.0));
  std::memset(host_out.data(), 0xff, host_out.bytes());
  // Everything every variant needs, whichever runs: the ring and its streams, the full-size buffers and the
  // runner of the reference.
  course::DeviceBuffer<float> ring_in(ring_capacity(n)), ring_out(ring_capacity(n)), dev_in(n), dev_out(n);
  const DeviceRing ring{ring_in.data(), ring_out.data(), ring_capacity(n)};
  const BlockingStreams streams(timed_streams);
  PipelineRunner runner(timed_streams);
  const PipelineShape reference{n, timed_reference_chunks, timed_streams, IssueOrder::depth_first, timed_iterations};
  const std::string& variant = options.time_variant;
  // Whether one ring_pipeline of the timed input allocates device memory (it must not: the full-size pipeline
  // it could hand its work to needs 2 x 256 MiB): the `ran` the grader compares with the answer's.
  std::vector<std::string> ran;
  if (variant == "exercise")
    ran = course::probe::watch_device_memory(
        [&] { ring_pipeline(host_in.data(), host_out.data(), n, timed_iterations, ring, streams.first(timed_streams)); },
        std::size_t{64} << 20);

  course::probe::run_timed(options, Tolerance::exact(), [&](std::uint64_t nonce, int rep) {
    const auto perturbed = course::probe::places(nonce, rep, 0x6331ULL, n, perturbed_places);
    Random values(course::probe::mix(nonce, static_cast<std::uint64_t>(rep) + 0x6332ULL));
    for (const std::uint64_t p : perturbed) host_in[p] = static_cast<float>(values.uniform(0.0, 1.0));
    const auto poisoned = course::probe::places(nonce, rep, 0x6333ULL, n, poisoned_places);
    for (const std::uint64_t p : poisoned) std::memset(&host_out[p], 0xff, sizeof(float));
    if (variant == "exercise") ring_pipeline(host_in.data(), host_out.data(), n, timed_iterations, ring, streams.first(timed_streams));
    if (variant == "reference")
      runner.run(reference, host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), 0, false);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto sampled = course::probe::places(nonce, rep, 0x6334ULL, n, sampled_places);
    std::vector<double> checks;
    for (const auto* list : {&perturbed, &poisoned, &sampled})
      for (const std::uint64_t p : *list) checks.push_back(host_out[p]);
    return checks;
  }, ran);
}

int body(int argc, char** argv) {
  const Options options = course::probe::parse(argc, argv, "06.3", true);
  course::require_device(options.device);  // NoDeviceError: exit 77
  if (options.timed()) timed(options);
  else verdict(options);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_06_3", body, argc, argv); }
