// The ladder's shared host side: workspace, the device-side finish of two-pass rungs, validation,
// deterministic data and the CPU references.
#include "reduce_ladder/ladder.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/check.cuh"
#include "common/errors.hpp"
#include "reduce_ladder/device.cuh"

namespace reduce {

Workspace::Workspace(std::size_t scratch_bytes) : scratch_(scratch_bytes < 8 ? 8 : scratch_bytes), ticket_(1) {
  CUDA_CHECK(cudaMemset(ticket_.data(), 0, sizeof(unsigned)));
}

void Workspace::require(std::size_t bytes) const {
  if (bytes > scratch_.size())
    throw std::logic_error("reduce::Workspace: " + std::to_string(bytes) + " bytes of scratch needed, " +
                           std::to_string(scratch_.size()) + " allocated");
}

std::size_t scratch_bytes_for(const Variant& variant, std::size_t n, LaunchShape shape) {
  if (variant.scratch_bytes) return variant.scratch_bytes(n, shape);
  return std::size_t{shape.grid} * sizeof(long long);
}

void validate_block(long long block) {
  if (block < 64 || block > 1024 || (block & (block - 1)) != 0)
    throw course::UsageError("--block " + std::to_string(block) +
                             ": must be a power of two from 64 to 1024 (whole warps, a power-of-two tree)");
}

LaunchShape blocks_covering(std::size_t n, unsigned block, std::size_t elements_per_block) {
  const std::size_t grid = ceil_div(n, elements_per_block);
  if (grid > 0x7fffffffu) throw course::UsageError("n = " + std::to_string(n) + " needs more than 2^31-1 blocks");
  return {static_cast<unsigned>(grid), block};
}

LaunchShape one_element_per_thread(std::size_t n, unsigned block, int /*sm_count*/) {
  return blocks_covering(n, block, block);
}

namespace {
constexpr unsigned finish_block = 1024;

// One block sums every partial: a grid-stride loop, then the shuffle tree. The partials are few
// (one per block of the first launch), so this launch costs a few microseconds.
template <class Acc>
__global__ void __launch_bounds__(finish_block) sum_partials_kernel(const Acc* partials, unsigned count, Acc* result) {
  __shared__ Acc warp_sums[32];
  Acc sum = 0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) sum += partials[i];
  sum = block_sum(sum, warp_sums);
  if (threadIdx.x == 0) *result = sum;
}

// SplitMix64: fast, reproducible, good enough for test data.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};
}  // namespace

template <class Acc>
void launch_sum_partials(const Acc* partials, unsigned count, Acc* result, cudaStream_t stream) {
  sum_partials_kernel<Acc><<<1, finish_block, 0, stream>>>(partials, count, result);
  CUDA_CHECK_LAUNCH();
}
template void launch_sum_partials<long long>(const long long*, unsigned, long long*, cudaStream_t);
template void launch_sum_partials<float>(const float*, unsigned, float*, cudaStream_t);

std::vector<int> random_ints(std::size_t n, int lo, int hi, std::uint64_t seed) {
  SplitMix64 rng{seed};
  const auto span = static_cast<std::uint64_t>(static_cast<long long>(hi) - lo);
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(lo + static_cast<long long>(rng.next() % span));
  return v;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<float> v(n);
  for (auto& x : v) x = lo + (hi - lo) * static_cast<float>(static_cast<double>(rng.next() >> 11) * 0x1.0p-53);
  return v;
}

long long reference_sum(std::span<const int> values) {
  long long sum = 0;
  for (const int x : values) sum += x;
  return sum;
}

FloatReference reference_sum(std::span<const float> values) {
  FloatReference r;
  for (const float x : values) {
    r.sum += x;
    r.sum_abs += std::fabs(static_cast<long double>(x));
  }
  return r;
}

}  // namespace reduce
