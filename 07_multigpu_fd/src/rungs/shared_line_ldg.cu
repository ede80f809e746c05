// shared_line_ldg: shared_line with every load through the read-only cache (__ldg).
#include "shared_line.cuh"

namespace wave {

void rungs::shared_line_ldg(const StepArgs& a, cudaStream_t stream) { launch_shared_line<32, true, false, 0>(a, stream); }
LaunchFacts rungs::shared_line_ldg_facts() { return wave::shared_line_facts<32, true, false, 0>(); }

}  // namespace wave
