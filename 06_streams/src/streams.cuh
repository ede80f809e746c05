/// \file streams.cuh
/// \brief The GPU half of the streams chapter: the kernel of tunable arithmetic intensity, the timeline
/// recorder (an event pair around every operation, all measured from one base event), the chunked
/// H2D → kernel → D2H pipeline over several streams in any issue order, and the measurements each
/// scenario of the program is made of (the tests call the same functions).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/stats.hpp"
#include "common/timing.cuh"
#include "model.hpp"
#include "timeline.hpp"

namespace streams {

using course::Event;
using course::Stream;
using course::Stats;

/// Threads per block of every launch in this chapter.
inline constexpr unsigned block_size = 256;

/// Launches fma_chain: out[i] = `iterations` dependent fused multiply-adds starting from in[i], for
/// i < n (grid-stride loop, so any grid works). `blocks` = 0 means one thread per element (a big grid);
/// a small number makes a small grid that leaves most SMs free for other streams. No launch when n = 0.
/// Time grows linearly with `iterations`: that is the knob that balances the kernel against the copies.
void launch_fma_chain(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream,
                      unsigned blocks = 0);

/// Fills `host` with deterministic pseudo-random values in [0, 1).
void fill_inputs(std::span<float> host, std::uint32_t seed);

/// Records an event pair around each operation and turns them into a Timeline measured from one base
/// event. Events are pooled and reused, so a long sweep creates them once.
class OpRecorder {
 public:
  /// Starts a new timeline (keeps the event pool).
  void reset(std::string name, std::vector<std::string> rows);
  /// Makes sure `pairs` operations can be recorded without creating events while enqueueing.
  void reserve(std::size_t pairs);
  /// Records the base event (time 0) on `stream`.
  void record_base(cudaStream_t stream) { base_.record(stream); }
  const Event& base() const noexcept { return base_; }
  /// Enqueues `enqueue()` on `stream` between two recorded events; the interval goes on row `row`.
  template <class Enqueue>
  void op(cudaStream_t stream, int row, char kind, int chunk, std::string label, Enqueue&& enqueue) {
    const std::size_t first = next_event();
    pool_[first].record(stream);
    enqueue();
    const std::size_t second = next_event();
    pool_[second].record(stream);
    pending_.push_back({row, kind, chunk, std::move(label), first, second});
  }
  /// Waits for every recorded event and returns the timeline (milliseconds since the base event).
  Timeline collect();

 private:
  std::size_t next_event();
  struct Pending {
    int row;
    char kind;
    int chunk;
    std::string label;
    std::size_t begin_event, end_event;
  };
  Event base_;
  std::vector<Event> pool_;
  std::size_t used_ = 0;
  std::vector<Pending> pending_;
  std::string name_;
  std::vector<std::string> rows_;
};

/// The shape of one pipeline run.
struct PipelineShape {
  std::size_t elements = 0;
  int chunks = 1;            ///< N: chunk c is elements chunk_range(elements, N, c)
  int streams = 1;           ///< chunk c runs in stream c % streams
  IssueOrder order = IssueOrder::depth_first;
  int kernel_iterations = 1;
};

/// What one pipeline run measured.
struct PipelineRun {
  double wall_ms = 0;          ///< base event → the last stream's final event (GPU clock)
  double host_enqueue_ms = 0;  ///< host time spent issuing every operation (steady clock)
  bool blocker_too_short = false;
  Timeline timeline;           ///< one interval per operation when recorded, else empty
};

/// Host work run in stream order after a chunk's device→host copy (cudaLaunchHostFunc). Called with the
/// chunk index; it must not call CUDA.
using ChunkHostWork = std::function<void(int chunk)>;

/// Runs the chunked H2D → kernel → D2H pipeline on its own streams.
class PipelineRunner {
 public:
  /// Creates `max_streams` streams with `stream_flags`. The default, cudaStreamDefault, gives the ordinary
  /// (blocking) streams that cudaStreamCreate makes: the pipeline runs on the kind of stream most programs
  /// use, and a DeviceBuffer::fill_bytes made before a run is ordered before it (cudaMemset may return
  /// before it has finished).
  explicit PipelineRunner(int max_streams, unsigned stream_flags = cudaStreamDefault);

  /// One run. `host_in`/`host_out` pinned or pageable; `dev_in`/`dev_out` at least shape.elements long.
  /// `blocker_ms` > 0: a spin kernel holds every stream while the host enqueues, so the host's issue cost
  /// stays out of the measured interval (blocker_too_short says whether it was long enough).
  /// `record_ops`: put an event pair around every operation and return the timeline.
  /// `host_work`: if set, enqueued with cudaLaunchHostFunc after each chunk's D2H.
  PipelineRun run(const PipelineShape& shape, const float* host_in, float* host_out, float* dev_in,
                  float* dev_out, double blocker_ms, bool record_ops, const std::string& name = "pipeline",
                  const ChunkHostWork* host_work = nullptr);

  cudaStream_t stream(int i) const { return streams_.at(static_cast<std::size_t>(i)).get(); }

 private:
  std::vector<Stream> streams_;
  std::vector<Event> done_;
  OpRecorder recorder_;
  std::vector<std::pair<const ChunkHostWork*, int>> host_work_args_;
};

/// Timed repetitions of a pipeline (without per-operation events, so they cannot perturb the time) and
/// one extra recorded run for the timeline.
struct PipelineMeasurement {
  Stats wall;        ///< ms, over the timed repetitions
  PipelineRun recorded;
  double blocker_ms = 0;
};

/// Measures `shape`. `hold_enqueue`: use (and size) the blocker, so a sweep to many chunks measures the
/// GPU, not the host's issue rate; pageable runs pass false (their copies block the host anyway).
PipelineMeasurement measure_pipeline(PipelineRunner& runner, const PipelineShape& shape, const float* host_in,
                                     float* host_out, float* dev_in, float* dev_out, course::TimingOptions timing,
                                     bool hold_enqueue, const std::string& name);

/// The device memory of ring_pipeline: `capacity` floats for the inputs (`in`) and as many for the
/// outputs (`out`). Not owned.
struct DeviceRing {
  float* in = nullptr;
  float* out = nullptr;
  std::size_t capacity = 0;
};

/// The ring of the `ring_pipeline` scenario: a quarter of the buffer each way (at least one element),
/// too small to hold it, so a pipeline through it must reuse its device memory.
inline std::size_t ring_capacity(std::size_t elements) { return elements / 4 > 0 ? elements / 4 : 1; }

/// Exercise 06.3: host_out[i] = fma_chain(host_in[i], iterations) for every i < n, as launch_fma_chain
/// computes it, moving the data through the device ring `ring` only (no other device memory), on the
/// streams `streams` (at least one; use any of them). `host_in` and `host_out` are n floats of pinned
/// memory; `host_in` is left unchanged. Returns once every result is in `host_out` and no work it issued
/// is pending. Throws std::invalid_argument for n = 0, an empty ring or no stream.
void ring_pipeline(const float* host_in, float* host_out, std::size_t n, int iterations, const DeviceRing& ring,
                   std::span<const cudaStream_t> streams);

/// Kernel chains for the false dependency: stream c runs `steps` dependent one-block kernels, each spinning
/// `kernel_ms` on the GPU's global timer, then updating value[c] = value[c] · 31 + step + 1 (so a step that
/// ran out of order would change the result). Each kernel writes its own start and end time (global
/// timer): the timeline costs no extra command in the queues, so it cannot create or hide a false
/// dependency, and it is recorded in every run.
std::uint32_t chain_value_reference(int chain, int steps);

struct KernelChainRun {
  double wall_ms = 0;          ///< base event → the last stream's final event
  double host_enqueue_ms = 0;
  bool blocker_too_short = false;
  std::vector<std::uint32_t> values;  ///< value[c] after the run, per chain
  Timeline timeline;           ///< from the kernels' own time stamps; time 0 = the first kernel's start
};

class KernelChainRunner {
 public:
  explicit KernelChainRunner(int streams);
  KernelChainRun run(int steps, IssueOrder order, double kernel_ms, double blocker_ms, const std::string& name);
  int streams() const { return static_cast<int>(streams_.size()); }

 private:
  std::vector<Stream> streams_;
  std::vector<Event> done_;
  Event base_;
  course::DeviceBuffer<unsigned long long> stamps_;
  course::DeviceBuffer<std::uint32_t> values_;
};

struct KernelChainMeasurement {
  Stats wall;
  KernelChainRun last;  ///< the last timed run (its timeline is as timed: the stamps perturb nothing)
  double blocker_ms = 0;
};
/// Warm-up, then `timing.reps` runs; the blocker is sized so the host's issue cost stays out of the wall.
KernelChainMeasurement measure_kernel_chains(KernelChainRunner& runner, int steps, IssueOrder order, double kernel_ms,
                                             course::TimingOptions timing, const std::string& name);

/// The three full-size stage times and the kernel iteration count that balances them.
struct Calibration {
  double h2d_ms = 0;           ///< full buffer host→device, pinned
  double d2h_ms = 0;           ///< full buffer device→host, pinned
  double both_copies_ms = 0;   ///< both copies at once (two engines: close to max(h2d, d2h) if the link is full duplex)
  double kernel_ms = 0;        ///< fma_chain over the full buffer at kernel_iterations
  int kernel_iterations = 0;
  double ms_per_iteration = 0; ///< fitted slope of kernel time against iterations
  double kernel_floor_ms = 0;  ///< fitted intercept: the memory traffic that no iteration count removes
};

/// Measures H, D and both copies at once for `elements` floats, then fits the kernel time against its
/// iteration count and picks the count that makes K ≈ both_copies_ms: the pace of the pipeline's steady
/// state, where an H2D and a D2H are always in flight together. `fixed_iterations` > 0 skips the fit and uses that count.
Calibration calibrate_balanced(const float* host_in, float* host_out, float* dev_in, float* dev_out,
                               std::size_t elements, course::TimingOptions timing, int fixed_iterations = 0);

/// Kernel concurrency: `kernels` launches of fma_chain, first one after the other in one stream, then each
/// in its own stream. Big grid: each launch covers elements/kernels elements with one thread per element.
/// Small grid: each launch has `small_blocks` blocks.
struct ConcurrencyResult {
  double one_launch_ms = 0;     ///< big grid only: the whole buffer in a single launch
  double serial_ms = 0;         ///< the launches in one stream
  double concurrent_ms = 0;     ///< the launches in separate streams
  Timeline serial, concurrent;  ///< recorded timelines
};
ConcurrencyResult measure_kernel_concurrency(float* dev_in, float* dev_out, std::size_t elements, int kernels,
                                             int iterations, unsigned small_blocks, course::TimingOptions timing,
                                             const std::string& name);

/// Iterations that make a launch of `blocks` blocks (or a big grid over `elements` when blocks = 0) take
/// about `target_ms` (linear fit from two short runs).
int iterations_for(float* dev_in, float* dev_out, std::size_t elements, unsigned blocks, double target_ms);

/// The default streams: three spin kernels of `kernel_ms` each, in stream A, in a default stream, in
/// stream B (issued in that order). `default_stream` is cudaStreamLegacy or cudaStreamPerThread;
/// `blocking_streams`: A and B created with cudaStreamDefault (they synchronise with the legacy default
/// stream) rather than cudaStreamNonBlocking.
struct DefaultStreamResult {
  Stats wall;
  Timeline timeline;
};
DefaultStreamResult measure_default_stream(cudaStream_t default_stream, bool blocking_streams, double kernel_ms,
                                           course::TimingOptions timing, const std::string& name);

/// Host and device at work together: a kernel of `kernel` launches, the host works for `host_ms`, then
/// waits. Returns host-clock times (ms): the launch call alone, the kernel alone (launch + sync),
/// the host work alone, the launch + work + sync together.
struct HostDeviceResult {
  double launch_call_ms = 0, kernel_ms = 0, host_work_ms = 0, together_ms = 0;
};
HostDeviceResult measure_host_device(float* dev_in, float* dev_out, std::size_t elements, int iterations,
                                     double host_ms, course::TimingOptions timing);

/// Busy host work for `ms` milliseconds (a stand-in for real CPU work; it spins, it does not sleep).
void busy_host_work(double ms);

/// Order-independent checksum of float bits (XOR), cheap enough to run in a host function.
std::uint32_t xor_checksum(std::span<const float> values);

}  // namespace streams
