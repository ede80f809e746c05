// The practical ceiling of a 12-byte cell update: a kernel with the stencil's DRAM traffic and nothing
// else. The ladder times it beside the rungs, so every rung is a percentage of what this GPU streams.
#include "common/check.cuh"
#include "kernels.cuh"

namespace wave {
namespace {

// [stream_ceiling]
/// prev[i] = 2·cur[i] − prev[i]: read two arrays, write one in place, one float4 per thread.
__global__ void stream_ceiling_kernel(const float4* __restrict__ cur, float4* __restrict__ prev, std::size_t count4) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count4) return;
  const float4 c = cur[i], p = prev[i];
  prev[i] = make_float4(2.0f * c.x - p.x, 2.0f * c.y - p.y, 2.0f * c.z - p.z, 2.0f * c.w - p.w);
}
// [stream_ceiling]

__global__ void stream_ceiling_tail(const float* cur, float* prev, std::size_t begin, std::size_t end) {
  const std::size_t i = begin + threadIdx.x;
  if (i < end) prev[i] = 2.0f * cur[i] - prev[i];
}

constexpr unsigned threads = 256;

}  // namespace

void launch_stream_ceiling(const float* cur, float* prev, std::size_t cells, cudaStream_t stream) {
  // cudaMalloc'd buffers: 256-byte aligned, so whole float4s from the start and at most 3 floats after.
  const std::size_t count4 = cells / 4;
  if (count4 > 0) {
    const auto blocks = static_cast<unsigned>((count4 + threads - 1) / threads);
    stream_ceiling_kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<const float4*>(cur),
                                                          reinterpret_cast<float4*>(prev), count4);
    CUDA_CHECK_LAUNCH();
  }
  if (cells % 4 != 0) {
    stream_ceiling_tail<<<1, 4, 0, stream>>>(cur, prev, count4 * 4, cells);
    CUDA_CHECK_LAUNCH();
  }
}

LaunchFacts stream_ceiling_facts() {
  LaunchFacts f;
  f.kernel = "stream_ceiling_kernel";
  f.entry = reinterpret_cast<const void*>(stream_ceiling_kernel);
  f.block_x = threads;
  f.cells_x = 4 * threads;  // one float4 per thread, the whole field as one row
  f.rows_per_block = 1;
  return f;
}

}  // namespace wave
