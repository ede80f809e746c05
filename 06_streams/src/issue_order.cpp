// The issue loop: in which order the host hands the commands of several streams to the driver. The order
// does not change what is computed (each stream's commands stay in order in that stream); on a shared
// hardware queue it changes what waits for what. One function per order; issue_steps picks one.
#include <cstddef>
#include <stdexcept>

#include "model.hpp"

namespace streams {

namespace {

std::vector<StepOp> reserved(int chains, int steps) {
  std::vector<StepOp> ops;
  ops.reserve(static_cast<std::size_t>(chains) * static_cast<std::size_t>(steps));
  return ops;
}

// [issue_orders]
// The natural loop: one stream's whole chain, then the next stream's. On one hardware queue the second
// command of chain 0 waits at the head of the queue for the first, and every other chain waits behind it.
std::vector<StepOp> depth_first_steps(int chains, int steps) {
  std::vector<StepOp> ops = reserved(chains, steps);
  for (int c = 0; c < chains; ++c)
    for (int s = 0; s < steps; ++s) ops.push_back({c, s});
  return ops;
}

// Software-pipelined: round t issues step s of chain t − s, so each command comes right after the one it
// needs. Best when consecutive steps run on different engines (H2D, kernel, D2H of the copy pipeline).
std::vector<StepOp> staggered_steps(int chains, int steps) {
  std::vector<StepOp> ops = reserved(chains, steps);
  for (int t = 0; t < chains + steps - 1; ++t)
    for (int s = 0; s < steps; ++s)
      if (t - s >= 0 && t - s < chains) ops.push_back({t - s, s});
  return ops;
}
// [issue_orders]

// Step by step: every chain's step 0 (chains in increasing order), then every chain's step 1, and so on.
// BEGIN SOLUTION 06.1
#ifndef COURSE_STUB_06_1
std::vector<StepOp> breadth_first_steps(int chains, int steps) {
  std::vector<StepOp> ops = reserved(chains, steps);
  // The step is the outer loop: all of step s is queued ahead of all of step s + 1, so a head that waits
  // for its own chain's previous step holds back only commands that could not run yet anyway.
  for (int step = 0; step < steps; ++step)
    for (int chain = 0; chain < chains; ++chain) ops.push_back({chain, step});
  return ops;
}
#else
std::vector<StepOp> breadth_first_steps(int chains, int steps) {
  // TODO (exercise 06.1): return every chain's step 0 (chains in increasing order), then every chain's
  // step 1, and so on up to step steps − 1: each (chain, step) exactly once. As handed out it returns the
  // depth-first order, so on one hardware queue nothing gets faster.
  return depth_first_steps(chains, steps);
}
#endif
// END SOLUTION 06.1

}  // namespace

std::vector<StepOp> issue_steps(int chains, int steps, IssueOrder order) {
  if (chains < 1 || steps < 1) throw std::invalid_argument("issue_steps: chains and steps >= 1");
  switch (order) {
    case IssueOrder::depth_first: return depth_first_steps(chains, steps);
    case IssueOrder::breadth_first: return breadth_first_steps(chains, steps);
    case IssueOrder::staggered: return staggered_steps(chains, steps);
  }
  throw std::invalid_argument("issue_steps: unknown issue order");
}

}  // namespace streams
