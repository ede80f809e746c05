// The chapter's kernel and its data: fma_chain_kernel (a knob from memory-bound to compute-bound), its
// launcher, the inputs every scenario fills and the checksum that compares outputs bit for bit.
#include <algorithm>
#include <bit>

#include "common/check.cuh"
#include "streams.cuh"

namespace streams {

namespace {

// [fma_chain_kernel]
// Each element goes through `iterations` dependent FMAs: the arithmetic intensity is a knob, from
// memory-bound (a few iterations) to as compute-bound as we like. Dependent FMAs cannot be merged or
// reordered by the compiler (no fast-math), so the time grows linearly with `iterations`.
__global__ void fma_chain_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                 int iterations) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = in[i];
    for (int it = 0; it < iterations; ++it) v = fmaf(v, chain_a, chain_b);
    out[i] = v;
  }
}
// [fma_chain_kernel]

}  // namespace

void launch_fma_chain(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream,
                      unsigned blocks) {
  if (n == 0) return;
  if (blocks == 0) blocks = static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 0x7fffffffu));
  fma_chain_kernel<<<blocks, block_size, 0, stream>>>(in, out, n, iterations);
  CUDA_CHECK_LAUNCH();
}

void fill_inputs(std::span<float> host, std::uint32_t seed) {
  for (std::size_t i = 0; i < host.size(); ++i) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B9u ^ seed ^ static_cast<std::uint32_t>(i >> 32);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    host[i] = static_cast<float>(x >> 8) * (1.0f / 16777216.0f);  // 24 bits: exact in a float, in [0, 1)
  }
}

std::uint32_t xor_checksum(std::span<const float> values) {
  std::uint32_t sum = 0;
  for (float v : values) sum ^= std::bit_cast<std::uint32_t>(v);
  return sum;
}

}  // namespace streams
