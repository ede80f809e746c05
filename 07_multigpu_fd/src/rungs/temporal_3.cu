// temporal_3: the pipelined kernel (pipelined.cuh) advancing 3 time steps per pass over memory:
// each step recomputes a wider halo.
// In the shape --tune (or a short search) finds fastest on the GPU at hand; the steps left over
// after the whole passes run as the pipelined rung.
#include "pipelined.cuh"

namespace wave {
namespace {

/// The search of --tune, as for pipelined (src/rungs/pipelined.cu). The first is the rung's shape before tuning.
constexpr Variant candidates[] = {
    {.name = "temporal_3_b128_s8_r128", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 128, 1>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 128, 1>},
    {.name = "temporal_3_b128_s8_r256", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 256, 1>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 256, 1>},
    {.name = "temporal_3_b128_s6_r256", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 6, 256, 1>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 6, 256, 1>},
    {.name = "temporal_3_b128_s6_r256_m4", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 6, 256, 4>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 6, 256, 4>},
    {.name = "temporal_3_b128_s6_r128_m4", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 6, 128, 4>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 6, 128, 4>},
    {.name = "temporal_3_b256_s8_r128", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<256, 3, 8, 128, 1>, .family = "temporal_3",
     .facts = pipelined_facts<256, 3, 8, 128, 1>},
    {.name = "temporal_3_b128_s8_r512", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 512, 1>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 512, 1>},
    {.name = "temporal_3_b128_s8_r256_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 256, 1, true>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 256, 1, true>},
    {.name = "temporal_3_b128_s8_r128_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 128, 1, true>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 128, 1, true>},
    {.name = "temporal_3_b128_s6_r256_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 6, 256, 1, true>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 6, 256, 1, true>},
    {.name = "temporal_3_b128_s8_r256_m3_ring", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 256, 3, true>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 256, 3, true>},
    {.name = "temporal_3_b128_s8_r256_m4", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 256, 4>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 256, 4>},
    {.name = "temporal_3_b128_s8_r128_m4", .launch = rungs::pipelined, .teaches = "", .reads_memory = kReads,
     .steps_per_pass = 3, .pass = launch_temporal<128, 3, 8, 128, 4>, .family = "temporal_3",
     .facts = pipelined_facts<128, 3, 8, 128, 4>},
};
constexpr const Variant& untuned = candidates[0];

}  // namespace

void rungs::temporal_3(const StepArgs& a, const PassTargets& t, cudaStream_t stream) {
  untuned.pass(a, t, stream);
}
LaunchFacts rungs::temporal_3_facts() { return untuned.facts(); }
std::span<const Variant> rungs::temporal_3_candidates() { return candidates; }

}  // namespace wave
