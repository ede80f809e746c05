// pipelined: asynchronous copies keep many rows of u and u_prev on their way into shared memory while
// the block computes (the kernel: pipelined.cuh), in the shape --tune (or a short search) finds fastest
// on the GPU at hand.
#include "pipelined.cuh"

namespace wave {
namespace {

// [tuning_candidates]
/// The search of --tune: threads per block (BX float4 columns), copy ring depth S (S − 5 rows in
/// flight), rows per block. The first is the rung's shape before tuning.
constexpr Variant candidates[] = {
    {.name = "pipelined_b128_s8_r64", .launch = launch_pipelined<128, 8, 64, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<128, 1, 8, 64, 1>},
    {.name = "pipelined_b256_s6_r64", .launch = launch_pipelined<256, 6, 64, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<256, 1, 6, 64, 1>},
    {.name = "pipelined_b256_s8_r64", .launch = launch_pipelined<256, 8, 64, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<256, 1, 8, 64, 1>},
    {.name = "pipelined_b256_s8_r128", .launch = launch_pipelined<256, 8, 128, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<256, 1, 8, 128, 1>},
    {.name = "pipelined_b128_s12_r64", .launch = launch_pipelined<128, 12, 64, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<128, 1, 12, 64, 1>},
    {.name = "pipelined_b256_s12_r16", .launch = launch_pipelined<256, 12, 16, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<256, 1, 12, 16, 1>},
    {.name = "pipelined_b512_s6_r64", .launch = launch_pipelined<512, 6, 64, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<512, 1, 6, 64, 1>},
    {.name = "pipelined_b256_s6_r32", .launch = launch_pipelined<256, 6, 32, 1>, .teaches = "", .reads_memory = kReads,
     .family = "pipelined", .facts = pipelined_facts<256, 1, 6, 32, 1>},
};
// [tuning_candidates]

}  // namespace

void rungs::pipelined(const StepArgs& a, cudaStream_t stream) { candidates[0].launch(a, stream); }
LaunchFacts rungs::pipelined_facts() { return candidates[0].facts(); }
std::span<const Variant> rungs::pipelined_candidates() { return candidates; }

}  // namespace wave
