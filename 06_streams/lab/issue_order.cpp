// LAB: reorder the issue loop to remove the false dependency.
//
// With one hardware work queue (CUDA_DEVICE_MAX_CONNECTIONS=1) every stream's commands go through the same
// in-order queue. The issue_order scenario runs, in each of 4 streams, a chain of 3 dependent small kernels
// (A, B, C). In the depth-first loop below the queue holds A0 B0 C0 A1 B1 C1 …: B0 must wait for A0, and
// A1, queued behind B0, waits too, although it depends on nothing: a dependency the program never asked for.
//
// TODO 1: write the breadth_first case: every chain's step 0, then every chain's step 1, and so on (each
//         chain keeps its steps in order, so the results are unchanged).
// TODO 2 (going further): the staggered case is written for you. Work out with the queue simulators
//         (model.hpp) or by hand why it is the best order for the copy pipeline (copies and kernels on
//         different engines) but not for chains of kernels.
//
// Graded by: cmake --workflow --preset lab, then ctest --test-dir build-lab -L lab. The GPU test runs the
// program's issue_order scenario on one hardware queue and reads the timeline the kernels record
// themselves: every stream's first kernel must run at the same time as the others, and breadth-first
// issue must be at least 1.5x faster than depth-first.
#include <stdexcept>

#include "model.hpp"

namespace streams {

std::vector<StepOp> issue_steps(int chains, int steps, IssueOrder order) {
  if (chains < 1 || steps < 1) throw std::invalid_argument("issue_steps: chains and steps >= 1");
  std::vector<StepOp> ops;
  ops.reserve(static_cast<std::size_t>(chains) * static_cast<std::size_t>(steps));
  switch (order) {
    case IssueOrder::depth_first:
      for (int c = 0; c < chains; ++c)
        for (int s = 0; s < steps; ++s) ops.push_back({c, s});
      break;
    case IssueOrder::breadth_first:
      // TODO 1: replace this depth-first loop by the breadth-first order.
      for (int c = 0; c < chains; ++c)
        for (int s = 0; s < steps; ++s) ops.push_back({c, s});
      break;
    case IssueOrder::staggered:
      for (int t = 0; t < chains + steps - 1; ++t)
        for (int s = 0; s < steps; ++s)
          if (t - s >= 0 && t - s < chains) ops.push_back({t - s, s});
      break;
  }
  return ops;
}

}  // namespace streams
