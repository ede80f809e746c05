/// \file two_pass.cuh
/// \brief The launch every two-pass tree rung shares: the rung's kernel writes one partial sum per block
/// into the workspace, then one small launch adds the partials on the device.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "common/check.cuh"
#include "reduce_ladder/device.cuh"
#include "reduce_ladder/ladder.hpp"

namespace reduce {

/// A tree kernel: sums its block's share of `input` (n elements) into partials[blockIdx.x].
template <class T>
using TreeKernel = void (*)(const T* input, std::size_t n, accumulator_t<T>* partials);

/// Launches `kernel` on `shape` with `shared_bytes` of dynamic shared memory, then finishes on the
/// device (launch_sum_partials) into `*result`. Both launches go to `stream`, so the pair can be timed
/// as one rung.
template <class T>
void launch_two_pass(TreeKernel<T> kernel, const T* input, std::size_t n, accumulator_t<T>* result,
                     LaunchShape shape, std::size_t shared_bytes, Workspace& workspace, cudaStream_t stream) {
  using Acc = accumulator_t<T>;
  Acc* partials = workspace.partials<Acc>(shape.grid);
  kernel<<<shape.grid, shape.block, shared_bytes, stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  launch_sum_partials(partials, shape.grid, result, stream);
}

}  // namespace reduce
