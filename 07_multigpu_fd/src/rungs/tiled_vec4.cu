// tiled_vec4: tiled_l1 with 4 columns per thread as one float4 (the kernel: tiled_vec4.cuh), in one
// fixed shape: 32 × 8 threads, 16 rows each, registers capped for 3 blocks per SM.
#include "tiled_vec4.cuh"

namespace wave {

void rungs::tiled_vec4(const StepArgs& a, cudaStream_t stream) { launch_tiled_vec4<32, 8, 16, false, 3>(a, stream); }
LaunchFacts rungs::tiled_vec4_facts() { return wave::tiled_vec4_facts<32, 8, 16, false, 3>(); }

}  // namespace wave
