// The memory levels, measured with the smallest kernels that show them: a pointer chase in shared memory
// and in L1 (latency: one thread, one load at a time), and a read of a buffer that fits in L2
// (bandwidth: every SM reading at once).
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/timing.cuh"
#include "levels.hpp"

namespace first_kernel {
namespace {

constexpr unsigned words_per_line = 128 / sizeof(std::uint32_t);

// [shared_chase]
// The block copies the cycle into shared memory (all threads), waits for the copy, then thread 0 follows
// it: each load's address is the value the previous load returned, so the loads cannot overlap and
// the time per load is the latency of shared memory.
__global__ void shared_chase(const std::uint32_t* cycle, unsigned loads, std::uint32_t* end) {
  __shared__ std::uint32_t next[shared_chase_words];
  for (unsigned i = threadIdx.x; i < shared_chase_words; i += blockDim.x) next[i] = cycle[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  std::uint32_t at = 0;
  for (unsigned k = 0; k < loads; ++k) at = next[at];
  *end = at;  // the result is used, so the loop is not optimised away
}
// [shared_chase]

// The same chase through global memory, one 128-byte line per step; __ldca asks for the line to be kept
// in L1, and 128 lines fit there easily, so after the first pass every load hits L1.
__global__ void l1_chase(const std::uint32_t* slots, unsigned loads, std::uint32_t* end) {
  std::uint32_t at = 0;
  for (unsigned k = 0; k < loads; ++k) at = __ldca(slots + at * words_per_line);
  *end = at;
}

// Every thread of a GPU-filling grid reads its float4s of an 8 MiB buffer, `passes` times. __ldcg
// caches in L2 only: without it each thread's few lines would come from its SM's L1 after the first pass.
__global__ void l2_read(const float4* data, unsigned count, unsigned passes, float* sink) {
  const unsigned threads = gridDim.x * blockDim.x;
  float acc = 0.0f;
  for (unsigned pass = 0; pass < passes; ++pass)
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += threads) {
      const float4 v = __ldcg(data + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc != 0.0f) *sink = acc;  // the buffer holds zeros: never taken, but the loads must happen
}

course::Stats ns_per_load(course::Stats ms, unsigned loads) {
  const double to_ns = 1e6 / loads;
  ms.median *= to_ns;
  ms.min *= to_ns;
  ms.max *= to_ns;
  ms.mean *= to_ns;
  ms.stddev *= to_ns;
  return ms;
}

void check_end(const char* level, std::uint32_t got, std::uint32_t expected) {
  if (got != expected)
    throw std::runtime_error(std::string(level) + " chase ended on " + std::to_string(got) + ", the cycle says " +
                             std::to_string(expected));
}

}  // namespace

std::vector<LevelResult> measure_levels(int sm_count, int max_threads_per_sm, course::TimingOptions opts) {
  std::vector<LevelResult> results;
  const double nan = std::nan("");
  course::DeviceBuffer<std::uint32_t> end(1);
  std::uint32_t got = 0;

  {  // shared memory
    const auto cycle = random_cycle(shared_chase_words, 7);
    course::DeviceBuffer<std::uint32_t> cycle_dev(cycle.size());
    cycle_dev.upload(cycle);
    const auto ms = course::time_gpu(
        [&](cudaStream_t s) {
          shared_chase<<<1, 256, 0, s>>>(cycle_dev.data(), chase_loads, end.data());
          CUDA_CHECK_LAUNCH();
        },
        opts);
    end.download({&got, 1});
    check_end("shared-memory", got, walk(cycle, 0, chase_loads));
    results.push_back({"shared", "one thread, dependent loads", shared_chase_words * sizeof(std::uint32_t),
                       ns_per_load(ms, chase_loads).median, nan, ms});
  }
  {  // L1
    const auto cycle = random_cycle(l1_chase_lines, 11);
    std::vector<std::uint32_t> slots(std::size_t{l1_chase_lines} * words_per_line, 0);
    for (unsigned line = 0; line < l1_chase_lines; ++line) slots[line * words_per_line] = cycle[line];
    course::DeviceBuffer<std::uint32_t> slots_dev(slots.size());
    slots_dev.upload(slots);
    const auto ms = course::time_gpu(
        [&](cudaStream_t s) {
          l1_chase<<<1, 1, 0, s>>>(slots_dev.data(), chase_loads, end.data());
          CUDA_CHECK_LAUNCH();
        },
        opts);
    end.download({&got, 1});
    check_end("L1", got, walk(cycle, 0, chase_loads));
    results.push_back({"L1", "one thread, dependent loads", slots.size() * sizeof(std::uint32_t),
                       ns_per_load(ms, chase_loads).median, nan, ms});
  }
  {  // L2 bandwidth
    const auto count = static_cast<unsigned>(l2_read_bytes / sizeof(float4));
    course::DeviceBuffer<float4> data(count);
    data.fill_bytes(0);
    course::DeviceBuffer<float> sink(1);
    sink.fill_bytes(0);
    constexpr unsigned block = 256;
    const unsigned grid = static_cast<unsigned>(sm_count) * static_cast<unsigned>(max_threads_per_sm / block);
    const auto ms = course::time_gpu(
        [&](cudaStream_t s) {
          l2_read<<<grid, block, 0, s>>>(data.data(), count, l2_read_passes, sink.data());
          CUDA_CHECK_LAUNCH();
        },
        opts);
    const double bytes = static_cast<double>(l2_read_bytes) * l2_read_passes;
    results.push_back({"L2", "every SM reading, __ldcg", l2_read_bytes, nan, course::gb_per_s(bytes, ms.median), ms});
  }
  return results;
}

}  // namespace first_kernel
