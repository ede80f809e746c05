// WRONG: 06.1 expect: exactly once because: one flat index read as chain = i % steps, step = i / steps: right only when chains == steps; with 4 chains of 3 steps it never issues chain 3 and issues a step 3 that does not exist
std::vector<StepOp> breadth_first_steps(int chains, int steps) {
  std::vector<StepOp> ops = reserved(chains, steps);
  for (int i = 0; i < chains * steps; ++i) ops.push_back({i % steps, i / steps});
  return ops;
}
