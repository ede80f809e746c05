// The pipeline: chunks of copy in, kernel, copy out, spread over streams (PipelineRunner, exercise 06.2),
// and the same through a small device ring (ring_pipeline, exercise 06.3).
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/check.cuh"
#include "streams.cuh"
#include "streams_detail.hpp"

namespace streams {

namespace {

void CUDART_CB call_host_work(void* arg) {
  // Host functions must not throw into the driver's thread; the work we run does not.
  const auto* work = static_cast<const std::pair<const ChunkHostWork*, int>*>(arg);
  (*work->first)(work->second);
}

}  // namespace

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

}  // namespace streams
