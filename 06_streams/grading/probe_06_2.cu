// Grading probe of exercise 06.2 (the pipeline that never overlaps): the student's enqueue_chunk_op, run
// through the chapter's PipelineRunner, written raw for the grader to compare with the answer's
// (common/probe.hpp).
//
// The bug leaves every output right; what it breaks is the pipeline's dependency structure: a copy on the
// legacy default stream waits for all the work issued before it in every blocking stream, and all later
// work waits for it, so the chunks run one after another. The suite sees that by timing (overlap factor,
// wall time against the unchunked run). A time is not a raw output the grader can compare, so this probe
// makes the dependency structure itself visible, deterministically:
//
//  - "gate": before the run, a gate kernel (one block) goes into one of the runner's blocking streams. It
//    holds that stream, and only that stream, while it watches the pinned output (mapped into the device)
//    until every chunk of the *other* streams has landed; then it copies the whole output, as it is at
//    that moment, into a device snapshot and ends, which lets the gated stream's chunks run. The snapshot
//    is written raw: the other streams' chunks hold their results, the gated stream's chunks still hold
//    the poison (NaN). A pipeline whose chunks wait for work in another blocking stream (a copy or a kernel
//    on the legacy default stream, cudaMemcpy) or for the host (a synchronisation after an operation)
//    cannot land the other chunks while the gate holds its stream: the gate gives up after `gate_timeout`
//    and its snapshot is poison where the answer's has results. A pipeline that ignores its streams (all
//    chunks on one stream of its own) lands the gated chunks early: results where the answer has poison.
//    Three gates: one chunk per stream with the last stream gated (nothing ungated is issued after a gated
//    command, so even copy engines fed in issue order cannot block it), and two chunks per stream with a
//    middle stream gated, depth-first and staggered (chunks issued after a gated one must not wait for it:
//    this catches a host that waits for each operation).
//  - "pipeline": the outputs, poisoned first, for awkward sizes (1, 31, 33, 4097, 100003 and one drawn from
//    the seed) and chunk and stream counts drawn from the seed, in the depth-first and staggered orders,
//    from pinned memory; one shape from pageable memory. Every element up to n = 4097; above that the first
//    and last 64, 256 at places drawn from the seed and a 64-bit fingerprint (FNV-1a over the bits, as two
//    32-bit halves) of all n, which only the bit-exact output has.
// Tolerance: exact (the suite compares bit for bit).
//
// What is not probed: how much the chunks overlap in time (the suite's "wall time under 0.75x the
// unchunked run" on 64 MiB). That is a property of the hardware once the structure is right; the gate
// proves the structure (every chunk depends only on its own stream) without a clock.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "model.hpp"
#include "streams.cuh"

namespace {

using course::probe::Cases;
using course::probe::Options;
using course::probe::Random;
using course::probe::Tolerance;
using namespace streams;

constexpr int iterations = 7;                               // the suite's
constexpr std::uint64_t gate_timeout_ns = 2'000'000'000ULL; // a right pipeline lands in milliseconds
constexpr int max_watched = 64;
constexpr std::uint32_t poison_bits = 0xffffffffu;

struct Watched {
  std::uint64_t begin[max_watched];
  std::uint64_t count[max_watched];
  int ranges = 0;
};

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds its stream until every watched element of the mapped host output `out` has left the poison (or
// the timeout passes), then copies all n elements, as they are now, to `snapshot`. One block.
__global__ void gate_kernel(const volatile std::uint32_t* out, std::size_t n, Watched watched, std::uint32_t* snapshot,
                            std::uint64_t timeout_ns, int* gave_up) {
  __shared__ std::uint64_t start;
  __shared__ int give_up;
  if (threadIdx.x == 0) {
    start = global_ns();
    give_up = 0;
  }
  __syncthreads();
  for (;;) {
    int landed = 1;
    for (int r = 0; r < watched.ranges && landed; ++r)
      for (std::uint64_t i = threadIdx.x; i < watched.count[r]; i += blockDim.x)
        if (out[watched.begin[r] + i] == poison_bits) {
          landed = 0;
          break;
        }
    if (__syncthreads_and(landed)) break;
    if (threadIdx.x == 0) give_up = global_ns() - start > timeout_ns;
    __syncthreads();
    if (give_up) break;
    __nanosleep(2000);
  }
  if (threadIdx.x == 0) *gave_up = give_up;
  __threadfence_system();
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) snapshot[i] = out[i];
}

void poison_host(float* p, std::size_t n) { std::memset(p, 0xff, n * sizeof(float)); }

std::vector<float> host_values(const float* p, std::size_t n) { return std::vector<float>(p, p + n); }

// FNV-1a over the values' bits: equal for two arrays only when (but for a 2^-64 chance) every bit is.
std::vector<long long> fingerprint(const float* values, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    h ^= bits;
    h *= 0x100000001b3ULL;
  }
  return {static_cast<long long>(h >> 32), static_cast<long long>(h & 0xffffffffu)};
}

// An output: every element up to 4097 of them; above that (to keep the file small) the first and last 64
// elements, 256 at places drawn from the seed, and the fingerprint of all of them.
void add_output(Cases& cases, const std::string& name, const float* out, std::size_t n, Random& random) {
  if (n <= 4097) {
    cases.add(name, host_values(out, n), Tolerance::exact());
    return;
  }
  std::vector<float> picked(out, out + 64);
  picked.insert(picked.end(), out + n - 64, out + n);
  for (int i = 0; i < 256; ++i) picked.push_back(out[random.below(n)]);
  cases.add(name + " at places", picked, Tolerance::exact());
  cases.add_exact(name + " fingerprint", fingerprint(out, n));
}

// One gate (see the file comment): `chunks` chunks over `stream_count` streams in `order`, stream `gated`
// held by the gate. Writes the gate's snapshot and the output after the run.
void add_gate_case(Cases& cases, PipelineRunner& runner, std::size_t n, int chunks, int stream_count, int gated,
                   IssueOrder order, std::uint64_t seed) {
  const std::string name = "gate n=" + std::to_string(n) + " chunks=" + std::to_string(chunks) + " streams=" +
                           std::to_string(stream_count) + " gated stream " + std::to_string(gated) + " " +
                           issue_order_name(order);
  course::PinnedBuffer<float> host_in(n), host_out(n, cudaHostAllocMapped);
  Random random(seed);
  for (std::size_t i = 0; i < n; ++i) host_in[i] = static_cast<float>(random.uniform(0.0, 1.0));
  course::DeviceBuffer<float> dev_in(n), dev_out(n), snapshot(n);
  course::DeviceBuffer<int> gave_up(1);
  gave_up.fill_bytes(0);
  dev_out.fill_bytes(0xff);   // synchronous, and before the gate: it goes through the legacy default stream
  snapshot.fill_bytes(0xff);
  poison_host(host_out.data(), n);

  Watched watched{};
  for (int c = 0; c < chunks; ++c) {
    if (c % stream_count == gated) continue;
    if (watched.ranges == max_watched) throw std::logic_error("probe_06_2: too many watched chunks");
    const ChunkRange r = chunk_range(n, chunks, c);
    watched.begin[watched.ranges] = r.begin;
    watched.count[watched.ranges] = r.count;
    ++watched.ranges;
  }
  std::uint32_t* mapped = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped), host_out.data(), 0));
  gate_kernel<<<1, 256, 0, runner.stream(gated)>>>(mapped, n, watched, reinterpret_cast<std::uint32_t*>(snapshot.data()),
                                                   gate_timeout_ns, gave_up.data());
  CUDA_CHECK_LAUNCH();
  runner.run({n, chunks, stream_count, order, iterations}, host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), 0,
             false);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> seen(n);
  CUDA_CHECK(cudaMemcpy(seen.data(), snapshot.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  int timed_out = 0;
  CUDA_CHECK(cudaMemcpy(&timed_out, gave_up.data(), sizeof timed_out, cudaMemcpyDeviceToHost));
  // Not a case (the snapshot says it): a note for whoever runs the instructor's probe, where it must not appear.
  if (timed_out) std::cerr << "probe_06_2: " << name << ": the other streams' chunks had not all landed after 2 s\n";
  cases.add(name + ": snapshot while the gate held its stream", seen, Tolerance::exact());
  cases.add(name + ": output", host_values(host_out.data(), n), Tolerance::exact());
}

void verdict(const Options& options) {
  Cases cases("06.2", options.seed);
  Random random(options.seed);

  // The gates first, on a runner created before any other stream of this process: its four streams get
  // hardware queues of their own, so the gated one shares its queue with no other stream.
  {
    PipelineRunner gate_runner(4);
    // One ungated run first: with lazy module loading (CUDA's default) the chapter's kernel is loaded at
    // its first launch, and loading may wait for running kernels, such as a gate, to end.
    {
      course::PinnedBuffer<float> host_in(64), host_out(64);
      std::memset(host_in.data(), 0, host_in.bytes());
      course::DeviceBuffer<float> dev_in(64), dev_out(64);
      gate_runner.run({64, 4, 4, IssueOrder::depth_first, iterations}, host_in.data(), host_out.data(), dev_in.data(),
                      dev_out.data(), 0, false);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const std::size_t n = 8192 + random.below(8192);  // written whole: the poison pattern is the verdict
    add_gate_case(cases, gate_runner, n, 4, 4, 3, IssueOrder::depth_first, random.next());
    add_gate_case(cases, gate_runner, n, 8, 4, 1, IssueOrder::depth_first, random.next());
    add_gate_case(cases, gate_runner, n, 8, 4, 2, IssueOrder::staggered, random.next());
  }

  // The outputs on awkward sizes, shapes drawn from the seed, outputs poisoned first (host and device).
  PipelineRunner runner(8);
  std::vector<std::size_t> sizes = {1, 31, 33, 4097, 100003, 1 + random.below(std::size_t{1} << 18)};
  const IssueOrder orders[] = {IssueOrder::depth_first, IssueOrder::staggered};
  for (const std::size_t n : sizes) {
    course::PinnedBuffer<float> host_in(n), host_out(n);
    for (std::size_t i = 0; i < n; ++i) host_in[i] = static_cast<float>(random.uniform(0.0, 1.0));
    course::DeviceBuffer<float> dev_in(n), dev_out(n);
    for (int draw = 0; draw < 6; ++draw) {
      const int chunks = 1 + static_cast<int>(random.below(std::min<std::size_t>(n, 64)));
      const int stream_count = 1 + static_cast<int>(random.below(8));
      const IssueOrder order = orders[draw % 2];
      poison_host(host_out.data(), n);
      dev_out.fill_bytes(0xff);
      runner.run({n, chunks, stream_count, order, iterations}, host_in.data(), host_out.data(), dev_in.data(),
                 dev_out.data(), 0, false);
      add_output(cases,
                 "pipeline n=" + std::to_string(n) + " chunks=" + std::to_string(chunks) + " streams=" +
                     std::to_string(stream_count) + " " + issue_order_name(order),
                 host_out.data(), n, random);
    }
  }
  // From pageable memory (its copies are staged and block the host, but must still be right).
  {
    const std::size_t n = 50000 + random.below(50000);
    std::vector<float> host_in(n), host_out(n);
    for (float& v : host_in) v = static_cast<float>(random.uniform(0.0, 1.0));
    course::DeviceBuffer<float> dev_in(n), dev_out(n);
    poison_host(host_out.data(), n);
    dev_out.fill_bytes(0xff);
    runner.run({n, 8, 4, IssueOrder::depth_first, iterations}, host_in.data(), host_out.data(), dev_in.data(),
               dev_out.data(), 0, false);
    add_output(cases, "pageable n=" + std::to_string(n) + " chunks=8 streams=4 depth_first", host_out.data(), n, random);
  }
  cases.write(options.out);
}

int body(int argc, char** argv) {
  const Options options = course::probe::parse(argc, argv, "06.2", true);
  if (options.timed()) throw course::UsageError("exercise 06.2 has no timed mode");
  course::require_device(options.device);  // NoDeviceError: exit 77
  verdict(options);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_06_2", body, argc, argv); }
