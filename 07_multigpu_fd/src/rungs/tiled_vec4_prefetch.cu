// tiled_vec4_prefetch: tiled_vec4 with the next row's loads issued before this row's arithmetic (the
// kernel: tiled_vec4.cuh), in the shape --tune (or a short search) finds fastest on the GPU at hand.
#include "tiled_vec4.cuh"

namespace wave {
namespace {

constexpr const char* kReads = "L1 (float4) + registers";
constexpr const char* kFamily = "tiled_vec4_prefetch";

// [prefetch_candidates]
/// The family's shapes: threads side by side (BX float4 columns, one warp row), rows per thread, and
/// the blocks per SM the register budget must allow (which caps registers per thread). The first is
/// the rung's shape before tuning.
constexpr Variant candidates[] = {
    {.name = "wide_vec4_prefetch_r8_b128_m5", .launch = launch_tiled_vec4<128, 1, 8, true, 5>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 8, true, 5>},
    {.name = "wide_vec4_prefetch_r64", .launch = launch_tiled_vec4<128, 1, 64, true, 4>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 64, true, 4>},
    {.name = "wide_vec4_prefetch_r128", .launch = launch_tiled_vec4<128, 1, 128, true, 4>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 128, true, 4>},
    {.name = "wide_vec4_prefetch", .launch = launch_tiled_vec4<256, 1, 32, true, 2>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<256, 1, 32, true, 2>},
    {.name = "wide_vec4_prefetch_r16_b256", .launch = launch_tiled_vec4<256, 1, 16, true, 2>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<256, 1, 16, true, 2>},
    {.name = "wide_vec4_prefetch_r8_b256", .launch = launch_tiled_vec4<256, 1, 8, true, 2>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<256, 1, 8, true, 2>},
    {.name = "wide_vec4_prefetch_r8_b256_m3", .launch = launch_tiled_vec4<256, 1, 8, true, 3>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<256, 1, 8, true, 3>},
    {.name = "wide_vec4_prefetch_r6_b256_m3", .launch = launch_tiled_vec4<256, 1, 6, true, 3>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<256, 1, 6, true, 3>},
    {.name = "wide_vec4_prefetch_r8_b128_m6", .launch = launch_tiled_vec4<128, 1, 8, true, 6>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 8, true, 6>},
    {.name = "wide_vec4_prefetch_r6_b128_m5", .launch = launch_tiled_vec4<128, 1, 6, true, 5>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 6, true, 5>},
    {.name = "wide_vec4_prefetch_r12_b128_m5", .launch = launch_tiled_vec4<128, 1, 12, true, 5>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 12, true, 5>},
    {.name = "wide_vec4_prefetch_r10_b128_m5", .launch = launch_tiled_vec4<128, 1, 10, true, 5>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<128, 1, 10, true, 5>},
    {.name = "wide_vec4_prefetch_r12_b64_m10", .launch = launch_tiled_vec4<64, 1, 12, true, 10>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<64, 1, 12, true, 10>},
    {.name = "wide_vec4_prefetch_r8_b64_m10", .launch = launch_tiled_vec4<64, 1, 8, true, 10>,
     .teaches = "", .reads_memory = kReads, .family = kFamily, .facts = tiled_vec4_facts<64, 1, 8, true, 10>},
};
// [prefetch_candidates]

}  // namespace

void rungs::tiled_vec4_prefetch(const StepArgs& a, cudaStream_t stream) { candidates[0].launch(a, stream); }
LaunchFacts rungs::tiled_vec4_prefetch_facts() { return candidates[0].facts(); }
std::span<const Variant> rungs::tiled_vec4_prefetch_candidates() { return candidates; }

}  // namespace wave
