// The issue loop: in which order the host hands the commands of several streams to the driver. The order
// does not change what is computed (each stream's commands stay in order in that stream); on a shared
// hardware queue it changes what waits for what. The lab replaces this file (lab/issue_order.cpp).
#include <stdexcept>

#include "model.hpp"

namespace streams {

// [issue_orders]
std::vector<StepOp> issue_steps(int chains, int steps, IssueOrder order) {
  if (chains < 1 || steps < 1) throw std::invalid_argument("issue_steps: chains and steps >= 1");
  std::vector<StepOp> ops;
  ops.reserve(static_cast<std::size_t>(chains) * static_cast<std::size_t>(steps));
  switch (order) {
    case IssueOrder::depth_first:  // the natural loop: one stream's whole chain, then the next stream's
      for (int c = 0; c < chains; ++c)
        for (int s = 0; s < steps; ++s) ops.push_back({c, s});
      break;
    case IssueOrder::breadth_first:  // step by step: every stream's first command, then every second, …
      for (int s = 0; s < steps; ++s)
        for (int c = 0; c < chains; ++c) ops.push_back({c, s});
      break;
    case IssueOrder::staggered:  // round t issues step s of chain t − s: each command right after what it needs
      for (int t = 0; t < chains + steps - 1; ++t)
        for (int s = 0; s < steps; ++s)
          if (t - s >= 0 && t - s < chains) ops.push_back({t - s, s});
      break;
  }
  return ops;
}
// [issue_orders]

}  // namespace streams
