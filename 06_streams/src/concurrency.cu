// Concurrency without a pipeline: kernels side by side in streams, the default streams between two
// streams, and the host working while the GPU does.
#include <algorithm>
#include <chrono>

#include "common/check.cuh"
#include "streams.cuh"
#include "streams_detail.hpp"

namespace streams {

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

}  // namespace streams
