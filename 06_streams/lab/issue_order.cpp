// LAB: reorder the issue loop to remove the false dependency.
//
// With one hardware work queue (CUDA_DEVICE_MAX_CONNECTIONS=1) every stream's commands go through the same
// in-order queue. In the depth-first loop below, chunk 0's D2H waits in that queue for chunk 0's kernel,
// and chunk 1's H2D, queued behind it, waits too: a dependency the program never asked for.
//
// TODO 1: write the breadth_first case: issue every chunk's H2D, then every chunk's kernel, then every
//         chunk's D2H (each chunk keeps its H before its K before its D, so the results are unchanged).
// TODO 2 (going further): the staggered case is written for you. Work out with the queue simulator
//         (model.hpp) or by hand why it is even better than breadth-first on one queue.
//
// Graded by: cmake --workflow --preset lab, then ctest --test-dir build-lab -L lab. The GPU test runs the
// program's issue_order scenario on one hardware queue and reads the recorded timeline: each chunk's H2D
// must start while the previous chunk's kernel is still running.
#include <stdexcept>

#include "model.hpp"

namespace streams {

std::vector<PipelineOp> issue_sequence(int chunks, IssueOrder order) {
  if (chunks < 1) throw std::invalid_argument("issue_sequence: chunks >= 1");
  std::vector<PipelineOp> ops;
  ops.reserve(3 * static_cast<std::size_t>(chunks));
  const OpKind steps[3] = {OpKind::h2d, OpKind::kernel, OpKind::d2h};
  switch (order) {
    case IssueOrder::depth_first:
      for (int c = 0; c < chunks; ++c)
        for (OpKind kind : steps) ops.push_back({c, kind});
      break;
    case IssueOrder::breadth_first:
      // TODO 1: replace this depth-first loop by the breadth-first order.
      for (int c = 0; c < chunks; ++c)
        for (OpKind kind : steps) ops.push_back({c, kind});
      break;
    case IssueOrder::staggered:
      for (int t = 0; t < chunks + 2; ++t)
        for (int s = 0; s < 3; ++s)
          if (t - s >= 0 && t - s < chunks) ops.push_back({t - s, steps[s]});
      break;
  }
  return ops;
}

}  // namespace streams
