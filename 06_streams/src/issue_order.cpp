// The issue loop: in which order the host hands the chunks' operations to the driver. The order does not
// change what is computed (each chunk's H, K, D stay in order in its stream); on a shared hardware queue it
// changes what waits for what. The lab replaces this file (lab/issue_order.cpp).
#include <stdexcept>

#include "model.hpp"

namespace streams {

// [issue_orders]
std::vector<PipelineOp> issue_sequence(int chunks, IssueOrder order) {
  if (chunks < 1) throw std::invalid_argument("issue_sequence: chunks >= 1");
  std::vector<PipelineOp> ops;
  ops.reserve(3 * static_cast<std::size_t>(chunks));
  const OpKind steps[3] = {OpKind::h2d, OpKind::kernel, OpKind::d2h};
  switch (order) {
    case IssueOrder::depth_first:  // the natural loop: one chunk after the other
      for (int c = 0; c < chunks; ++c)
        for (OpKind kind : steps) ops.push_back({c, kind});
      break;
    case IssueOrder::breadth_first:  // all copies in, then all kernels, then all copies out
      for (OpKind kind : steps)
        for (int c = 0; c < chunks; ++c) ops.push_back({c, kind});
      break;
    case IssueOrder::staggered:  // step t issues H(t), K(t−1), D(t−2): each op right after what it needs
      for (int t = 0; t < chunks + 2; ++t)
        for (int s = 0; s < 3; ++s)
          if (t - s >= 0 && t - s < chunks) ops.push_back({t - s, steps[s]});
      break;
  }
  return ops;
}
// [issue_orders]

}  // namespace streams
