// shared_line_padded: shared_line_ldg on padded arrays: the zero boundary is stored, so no bounds
// check per neighbour.
#include "shared_line.cuh"

namespace wave {

void rungs::shared_line_padded(const StepArgs& a, cudaStream_t stream) { launch_shared_line<32, true, true, 0>(a, stream); }
LaunchFacts rungs::shared_line_padded_facts() { return wave::shared_line_facts<32, true, true, 0>(); }

}  // namespace wave
