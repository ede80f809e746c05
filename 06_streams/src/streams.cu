#include "streams.cuh"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "common/check.cuh"

namespace streams {

namespace {

// [fma_chain_kernel]
// Each element goes through `iterations` dependent FMAs: the arithmetic intensity is a knob, from
// memory-bound (a few iterations) to as compute-bound as we like. Dependent FMAs cannot be merged or
// reordered by the compiler (no fast-math), so the time grows linearly with `iterations`.
__global__ void fma_chain_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                 int iterations) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = in[i];
    for (int it = 0; it < iterations; ++it) v = fmaf(v, chain_a, chain_b);
    out[i] = v;
  }
}
// [fma_chain_kernel]

void CUDART_CB call_host_work(void* arg) {
  // Host functions must not throw into the driver's thread; the work we run does not.
  const auto* work = static_cast<const std::pair<const ChunkHostWork*, int>*>(arg);
  (*work->first)(work->second);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::uint64_t to_ns(double ms) { return static_cast<std::uint64_t>(std::max(0.0, ms) * 1e6); }

}  // namespace

void launch_fma_chain(const float* in, float* out, std::size_t n, int iterations, cudaStream_t stream,
                      unsigned blocks) {
  if (n == 0) return;
  if (blocks == 0) blocks = static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, 0x7fffffffu));
  fma_chain_kernel<<<blocks, block_size, 0, stream>>>(in, out, n, iterations);
  CUDA_CHECK_LAUNCH();
}

void fill_inputs(std::span<float> host, std::uint32_t seed) {
  for (std::size_t i = 0; i < host.size(); ++i) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 0x9E3779B9u ^ seed ^ static_cast<std::uint32_t>(i >> 32);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    host[i] = static_cast<float>(x >> 8) * (1.0f / 16777216.0f);  // 24 bits: exact in a float, in [0, 1)
  }
}

// ---------------------------------------------------------------------------------------------------------
// OpRecorder

void OpRecorder::reset(std::string name, std::vector<std::string> rows) {
  name_ = std::move(name);
  rows_ = std::move(rows);
  pending_.clear();
  used_ = 0;
}

void OpRecorder::reserve(std::size_t pairs) {
  while (pool_.size() < 2 * pairs) pool_.emplace_back();
}

std::size_t OpRecorder::next_event() {
  if (used_ == pool_.size()) pool_.emplace_back();
  return used_++;
}

// [recorder_collect]
Timeline OpRecorder::collect() {
  Timeline tl{name_, rows_, {}};
  for (const auto& p : pending_) {
    pool_[p.end_event].synchronize();
    // Every time is an elapsed time from the same base event: one clock for all streams.
    tl.intervals.push_back({p.row, p.kind, p.chunk, p.label, pool_[p.begin_event].elapsed_ms_since(base_),
                            pool_[p.end_event].elapsed_ms_since(base_)});
  }
  return tl;
}
// [recorder_collect]

// ---------------------------------------------------------------------------------------------------------
// PipelineRunner

namespace {

// One operation of one chunk, enqueued on the chunk's stream: its H2D copy, its kernel or its D2H copy.
// BEGIN SOLUTION 06.2
#ifndef COURSE_STUB_06_2
void enqueue_chunk_op(OpKind kind, ChunkRange r, const float* host_in, float* host_out, float* dev_in,
                      float* dev_out, int kernel_iterations, cudaStream_t stream) {
  const std::size_t bytes = r.count * sizeof(float);
  // Every operation goes to `stream` and nowhere else: the stream's order is the only dependency a chunk
  // has. A command on the legacy default stream would wait for all the work issued before it in every
  // blocking stream, and all the work issued after it would wait for it.
  switch (kind) {
    case OpKind::h2d:
      CUDA_CHECK(cudaMemcpyAsync(dev_in + r.begin, host_in + r.begin, bytes, cudaMemcpyHostToDevice, stream));
      break;
    case OpKind::kernel:
      launch_fma_chain(dev_in + r.begin, dev_out + r.begin, r.count, kernel_iterations, stream);
      break;
    case OpKind::d2h:
      CUDA_CHECK(cudaMemcpyAsync(host_out + r.begin, dev_out + r.begin, bytes, cudaMemcpyDeviceToHost, stream));
      break;
  }
}
#else
void enqueue_chunk_op(OpKind kind, ChunkRange r, const float* host_in, float* host_out, float* dev_in,
                      float* dev_out, int kernel_iterations, cudaStream_t stream) {
  // TODO (exercise 06.2): every chunk comes out right, but the pipeline's timeline shows one operation at
  // a time: no copy overlaps a kernel, at any chunk count. Find out why and fix it.
  const std::size_t bytes = r.count * sizeof(float);
  switch (kind) {
    case OpKind::h2d:
      CUDA_CHECK(cudaMemcpyAsync(dev_in + r.begin, host_in + r.begin, bytes, cudaMemcpyHostToDevice, stream));
      break;
    case OpKind::kernel:
      launch_fma_chain(dev_in + r.begin, dev_out + r.begin, r.count, kernel_iterations, stream);
      break;
    case OpKind::d2h:
      CUDA_CHECK(cudaMemcpyAsync(host_out + r.begin, dev_out + r.begin, bytes, cudaMemcpyDeviceToHost));
      break;
  }
}
#endif
// END SOLUTION 06.2

}  // namespace

PipelineRunner::PipelineRunner(int max_streams, unsigned stream_flags) {
  if (max_streams < 1) throw course::UsageError("the number of streams must be at least 1");
  for (int i = 0; i < max_streams; ++i) {
    streams_.emplace_back(stream_flags);
    done_.emplace_back(cudaEventDefault);
  }
}

PipelineRun PipelineRunner::run(const PipelineShape& shape, const float* host_in, float* host_out, float* dev_in,
                                float* dev_out, double blocker_ms, bool record_ops, const std::string& name,
                                const ChunkHostWork* host_work) {
  validate_pipeline_shape(shape.elements, shape.chunks, shape.streams);
  if (static_cast<std::size_t>(shape.streams) > streams_.size())
    throw std::invalid_argument("PipelineRunner::run: more streams than the runner owns");
  const int stream_count = std::min(shape.streams, shape.chunks);  // a stream without a chunk would idle
  const std::vector<PipelineOp> sequence = issue_sequence(shape.chunks, shape.order);
  if (sequence.size() != 3 * static_cast<std::size_t>(shape.chunks))
    throw std::logic_error("issue_sequence must issue every chunk's H, K and D exactly once");

  std::vector<std::string> rows;
  for (int s = 0; s < stream_count; ++s) rows.push_back("stream " + std::to_string(s));
  recorder_.reset(name, rows);
  recorder_.reserve(sequence.size() + (host_work ? static_cast<std::size_t>(shape.chunks) : 0));
  host_work_args_.clear();
  for (int c = 0; c < shape.chunks; ++c) host_work_args_.emplace_back(host_work, c);  // stable addresses

  // [pipeline_issue]
  cudaStream_t first = streams_[0];
  if (blocker_ms > 0) course::launch_spin_kernel(to_ns(blocker_ms), first);  // holds the GPU while we issue
  recorder_.record_base(first);
  for (int s = 1; s < stream_count; ++s) CUDA_CHECK(cudaStreamWaitEvent(streams_[s], recorder_.base().get(), 0));

  const auto t0 = std::chrono::steady_clock::now();
  for (const PipelineOp& op : sequence) {
    const ChunkRange r = chunk_range(shape.elements, shape.chunks, op.chunk);
    const int row = op.chunk % stream_count;
    cudaStream_t s = streams_[static_cast<std::size_t>(row)];
    auto enqueue = [&] {
      enqueue_chunk_op(op.kind, r, host_in, host_out, dev_in, dev_out, shape.kernel_iterations, s);
    };
    if (record_ops) {
      const char* what = op.kind == OpKind::h2d ? "H2D " : op.kind == OpKind::d2h ? "D2H " : "kernel ";
      recorder_.op(s, row, static_cast<char>(op.kind), op.chunk, what + std::to_string(op.chunk), enqueue);
    } else {
      enqueue();
    }
    if (op.kind == OpKind::d2h && host_work) {
      // The host function runs when the stream reaches it: after this chunk's copy has landed.
      auto enqueue_host = [&] {
        CUDA_CHECK(cudaLaunchHostFunc(s, call_host_work, &host_work_args_[static_cast<std::size_t>(op.chunk)]));
      };
      if (record_ops) recorder_.op(s, row, 'C', op.chunk, "host " + std::to_string(op.chunk), enqueue_host);
      else enqueue_host();
    }
  }
  for (int s = 0; s < stream_count; ++s) done_[static_cast<std::size_t>(s)].record(streams_[static_cast<std::size_t>(s)]);
  // [pipeline_issue]

  PipelineRun run;
  run.host_enqueue_ms = ms_since(t0);
  run.blocker_too_short = blocker_ms > 0 && run.host_enqueue_ms > 0.8 * blocker_ms;
  for (int s = 0; s < stream_count; ++s) {
    done_[static_cast<std::size_t>(s)].synchronize();
    run.wall_ms = std::max<double>(run.wall_ms, done_[static_cast<std::size_t>(s)].elapsed_ms_since(recorder_.base()));
  }
  run.timeline = record_ops ? recorder_.collect() : Timeline{name, rows, {}};
  return run;
}

PipelineMeasurement measure_pipeline(PipelineRunner& runner, const PipelineShape& shape, const float* host_in,
                                     float* host_out, float* dev_in, float* dev_out, course::TimingOptions timing,
                                     bool hold_enqueue, const std::string& name) {
  PipelineMeasurement m;
  m.blocker_ms = hold_enqueue ? 1.0 : 0.0;
  auto run_once = [&](bool record) {
    for (int attempt = 0;; ++attempt) {
      PipelineRun r = runner.run(shape, host_in, host_out, dev_in, dev_out, m.blocker_ms, record, name);
      if (!r.blocker_too_short || attempt == 4) return r;
      m.blocker_ms = 2.0 * r.host_enqueue_ms + 0.5;  // the host was still issuing when the GPU started
    }
  };
  const int warmup = hold_enqueue ? std::max(timing.warmup, 1) : timing.warmup;
  for (int i = 0; i < warmup; ++i) {
    const PipelineRun r = run_once(false);
    if (hold_enqueue) m.blocker_ms = std::max(0.5, 2.0 * r.host_enqueue_ms + 0.5);
  }
  std::vector<double> walls;
  for (int i = 0; i < timing.reps; ++i) walls.push_back(run_once(false).wall_ms);
  m.wall = course::summarize(walls);
  m.recorded = run_once(true);
  return m;
}

// ---------------------------------------------------------------------------------------------------------
// The pipeline through a device ring (exercise 06.3)

void ring_pipeline(const float* host_in, float* host_out, std::size_t n, int iterations, const DeviceRing& ring,
                   std::span<const cudaStream_t> streams) {
  if (n == 0 || ring.capacity == 0 || ring.in == nullptr || ring.out == nullptr || streams.empty())
    throw std::invalid_argument("ring_pipeline: n, the ring and the streams must not be empty");
// BEGIN SOLUTION 06.3
#ifndef COURSE_STUB_06_3
  // One slot of the ring per stream, and a slot is reused only by the stream that owns it: stream order
  // alone makes a chunk's H2D into the slot wait for the D2H of the chunk before it out of the same slot.
  const std::size_t slots = std::min<std::size_t>(streams.size(), ring.capacity);
  const std::size_t slot_capacity = ring.capacity / slots;
  // At least four chunks per stream when the ring allows it: the pipeline fills and drains in one chunk's
  // time, so chunks must be small; each chunk costs a few microseconds more. Four per stream is N = 32 over
  // 8 streams, on the flat bottom of the chapter's chunk sweep (the lesson's sweep plot).
  const std::size_t per_stream = 4;
  const std::size_t wanted = (n + per_stream * slots - 1) / (per_stream * slots);
  const std::size_t chunk = std::min(slot_capacity, wanted);
  std::size_t chunk_index = 0;
  for (std::size_t begin = 0; begin < n; begin += chunk, ++chunk_index) {
    const std::size_t slot = chunk_index % slots;
    const std::size_t count = std::min(chunk, n - begin);
    float* slot_in = ring.in + slot * slot_capacity;
    float* slot_out = ring.out + slot * slot_capacity;
    cudaStream_t s = streams[slot];
    CUDA_CHECK(cudaMemcpyAsync(slot_in, host_in + begin, count * sizeof(float), cudaMemcpyHostToDevice, s));
    launch_fma_chain(slot_in, slot_out, count, iterations, s);
    CUDA_CHECK(cudaMemcpyAsync(host_out + begin, slot_out, count * sizeof(float), cudaMemcpyDeviceToHost, s));
  }
  for (std::size_t slot = 0; slot < slots; ++slot) CUDA_CHECK(cudaStreamSynchronize(streams[slot]));
#else
  // TODO (exercise 06.3): right, but one operation at a time: the whole ring, one stream, each chunk's
  // copy in, kernel and copy out one after the other. Make it as fast as the chapter's pipeline over
  // full-size device buffers (the `ring_pipeline` scenario times both), still through this ring only.
  cudaStream_t s = streams[0];
  for (std::size_t begin = 0; begin < n; begin += ring.capacity) {
    const std::size_t count = std::min(ring.capacity, n - begin);
    CUDA_CHECK(cudaMemcpyAsync(ring.in, host_in + begin, count * sizeof(float), cudaMemcpyHostToDevice, s));
    launch_fma_chain(ring.in, ring.out, count, iterations, s);
    CUDA_CHECK(cudaMemcpyAsync(host_out + begin, ring.out, count * sizeof(float), cudaMemcpyDeviceToHost, s));
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
#endif
// END SOLUTION 06.3
}

// ---------------------------------------------------------------------------------------------------------
// Kernel chains

namespace {
__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// [chain_step_kernel]
// One step of a chain: a single block that spins `spin_ns` on the global timer (a stand-in for ~1 ms of
// work that leaves almost the whole GPU free for other streams), then advances its chain's value and
// writes its own start and end time.
__global__ void chain_step_kernel(std::uint64_t spin_ns, std::uint32_t* value, int step, unsigned long long* stamps) {
  if (threadIdx.x != 0) return;
  const unsigned long long start = global_ns();
  unsigned long long now = start;
  while (now - start < spin_ns) now = global_ns();
  *value = *value * 31u + static_cast<std::uint32_t>(step + 1);
  stamps[0] = start;
  stamps[1] = now;
}
// [chain_step_kernel]
}  // namespace

std::uint32_t chain_value_reference(int chain, int steps) {
  std::uint32_t v = static_cast<std::uint32_t>(chain) + 1u;
  for (int s = 0; s < steps; ++s) v = v * 31u + static_cast<std::uint32_t>(s + 1);
  return v;
}

KernelChainRunner::KernelChainRunner(int streams) {
  if (streams < 1) throw course::UsageError("the number of streams must be at least 1");
  for (int i = 0; i < streams; ++i) {
    streams_.emplace_back(cudaStreamNonBlocking);
    done_.emplace_back(cudaEventDefault);
  }
  values_ = course::DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(streams));
}

KernelChainRun KernelChainRunner::run(int steps, IssueOrder order, double kernel_ms, double blocker_ms,
                                      const std::string& name) {
  const int chains = static_cast<int>(streams_.size());
  const std::vector<StepOp> sequence = issue_steps(chains, steps, order);
  if (sequence.size() != static_cast<std::size_t>(chains) * static_cast<std::size_t>(steps))
    throw std::logic_error("issue_steps must issue every chain's every step exactly once");
  const std::size_t stamp_count = 2 * sequence.size();
  if (stamps_.size() < stamp_count) stamps_ = course::DeviceBuffer<unsigned long long>(stamp_count);
  std::vector<std::uint32_t> initial(static_cast<std::size_t>(chains));
  for (int c = 0; c < chains; ++c) initial[static_cast<std::size_t>(c)] = static_cast<std::uint32_t>(c) + 1u;
  values_.upload(initial);
  stamps_.fill_bytes(0);
  CUDA_CHECK(cudaDeviceSynchronize());

  // [chain_issue]
  cudaStream_t first = streams_[0];
  if (blocker_ms > 0) course::launch_spin_kernel(to_ns(blocker_ms), first);  // holds the GPU while we issue
  base_.record(first);
  for (int c = 1; c < chains; ++c) CUDA_CHECK(cudaStreamWaitEvent(streams_[c], base_.get(), 0));
  const auto t0 = std::chrono::steady_clock::now();
  for (const StepOp& op : sequence) {
    const std::size_t slot = static_cast<std::size_t>(op.chain) * static_cast<std::size_t>(steps) +
                             static_cast<std::size_t>(op.step);
    chain_step_kernel<<<1, 32, 0, streams_[static_cast<std::size_t>(op.chain)]>>>(
        to_ns(kernel_ms), values_.data() + op.chain, op.step, stamps_.data() + 2 * slot);
    CUDA_CHECK_LAUNCH();
  }
  for (int c = 0; c < chains; ++c) done_[static_cast<std::size_t>(c)].record(streams_[static_cast<std::size_t>(c)]);
  // [chain_issue]

  KernelChainRun run;
  run.host_enqueue_ms = ms_since(t0);
  run.blocker_too_short = blocker_ms > 0 && run.host_enqueue_ms > 0.8 * blocker_ms;
  for (int c = 0; c < chains; ++c) {
    done_[static_cast<std::size_t>(c)].synchronize();
    run.wall_ms = std::max<double>(run.wall_ms, done_[static_cast<std::size_t>(c)].elapsed_ms_since(base_));
  }
  std::vector<unsigned long long> stamps(stamp_count);
  CUDA_CHECK(cudaMemcpy(stamps.data(), stamps_.data(), stamp_count * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  run.values.resize(static_cast<std::size_t>(chains));
  values_.download(run.values);
  unsigned long long origin = ~0ull;
  for (std::size_t i = 0; i < sequence.size(); ++i) origin = std::min(origin, stamps[2 * i]);
  run.timeline.name = name;
  for (int c = 0; c < chains; ++c) run.timeline.rows.push_back("stream " + std::to_string(c));
  for (int c = 0; c < chains; ++c)
    for (int st = 0; st < steps; ++st) {
      const std::size_t slot = static_cast<std::size_t>(c) * static_cast<std::size_t>(steps) + static_cast<std::size_t>(st);
      if (stamps[2 * slot + 1] < stamps[2 * slot]) throw std::runtime_error("kernel chain: a step did not run");
      run.timeline.intervals.push_back({c, 'K', c * steps + st, "kernel " + std::to_string(c) + "." + std::to_string(st),
                                        1e-6 * static_cast<double>(stamps[2 * slot] - origin),
                                        1e-6 * static_cast<double>(stamps[2 * slot + 1] - origin)});
    }
  return run;
}

KernelChainMeasurement measure_kernel_chains(KernelChainRunner& runner, int steps, IssueOrder order, double kernel_ms,
                                             course::TimingOptions timing, const std::string& name) {
  KernelChainMeasurement m;
  m.blocker_ms = 1.0;
  for (int i = 0; i < std::max(timing.warmup, 1); ++i) {
    const KernelChainRun r = runner.run(steps, order, kernel_ms, m.blocker_ms, name);
    m.blocker_ms = std::max(0.5, 2.0 * r.host_enqueue_ms + 0.5);
  }
  std::vector<double> walls;
  for (int i = 0; i < std::max(timing.reps, 1); ++i) {
    m.last = runner.run(steps, order, kernel_ms, m.blocker_ms, name);
    walls.push_back(m.last.wall_ms);
  }
  m.wall = course::summarize(walls);
  return m;
}

// ---------------------------------------------------------------------------------------------------------
// Calibration

namespace {
double time_kernel_ms(float* dev_in, float* dev_out, std::size_t n, unsigned blocks, int iterations,
                      course::TimingOptions timing, cudaStream_t stream) {
  return course::time_gpu([&](cudaStream_t s) { launch_fma_chain(dev_in, dev_out, n, iterations, s, blocks); },
                          timing, stream)
      .median;
}
}  // namespace

int iterations_for(float* dev_in, float* dev_out, std::size_t elements, unsigned blocks, double target_ms) {
  const std::size_t n = blocks ? std::min<std::size_t>(elements, std::size_t{blocks} * block_size) : elements;
  const course::TimingOptions quick{1, 3};
  Stream stream;
  long long iterations = 256;
  double t = time_kernel_ms(dev_in, dev_out, n, blocks, static_cast<int>(iterations), quick, stream);
  // Grow until the iterations dominate the fixed costs (launch, memory traffic), then scale linearly.
  while (t < target_ms / 8 && iterations < (1LL << 28)) {
    iterations *= 4;
    t = time_kernel_ms(dev_in, dev_out, n, blocks, static_cast<int>(iterations), quick, stream);
  }
  for (int pass = 0; pass < 2 && t > 0; ++pass) {
    iterations = std::clamp<long long>(std::llround(static_cast<double>(iterations) * target_ms / t), 1, 1LL << 30);
    t = time_kernel_ms(dev_in, dev_out, n, blocks, static_cast<int>(iterations), quick, stream);
  }
  return static_cast<int>(iterations);
}

// [calibrate]
Calibration calibrate_balanced(const float* host_in, float* host_out, float* dev_in, float* dev_out,
                               std::size_t elements, course::TimingOptions timing, int fixed_iterations) {
  Calibration c;
  const std::size_t bytes = elements * sizeof(float);
  Stream s1, s2;
  Event fork(cudaEventDisableTiming), join(cudaEventDisableTiming);
  c.h2d_ms = course::time_gpu(
      [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, s)); },
      timing, s1).median;
  c.d2h_ms = course::time_gpu(
      [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, s)); },
      timing, s1).median;
  c.both_copies_ms = course::time_gpu(
      [&](cudaStream_t s) {
        fork.record(s);
        CUDA_CHECK(cudaStreamWaitEvent(s2, fork.get(), 0));
        CUDA_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, s2));
        join.record(s2);
        CUDA_CHECK(cudaStreamWaitEvent(s, join.get(), 0));
      },
      timing, s1).median;

  // Kernel time is linear in the iteration count: fit it from two points, then aim at the copies.
  const int low = 16, high = 512;
  const double t_low = time_kernel_ms(dev_in, dev_out, elements, 0, low, timing, s1);
  const double t_high = time_kernel_ms(dev_in, dev_out, elements, 0, high, timing, s1);
  c.ms_per_iteration = std::max(1e-9, (t_high - t_low) / (high - low));
  c.kernel_floor_ms = std::max(0.0, t_low - c.ms_per_iteration * low);
  // The steady state of the pipeline has an H2D and a D2H in flight together: that, not H or D alone, is
  // what the kernel must match for max(H, K, D) = K to be the true bottleneck.
  const double target = std::max({c.both_copies_ms, c.h2d_ms, c.d2h_ms});
  if (fixed_iterations > 0) {
    c.kernel_iterations = fixed_iterations;
  } else {
    c.kernel_iterations = static_cast<int>(
        std::clamp(std::llround((target - c.kernel_floor_ms) / c.ms_per_iteration), 1LL, 1LL << 26));
    for (int pass = 0; pass < 2; ++pass) {  // correct what the straight line missed
      const double t = time_kernel_ms(dev_in, dev_out, elements, 0, c.kernel_iterations, timing, s1);
      if (std::abs(t - target) < 0.02 * target) break;
      c.kernel_iterations = static_cast<int>(std::clamp(
          std::llround(c.kernel_iterations + (target - t) / c.ms_per_iteration), 1LL, 1LL << 26));
    }
  }
  c.kernel_ms = time_kernel_ms(dev_in, dev_out, elements, 0, c.kernel_iterations, timing, s1);
  return c;
}
// [calibrate]

// ---------------------------------------------------------------------------------------------------------
// Kernel concurrency

ConcurrencyResult measure_kernel_concurrency(float* dev_in, float* dev_out, std::size_t elements, int kernels,
                                             int iterations, unsigned small_blocks, course::TimingOptions timing,
                                             const std::string& name) {
  if (kernels < 1) throw course::UsageError("kernel concurrency needs at least one kernel");
  // Launch k covers `ranges[k]`; a small grid covers small_blocks × block_size elements per launch.
  std::vector<ChunkRange> ranges;
  for (int k = 0; k < kernels; ++k) {
    if (small_blocks == 0) {
      ranges.push_back(chunk_range(elements, kernels, k));
    } else {
      const std::size_t per = std::size_t{small_blocks} * block_size;
      if (per * static_cast<std::size_t>(kernels) > elements)
        throw course::UsageError("the buffer is too small for the small-grid kernels");
      ranges.push_back({per * static_cast<std::size_t>(k), per});
    }
  }
  const std::size_t total = ranges.back().begin + ranges.back().count;
  std::vector<Stream> streams(static_cast<std::size_t>(kernels));
  Event fork(cudaEventDisableTiming);
  std::vector<Event> joins;
  for (int k = 0; k < kernels; ++k) joins.emplace_back(cudaEventDisableTiming);
  auto launch = [&](int k, cudaStream_t s) {
    launch_fma_chain(dev_in + ranges[k].begin, dev_out + ranges[k].begin, ranges[k].count, iterations, s, small_blocks);
  };

  ConcurrencyResult r;
  cudaStream_t first = streams[0];
  const unsigned one_launch_blocks = small_blocks ? small_blocks * static_cast<unsigned>(kernels) : 0;
  r.one_launch_ms = time_kernel_ms(dev_in, dev_out, total, one_launch_blocks, iterations, timing, first);
  r.serial_ms = course::time_gpu([&](cudaStream_t s) { for (int k = 0; k < kernels; ++k) launch(k, s); }, timing, first).median;
  auto concurrent = [&](cudaStream_t s) {
    fork.record(s);
    for (int k = 1; k < kernels; ++k) CUDA_CHECK(cudaStreamWaitEvent(streams[k], fork.get(), 0));
    for (int k = 0; k < kernels; ++k) launch(k, k == 0 ? s : streams[k].get());
    for (int k = 1; k < kernels; ++k) {
      joins[k].record(streams[k]);
      CUDA_CHECK(cudaStreamWaitEvent(s, joins[k].get(), 0));
    }
  };
  r.concurrent_ms = course::time_gpu(concurrent, timing, first).median;

  std::vector<std::string> rows;
  for (int k = 0; k < kernels; ++k) rows.push_back("stream " + std::to_string(k));
  OpRecorder recorder;
  for (int variant = 0; variant < 2; ++variant) {
    const bool one_stream = variant == 0;
    recorder.reset(name + (one_stream ? ", one stream" : ", one stream each"), one_stream ? std::vector<std::string>{"stream 0"} : rows);
    recorder.reserve(static_cast<std::size_t>(kernels));
    recorder.record_base(first);
    for (int k = 1; k < kernels; ++k) CUDA_CHECK(cudaStreamWaitEvent(streams[k], recorder.base().get(), 0));
    for (int k = 0; k < kernels; ++k) {
      cudaStream_t s = one_stream ? first : streams[k].get();
      recorder.op(s, one_stream ? 0 : k, 'K', k, "kernel " + std::to_string(k), [&] { launch(k, s); });
    }
    (one_stream ? r.serial : r.concurrent) = recorder.collect();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return r;
}

// ---------------------------------------------------------------------------------------------------------
// Default streams

DefaultStreamResult measure_default_stream(cudaStream_t default_stream, bool blocking_streams, double kernel_ms,
                                           course::TimingOptions timing, const std::string& name) {
  const unsigned flags = blocking_streams ? cudaStreamDefault : cudaStreamNonBlocking;
  Stream a(flags), b(flags);
  const cudaStream_t order[3] = {a.get(), default_stream, b.get()};
  const std::string label = default_stream == cudaStreamPerThread ? "per-thread default" : "legacy default";
  OpRecorder recorder;
  Event done[3];
  auto run_once = [&](bool record) {
    recorder.reset(name, {"stream A", label, "stream B"});
    recorder.reserve(3);
    recorder.record_base(a);
    for (int i = 1; i < 3; ++i) CUDA_CHECK(cudaStreamWaitEvent(order[i], recorder.base().get(), 0));
    for (int i = 0; i < 3; ++i) {
      auto spin = [&] { course::launch_spin_kernel(to_ns(kernel_ms), order[i]); };
      if (record) recorder.op(order[i], i, 'S', -1, "spin " + std::to_string(i), spin);
      else spin();
    }
    double wall = 0;
    for (int i = 0; i < 3; ++i) done[i].record(order[i]);
    for (int i = 0; i < 3; ++i) {
      done[i].synchronize();
      wall = std::max<double>(wall, done[i].elapsed_ms_since(recorder.base()));
    }
    return wall;
  };
  for (int i = 0; i < timing.warmup; ++i) run_once(false);
  std::vector<double> walls;
  for (int i = 0; i < timing.reps; ++i) walls.push_back(run_once(false));
  DefaultStreamResult r;
  r.wall = course::summarize(walls);
  run_once(true);
  r.timeline = recorder.collect();
  CUDA_CHECK(cudaDeviceSynchronize());
  return r;
}

// ---------------------------------------------------------------------------------------------------------
// Host and device together

void busy_host_work(double ms) {
  const auto t0 = std::chrono::steady_clock::now();
  while (ms_since(t0) < ms) {
  }
}

HostDeviceResult measure_host_device(float* dev_in, float* dev_out, std::size_t elements, int iterations,
                                     double host_ms, course::TimingOptions timing) {
  Stream stream;
  HostDeviceResult r;
  std::vector<double> calls;
  for (int i = 0; i < timing.warmup + timing.reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    launch_fma_chain(dev_in, dev_out, elements, iterations, stream);
    const double call = ms_since(t0);  // the launch returned long before the kernel finished
    stream.synchronize();
    if (i >= timing.warmup) calls.push_back(call);
  }
  r.launch_call_ms = course::summarize(calls).median;
  r.kernel_ms = course::time_host([&] {
    launch_fma_chain(dev_in, dev_out, elements, iterations, stream);
    stream.synchronize();
  }, timing).median;
  r.host_work_ms = course::time_host([&] { busy_host_work(host_ms); }, timing).median;
  // [host_device_overlap]
  r.together_ms = course::time_host([&] {
    launch_fma_chain(dev_in, dev_out, elements, iterations, stream);  // returns at once
    busy_host_work(host_ms);                                           // the CPU works while the GPU does
    stream.synchronize();                                              // wait only for what is left
  }, timing).median;
  // [host_device_overlap]
  return r;
}

std::uint32_t xor_checksum(std::span<const float> values) {
  std::uint32_t sum = 0;
  for (float v : values) sum ^= std::bit_cast<std::uint32_t>(v);
  return sum;
}

}  // namespace streams
