// temporal_2: the pipelined kernel (pipelined.cuh) advancing 2 time steps per pass over memory:
// the first step's rows stay on chip for the second.
// In the shape --tune (or a short search) finds fastest on the GPU at hand; the steps left over
// after the whole passes run as the pipelined rung.
#include "pipelined.cuh"

namespace wave {
namespace {

/// The search of --tune, as for pipelined (src/rungs/pipelined.cu). The first is the rung's shape before tuning.
constexpr Variant candidates[] = {
    {.name = "temporal_2_b128_s8_r128", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 8, 128, 1>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 8, 128, 1>},
    {.name = "temporal_2_b128_s8_r64", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 8, 64, 1>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 8, 64, 1>},
    {.name = "temporal_2_b128_s8_r256", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 8, 256, 1>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 8, 256, 1>},
    {.name = "temporal_2_b256_s8_r128", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<256, 2, 8, 128, 1>, .family = "temporal_2",
     .facts = pipelined_facts<256, 2, 8, 128, 1>},
    {.name = "temporal_2_b128_s6_r128_m4", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 6, 128, 4>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 6, 128, 4>},
    {.name = "temporal_2_b128_s6_r256_m4", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 6, 256, 4>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 6, 256, 4>},
    {.name = "temporal_2_b128_s8_r128_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 8, 128, 1, true>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 8, 128, 1, true>},
    {.name = "temporal_2_b128_s8_r256_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 8, 256, 1, true>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 8, 256, 1, true>},
    {.name = "temporal_2_b128_s8_r128_m5", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 2, .pass = launch_temporal<128, 2, 8, 128, 5>, .family = "temporal_2",
     .facts = pipelined_facts<128, 2, 8, 128, 5>},
};
constexpr const Variant& untuned = candidates[0];

}  // namespace

void rungs::temporal_2(const StepArgs& a, const PassTargets& t, cudaStream_t stream) {
  untuned.pass(a, t, stream);
}
LaunchFacts rungs::temporal_2_facts() { return untuned.facts(); }
std::span<const Variant> rungs::temporal_2_candidates() { return candidates; }

}  // namespace wave
