// WRONG: 06.1 expect: before any step s + 1 because: the loops in depth-first order, chain by chain: every (chain, step) once and in order, so the contract holds, but on one hardware queue each chain's second kernel still blocks the next chain's first
std::vector<StepOp> breadth_first_steps(int chains, int steps) {
  std::vector<StepOp> ops = reserved(chains, steps);
  for (int chain = 0; chain < chains; ++chain)
    for (int step = 0; step < steps; ++step) ops.push_back({chain, step});
  return ops;
}
