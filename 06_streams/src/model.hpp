/// \file model.hpp
/// \brief The host-side half of the streams chapter: how a buffer is cut into chunks, in which order the
/// chunk operations are issued, the pipeline model T(N), and a small simulator of the GPU's hardware work
/// queues that predicts the false dependencies of each issue order. No CUDA here: all of it is tested on CI.
#pragma once
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "timeline.hpp"

namespace streams {

/// The constants of the kernel's arithmetic chain v <- fma(v, a, b). The fixed point is 1, so values that
/// start in [0, 1) stay there: no overflow, no denormals, and the result still depends on the input.
inline constexpr float chain_a = 0.9999f;
inline constexpr float chain_b = 1.0e-4f;

/// The CPU reference of one element of the kernel: `iterations` fused multiply-adds. std::fma rounds once,
/// exactly like the GPU's fmaf, so GPU and CPU agree bit for bit.
inline float fma_chain_reference(float x, int iterations) {
  for (int i = 0; i < iterations; ++i) x = std::fma(x, chain_a, chain_b);
  return x;
}

/// One chunk of the buffer: elements [begin, begin + count).
struct ChunkRange {
  std::size_t begin = 0;
  std::size_t count = 0;
};

/// Chunk `index` of `chunks` over `elements`: the first elements % chunks chunks get one element more, so
/// sizes differ by at most one and any chunk count works, dividing the size or not.
ChunkRange chunk_range(std::size_t elements, int chunks, int index);

/// Throws course::UsageError unless 1 <= streams, 1 <= chunks <= elements (every chunk non-empty).
void validate_pipeline_shape(std::size_t elements, int chunks, int streams);

/// The three operations of a chunk, in stream order.
enum class OpKind : char { h2d = 'H', kernel = 'K', d2h = 'D' };

/// One operation of the issue loop: which chunk, which step.
struct PipelineOp {
  int chunk = 0;
  OpKind kind = OpKind::h2d;
  friend bool operator==(const PipelineOp&, const PipelineOp&) = default;
};

/// The orders in which the host can issue the chunks' operations.
enum class IssueOrder {
  depth_first,    ///< chunk by chunk: H0 K0 D0 H1 K1 D1 …  (the natural loop)
  breadth_first,  ///< step by step: H0 H1 … K0 K1 … D0 D1 …
  staggered,      ///< software-pipelined: H(i) K(i-1) D(i-2) per step
};

/// "depth_first", "breadth_first", "staggered".
std::string issue_order_name(IssueOrder order);
/// The order issue_order_name gives `name`; throws std::invalid_argument for any other name.
IssueOrder issue_order_from_name(const std::string& name);
/// All three orders, in the order the lesson shows them.
std::vector<IssueOrder> all_issue_orders();

/// One command of a chain of dependent commands: chain c (which runs in stream c), step s of it.
struct StepOp {
  int chain = 0;
  int step = 0;
  friend bool operator==(const StepOp&, const StepOp&) = default;
};

/// The issue loop: `chains` chains of `steps` dependent commands each, every (chain, step) exactly once and
/// each chain's steps in order. Defined in issue_order.cpp (its breadth-first order is exercise 06.1).
std::vector<StepOp> issue_steps(int chains, int steps, IssueOrder order);

/// The pipeline's issue sequence for `chunks` chunks: issue_steps(chunks, 3, order) with steps 0, 1, 2
/// read as H, K, D.
std::vector<PipelineOp> issue_sequence(int chunks, IssueOrder order);

/// The model of the chunked pipeline. h, k, d: the full-size times of the host→device copy, the kernel and
/// the device→host copy; `chunks` = N. With two copy engines the three stages run concurrently:
///   T(N) = (h + k + d) / N + (N − 1) / N · max(h, k, d);
/// with one copy engine both copies share it: max(h + d, k) replaces max(h, k, d). T(1) = h + k + d.
double pipeline_model_ms(double h, double k, double d, int chunks, int copy_engines);

/// The same model on a link without full duplex: `both` is the measured time of the two full-size copies
/// at once, the pace of the steady state, where one H2D and one D2H are always in flight together. With
/// two copy engines the bottleneck is max(h, k, d, both); on a full-duplex link both = max(h, d) and this is
/// pipeline_model_ms. One copy engine: as pipeline_model_ms.
double pipeline_model_duplex_ms(double h, double k, double d, double both, int chunks, int copy_engines);

/// What the queue simulator needs: per-chunk operation times and the machine's shape.
struct QueueMachine {
  int streams = 1;        ///< chunk c runs in stream c % streams
  int connections = 8;    ///< hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS); stream s uses s % connections
  int copy_engines = 2;   ///< 1: both copy directions share one engine
  double h2d_ms = 0;      ///< one chunk's host→device copy
  double kernel_ms = 0;   ///< one chunk's kernel (big grid: kernels run one after another)
  double d2h_ms = 0;      ///< one chunk's device→host copy
  /// true: copies do not go through the connections but through the copy engines' own queues (what a
  /// GPU since Kepler measures); false: the lecture's single work queue (Fermi), copies included.
  bool copies_bypass_connections = false;
};

/// Predicts the timeline of an issue sequence on in-order hardware queues: an operation leaves the head of
/// its queue once the previous operation of its stream has finished (a waiting head blocks everything
/// behind it: the false dependency), then runs on its engine (H2D copy, D2H copy, compute) in FIFO order.
/// Returns the predicted timeline, one row per stream; its end is the predicted wall time.
Timeline simulate_hardware_queues(std::span<const PipelineOp> sequence, const QueueMachine& machine,
                                  const std::string& name);

/// The false-dependency machine: `streams` chains of small-grid kernels (chain c in stream c, stream s on
/// connection s % connections), each kernel `kernel_ms` long. Small grids leave the GPU room for all of
/// them, so a kernel runs as soon as it leaves its queue.
struct ChainMachine {
  int streams = 4;
  int connections = 8;
  double kernel_ms = 1.0;
};

/// Predicts the timeline of a kernel-chain issue sequence on in-order hardware queues (same rule as
/// simulate_hardware_queues: a head that waits for its own stream blocks everything behind it). One row per
/// stream; interval chunk = chain · steps + step. With one queue and S chains of k steps, depth-first
/// issue takes ((k − 1)·S + 1) kernels' time, breadth-first k.
Timeline simulate_kernel_chains(std::span<const StepOp> sequence, int steps, const ChainMachine& machine,
                                const std::string& name);

/// For the recorded or simulated timeline of kernel chains: the latest start of a first step minus the
/// earliest end of one. Negative: every chain's first kernel was running at one moment (no false
/// dependency held any of them back).
double first_step_spread_ms(const Timeline& timeline, int steps);

}  // namespace streams
