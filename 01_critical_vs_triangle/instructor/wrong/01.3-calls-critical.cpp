// WRONG: 01.3 expect: must be its own because: hands the forces to the critical strategy, the reference: every force is right and the time equals the reference's, but none of the exercise's work; the grader refuses the name before timing
void forces_thread_arrays(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  forces_critical(in, f, ws, threads);
}
