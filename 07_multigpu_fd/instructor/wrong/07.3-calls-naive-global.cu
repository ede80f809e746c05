// WRONG: 07.3 expect: must be its own because: hands every step to naive_global, the reference's launcher: bit for bit right and as fast as the reference, but none of the exercise's work; the grader refuses the name before timing (and a capture of the timed step records the reference's kernel)
void launch_shared_tile(const StepArgs& a, cudaStream_t stream) { rungs::naive_global(a, stream); }
