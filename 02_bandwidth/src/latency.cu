#include "latency.cuh"

#include <stdexcept>
#include <string>

#include "common/check.cuh"
#include "common/errors.hpp"
#include "common/timing.cuh"
#include "latency.hpp"

namespace bandwidth {
namespace {

constexpr std::size_t words_per_line = latency_line_bytes / sizeof(std::uint32_t);

/// Writes each line's successor into the line's first word.
__global__ void scatter_cycle(std::uint32_t* slots, const std::uint32_t* next, std::size_t lines) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < lines) slots[i * words_per_line] = next[i];
}

// [pointer_chase_kernel]
/// One thread, `loads` loads, each address known only once the previous load has returned: the time
/// per iteration is the latency of one load. __ldcg caches in L2 only, so a footprint that fits in L2
/// measures L2 and a larger one measures DRAM, with no L1 hits in between. Each chase starts where the
/// last one stopped (`position`): were every run to start at line 0, the warm-up would leave the same
/// `loads` lines in L2 for the timed runs, and every footprint would time L2.
__global__ void chase(const std::uint32_t* slots, std::uint64_t loads, std::uint32_t* position) {
  std::uint32_t line = *position;
  for (std::uint64_t i = 0; i < loads; ++i) line = __ldcg(slots + static_cast<std::size_t>(line) * words_per_line);
  *position = line;  // the result is used, so the loop is not optimised away
}
// [pointer_chase_kernel]

}  // namespace

PointerChase::PointerChase(std::size_t footprint, std::uint64_t seed)
    : next_(random_cycle(footprint / latency_line_bytes, seed)),
      slots_(footprint / sizeof(std::uint32_t)),
      position_(1) {
  slots_.fill_bytes(0);
  position_.fill_bytes(0);
  course::DeviceBuffer<std::uint32_t> next(next_.size());
  next.upload(next_);
  constexpr unsigned block = 256;
  const auto grid = static_cast<unsigned>((next_.size() + block - 1) / block);
  scatter_cycle<<<grid, block>>>(slots_.data(), next.data(), next_.size());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
}

void PointerChase::launch(std::uint64_t loads, cudaStream_t stream) {
  chase<<<1, 1, 0, stream>>>(slots_.data(), loads, position_.data());
  CUDA_CHECK_LAUNCH();
}

std::uint32_t PointerChase::position() const {
  std::uint32_t line = 0;
  position_.download(std::span<std::uint32_t>(&line, 1));
  return line;
}

course::Stats PointerChase::time_ns_per_load(std::uint64_t loads, course::TimingOptions opts) {
  const std::uint32_t start = position();
  std::uint64_t chases = 0;
  const course::Stats ms = course::time_gpu(
      [&](cudaStream_t s) {
        launch(loads, s);
        ++chases;
      },
      opts);
  const std::uint32_t expected = walk(next_, start, loads * chases);
  const std::uint32_t got = position();
  if (got != expected)
    throw std::runtime_error("pointer chase over " + std::to_string(lines()) + " lines ended on line " +
                             std::to_string(got) + ", the cycle says " + std::to_string(expected));
  const double to_ns = 1e6 / static_cast<double>(loads);
  course::Stats ns = ms;
  ns.median *= to_ns;
  ns.min *= to_ns;
  ns.max *= to_ns;
  ns.mean *= to_ns;
  ns.stddev *= to_ns;
  return ns;
}

}  // namespace bandwidth
