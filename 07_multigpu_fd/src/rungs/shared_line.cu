// shared_line: the book's kernel as printed: 32-thread blocks march down every row, plain loads, a bounds
// check per neighbour (the kernel: shared_line.cuh).
#include "shared_line.cuh"

namespace wave {

void rungs::shared_line(const StepArgs& a, cudaStream_t stream) { launch_shared_line<32, false, false, 0>(a, stream); }
LaunchFacts rungs::shared_line_facts() { return wave::shared_line_facts<32, false, false, 0>(); }

}  // namespace wave
