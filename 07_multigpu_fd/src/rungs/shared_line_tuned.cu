// shared_line_tuned: shared_line_padded with the rows split among blocks (128 threads x 64 rows
// per block): enough blocks to fill every SM.
#include "shared_line.cuh"

namespace wave {

void rungs::shared_line_tuned(const StepArgs& a, cudaStream_t stream) { launch_shared_line<128, true, true, 64>(a, stream); }
LaunchFacts rungs::shared_line_tuned_facts() { return wave::shared_line_facts<128, true, true, 64>(); }

}  // namespace wave
