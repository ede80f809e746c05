// The library baseline: cub::DeviceReduce::Sum with int input and a long long output. CUB uses the
// output type as the initial value and accumulator, so this row computes exactly what ours do (an
// exact 64-bit sum of ints), with CUB's own 16-byte loads. Its temporary storage is allocated once
// (the Workspace scratch), outside the timed region, as a user who cares would do.
#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <limits>

#include "common/check.cuh"
#include "reduce_unroll.hpp"

namespace reduce {
namespace {

// 32-bit item counts where they fit, as most callers pass them (CUB then uses 32-bit offsets).
cudaError_t cub_sum(void* temp, std::size_t& temp_bytes, const int* input, long long* result, std::size_t n,
                    cudaStream_t stream) {
  if (n <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    return cub::DeviceReduce::Sum(temp, temp_bytes, input, result, static_cast<std::int32_t>(n), stream);
  return cub::DeviceReduce::Sum(temp, temp_bytes, input, result, static_cast<std::int64_t>(n), stream);
}

// [cub_row]
void launch_cub(const int* input, std::size_t n, long long* result, LaunchShape /*shape*/, Workspace& workspace,
                cudaStream_t stream) {
  std::size_t temp_bytes = workspace.scratch_bytes();
  CUDA_CHECK(cub_sum(workspace.scratch(), temp_bytes, input, result, n, stream));
  CUDA_CHECK_LAUNCH();
}

std::size_t cub_temp_bytes(std::size_t n, LaunchShape /*shape*/) {
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub_sum(nullptr, temp_bytes, nullptr, nullptr, n, nullptr));
  return temp_bytes;
}
// [cub_row]

LaunchShape library_shape(std::size_t, unsigned, int) { return {0, 0}; }

const Variant library_table[] = {
    {"cub_device_reduce", "what a user would pick instead: the bar to clear",
     "cub::DeviceReduce::Sum (library baseline)", "chosen by CUB", library_shape, launch_cub, nullptr,
     cub_temp_bytes},
};

}  // namespace

std::span<const Variant> library_variants() { return library_table; }

}  // namespace reduce
