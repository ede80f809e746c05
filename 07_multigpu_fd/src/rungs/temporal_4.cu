// temporal_4: the pipelined kernel (pipelined.cuh) advancing 4 time steps per pass over memory:
// four levels of registers per thread.
// In the shape --tune (or a short search) finds fastest on the GPU at hand; the steps left over
// after the whole passes run as the pipelined rung.
#include "pipelined.cuh"

namespace wave {
namespace {

/// The search of --tune, as for pipelined (src/rungs/pipelined.cu). The rung's shape before tuning:
/// temporal_4_b128_s8_r256.
constexpr Variant candidates[] = {
    {.name = "temporal_4_b128_s6_r256", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 6, 256, 1>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 6, 256, 1>},
    {.name = "temporal_4_b128_s8_r256", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 8, 256, 1>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 8, 256, 1>},
    {.name = "temporal_4_b128_s6_r256_m3", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 6, 256, 3>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 6, 256, 3>},
    {.name = "temporal_4_b128_s6_r512", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 6, 512, 1>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 6, 512, 1>},
    {.name = "temporal_4_b128_s6_r128_m3", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 6, 128, 3>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 6, 128, 3>},
    {.name = "temporal_4_b128_s8_r256_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 8, 256, 1, true>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 8, 256, 1, true>},
    {.name = "temporal_4_b128_s6_r256_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 6, 256, 1, true>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 6, 256, 1, true>},
    {.name = "temporal_4_b128_s6_r256_m3_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 6, 256, 3, true>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 6, 256, 3, true>},
    {.name = "temporal_4_b128_s8_r256_m3", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 4, .pass = launch_temporal<128, 4, 8, 256, 3>, .family = "temporal_4",
     .facts = pipelined_facts<128, 4, 8, 256, 3>},
};
constexpr const Variant& untuned = candidates[1];

}  // namespace

void rungs::temporal_4(const StepArgs& a, const PassTargets& t, cudaStream_t stream) {
  untuned.pass(a, t, stream);
}
LaunchFacts rungs::temporal_4_facts() { return untuned.facts(); }
std::span<const Variant> rungs::temporal_4_candidates() { return candidates; }

}  // namespace wave
