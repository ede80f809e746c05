/// \file rungs.hpp
/// \brief What each rung's file (src/rungs/<rung>.cu) gives the variant table: its launcher(s), the facts
/// of its launch, and a tuned rung's candidates. The kernels themselves stay inside their files.
#pragma once
#include <span>

#include "kernels.cuh"

namespace wave {

/// The shared_tile rung (src/rungs/shared_tile.cu, exercise 07.3, whose handout and known-wrong answers
/// keep this name): one step of rows [args.row_begin, args.row_end), each block staging its cells'
/// stars in shared memory.
void launch_shared_tile(const StepArgs& args, cudaStream_t stream);

}  // namespace wave

namespace wave::rungs {

void naive_global(const StepArgs& a, cudaStream_t stream);
LaunchFacts naive_global_facts();

void shared_line(const StepArgs& a, cudaStream_t stream);
LaunchFacts shared_line_facts();
void shared_line_ldg(const StepArgs& a, cudaStream_t stream);
LaunchFacts shared_line_ldg_facts();
void shared_line_padded(const StepArgs& a, cudaStream_t stream);
LaunchFacts shared_line_padded_facts();
void shared_line_tuned(const StepArgs& a, cudaStream_t stream);
LaunchFacts shared_line_tuned_facts();

void tiled_l1(const StepArgs& a, cudaStream_t stream);
LaunchFacts tiled_l1_facts();

void tiled_vec4(const StepArgs& a, cudaStream_t stream);
LaunchFacts tiled_vec4_facts();

/// The tuned rungs: the shape before tuning (their family's first candidate) and the family.
void tiled_vec4_prefetch(const StepArgs& a, cudaStream_t stream);
LaunchFacts tiled_vec4_prefetch_facts();
std::span<const Variant> tiled_vec4_prefetch_candidates();

void pipelined(const StepArgs& a, cudaStream_t stream);
LaunchFacts pipelined_facts();
std::span<const Variant> pipelined_candidates();

void temporal_2(const StepArgs& a, const PassTargets& t, cudaStream_t stream);
LaunchFacts temporal_2_facts();
std::span<const Variant> temporal_2_candidates();
void temporal_3(const StepArgs& a, const PassTargets& t, cudaStream_t stream);
LaunchFacts temporal_3_facts();
std::span<const Variant> temporal_3_candidates();
void temporal_4(const StepArgs& a, const PassTargets& t, cudaStream_t stream);
LaunchFacts temporal_4_facts();
std::span<const Variant> temporal_4_candidates();

}  // namespace wave::rungs
