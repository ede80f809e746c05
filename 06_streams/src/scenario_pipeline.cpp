// The chunked H2D -> kernel -> D2H pipeline: from pageable or pinned memory, swept over the chunk count N
// against the model T(N), with host work in stream order, and through a device ring (exercise 06.3).
// Every run's output is checked against the CPU reference or the unchunked run before its row is recorded.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/check.cuh"
#include "common/nvtx.hpp"
#include "common/progress.hpp"
#include "common/report.hpp"
#include "scenarios.hpp"

namespace streams {

using course::format_bytes;
using course::format_fixed;
using course::format_ratio;
using nlohmann::json;

namespace {
// The reference of the ring pipeline is the chapter's pipeline at its best: the sweep bottomed out at
// N = 32 chunks over 8 streams on the H100 (results/h100/06_streams.json).
constexpr int ring_reference_chunks = 32;
}  // namespace

void scenario_pageable_vs_pinned(Session& s) {
  const Calibration& c = s.calibration();
  const std::size_t n = s.elements();
  const auto& opt = s.opt();
  s.say("cudaMemcpyAsync overlaps only from page-locked memory: the same pipeline, " + std::to_string(opt.chunks) +
        " chunks over " + std::to_string(opt.streams) + " streams, from pageable and from pinned buffers.\n");
  // [pageable_buffers]
  std::vector<float> pageable_in(s.host_in(), s.host_in() + n);  // ordinary (pageable) memory, touched once
  std::vector<float> pageable_out(n, 0.0f);
  // [pageable_buffers]
  const course::TimingOptions timing = opt.common.timing;
  Stream stream;
  const double h_pageable = course::time_host([&] {
    CUDA_CHECK(cudaMemcpyAsync(s.dev_in(), pageable_in.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    stream.synchronize();
  }, timing).median;
  const double d_pageable = course::time_host([&] {
    CUDA_CHECK(cudaMemcpyAsync(pageable_out.data(), s.dev_out(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    stream.synchronize();
  }, timing).median;

  PipelineRunner runner(opt.streams);
  const PipelineShape shape{n, opt.chunks, opt.streams, IssueOrder::depth_first, c.kernel_iterations};
  // No blocker in either run: the point is what the host has to wait for.
  const PipelineMeasurement pageable = measure_pipeline(runner, shape, pageable_in.data(), pageable_out.data(),
                                                        s.dev_in(), s.dev_out(), timing, false, "pageable host memory");
  const PipelineMeasurement pinned = measure_pipeline(runner, shape, s.host_in(), s.host_out(), s.dev_in(),
                                                      s.dev_out(), timing, false, "pinned host memory");
  if (std::memcmp(pageable_out.data(), s.host_out(), n * sizeof(float)) != 0)
    throw std::runtime_error("pageable_vs_pinned: the pageable and pinned pipelines computed different outputs");
  check_against_reference(s.host_in(), s.host_out(), n, c.kernel_iterations, "pageable_vs_pinned");

  s.show(pageable.recorded.timeline);
  s.show(pinned.recorded.timeline);
  s.say("host time to issue the pipeline: pageable " + format_fixed(pageable.recorded.host_enqueue_ms, 3) +
        " ms (the copies block the host), pinned " + format_fixed(pinned.recorded.host_enqueue_ms, 3) + " ms\n\n");
  const double model_pageable = h_pageable + c.kernel_ms + d_pageable;  // nothing overlaps
  const double model_pinned = pipeline_model_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, opt.chunks, s.engines());
  s.add({"pageable_vs_pinned", "pageable", pageable.wall.median, model_pageable, 1.0, 1.0,
         pageable.recorded.timeline.overlap_factor()},
        {{"host_enqueue_ms", pageable.recorded.host_enqueue_ms}, {"h2d_alone_ms", h_pageable}, {"d2h_alone_ms", d_pageable}});
  s.add({"pageable_vs_pinned", "pinned", pinned.wall.median, model_pinned, pageable.wall.median / pinned.wall.median,
         model_pageable / model_pinned, pinned.recorded.timeline.overlap_factor()},
        {{"host_enqueue_ms", pinned.recorded.host_enqueue_ms}, {"h2d_alone_ms", c.h2d_ms}, {"d2h_alone_ms", c.d2h_ms}});
}

void scenario_pipeline(Session& s) {
  const Calibration& c = s.calibration();
  const std::size_t n = s.elements();
  const auto& opt = s.opt();
  const std::vector<int>& sweep = s.plan().sweep;
  s.say("The chunked pipeline: N chunks, each H2D -> kernel -> D2H, over min(N, " + std::to_string(opt.sweep_streams) +
        ") streams; model T(N) = (H+K+D)/N + (N-1)/N * max(" + (s.engines() >= 2 ? "H, K, D" : "H+D, K") + ").\n");
  PipelineRunner runner(opt.sweep_streams);
  const double model_serial = pipeline_model_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, 1, s.engines());

  // The unchunked run is the reference output and the serial time.
  const PipelineShape serial_shape{n, 1, 1, IssueOrder::depth_first, c.kernel_iterations};
  poison(s.host_out(), n);
  runner.run(serial_shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
  check_against_reference(s.host_in(), s.host_out(), n, c.kernel_iterations, "pipeline N=1");
  const std::vector<float> reference(s.host_out(), s.host_out() + n);
  const double serial_ms =
      measure_pipeline(runner, serial_shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), opt.common.timing,
                       true, "pipeline N=1").wall.median;

  json sweep_json = json::array();
  double best_speedup = 0, best_ratio = 0, best_model_speedup = 0;
  int best_chunks = 1;
  std::vector<std::pair<int, Timeline>> shown;
  course::Progress progress("pipeline sweep", sweep.size());
  for (int chunks : sweep) {
    progress.step("N=" + std::to_string(chunks));
    course::NvtxRange range(("pipeline N=" + std::to_string(chunks)).c_str());
    const PipelineShape shape{n, chunks, std::min(chunks, opt.sweep_streams), IssueOrder::depth_first,
                              c.kernel_iterations};
    const PipelineMeasurement m = measure_pipeline(runner, shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(),
                                                   opt.common.timing, true, "pipeline N=" + std::to_string(chunks));
    poison(s.host_out(), n);
    runner.run(shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
    if (std::memcmp(reference.data(), s.host_out(), n * sizeof(float)) != 0)
      throw std::runtime_error("pipeline: N=" + std::to_string(chunks) + " differs from the unchunked output");

    const double model = pipeline_model_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, chunks, s.engines());
    const double duplex = pipeline_model_duplex_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, c.both_copies_ms, chunks, s.engines());
    const double speedup = serial_ms / m.wall.median;
    const double model_speedup = model_serial / model;
    s.add({"pipeline", "N=" + std::to_string(chunks), m.wall.median, model, speedup, model_speedup,
           m.recorded.timeline.overlap_factor()},
          {{"chunks", chunks}, {"streams", shape.streams}, {"cv", m.wall.cv}, {"blocker_ms", m.blocker_ms}}, duplex);
    sweep_json.push_back({{"chunks", chunks}, {"streams", shape.streams}, {"measured_ms", m.wall.median},
                          {"model_ms", model}, {"duplex_model_ms", duplex}, {"speedup", speedup}, {"model_speedup", model_speedup},
                          {"ratio_to_model", speedup / model_speedup}, {"overlap", m.recorded.timeline.overlap_factor()}});
    if (speedup > best_speedup) {
      best_speedup = speedup;
      best_model_speedup = model_speedup;
      best_ratio = speedup / model_speedup;
      best_chunks = chunks;
    }
    if (chunks <= 64) shown.emplace_back(chunks, m.recorded.timeline);
  }
  for (const auto& [chunks, tl] : shown) {
    if (chunks == 1 || chunks == 4 || chunks == best_chunks) s.show(tl);
    else s.keep(tl);
  }
  s.say("all chunk counts computed the unchunked output bit for bit. Best: N=" + std::to_string(best_chunks) + ", " +
        format_ratio(best_speedup) + " measured vs " + format_ratio(best_model_speedup) + " predicted (" +
        format_fixed(best_ratio, 3) + " of the model)\n\n");
  s.results().extra()["sweep"] = sweep_json;
  s.results().extra()["serial_ms"] = serial_ms;
  s.results().extra()["summary"]["balanced_pipeline"] = {{"best_chunks", best_chunks}, {"measured_speedup", best_speedup},
                                                          {"model_speedup", best_model_speedup},
                                                          {"ratio_to_model", best_ratio}};
}

void scenario_host_func(Session& s) {
  const Calibration& c = s.calibration();
  const std::size_t n = s.elements();
  const auto& opt = s.opt();
  s.say("Host work in stream order: a checksum of each chunk on the CPU, after the pipeline (synchronise, then "
        "compute) or as cudaLaunchHostFunc right behind each chunk's D2H.\n");
  const PipelineShape shape{n, opt.chunks, opt.streams, IssueOrder::depth_first, c.kernel_iterations};
  PipelineRunner runner(opt.streams);
  std::vector<std::uint32_t> in_order(static_cast<std::size_t>(opt.chunks)), after(in_order.size());
  auto checksum_chunk = [&](int chunk) {
    const ChunkRange r = chunk_range(n, opt.chunks, chunk);
    return xor_checksum({s.host_out() + r.begin, r.count});
  };
  // [host_func_work]
  const ChunkHostWork work = [&](int chunk) { in_order[static_cast<std::size_t>(chunk)] = checksum_chunk(chunk); };
  // [host_func_work]
  const course::TimingOptions timing = opt.common.timing;
  const double checksum_ms = course::time_host([&] { xor_checksum({s.host_out(), n}); }, timing).median;
  const double sync_then_host = course::time_host([&] {
    runner.run(shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
    for (int chunk = 0; chunk < opt.chunks; ++chunk) after[static_cast<std::size_t>(chunk)] = checksum_chunk(chunk);
  }, timing).median;
  const double in_stream = course::time_host([&] {
    runner.run(shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false, "host functions", &work);
  }, timing).median;
  const PipelineRun recorded =
      runner.run(shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, true, "host functions in stream order", &work);
  if (in_order != after) throw std::runtime_error("host_func: the in-stream checksums differ from the ones after sync");
  s.show(recorded.timeline);
  const double pipe = pipeline_model_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, opt.chunks, s.engines());
  const double model_sync = pipe + checksum_ms;
  // The host functions run one after another on one driver thread: either the GPU or they set the pace.
  const double model_in_stream = std::max(pipe + checksum_ms / opt.chunks,
                                          (c.h2d_ms + c.kernel_ms + c.d2h_ms) / opt.chunks + checksum_ms);
  s.add({"host_func", "synchronise, then host work", sync_then_host, model_sync, 1.0, 1.0, {}},
        {{"checksum_ms", checksum_ms}});
  s.add({"host_func", "cudaLaunchHostFunc per chunk", in_stream, model_in_stream, sync_then_host / in_stream,
         model_sync / model_in_stream, recorded.timeline.overlap_factor()});
}

void scenario_ring_pipeline(Session& s) {
  const Calibration& c = s.calibration();
  const std::size_t n = s.elements();
  const auto& opt = s.opt();
  const std::size_t capacity = ring_capacity(n);
  const int stream_count = opt.sweep_streams;
  const int reference_chunks = static_cast<int>(std::min<std::size_t>(ring_reference_chunks, n));
  const PipelineShape sequential{n, 1, 1, IssueOrder::depth_first, c.kernel_iterations};
  const PipelineShape reference{n, reference_chunks, std::min(reference_chunks, stream_count), IssueOrder::depth_first,
                                c.kernel_iterations};
  s.say("Exercise 06.3: ring_pipeline moves the buffer through a device ring of " +
        format_bytes(static_cast<double>(capacity * sizeof(float))) + " each way on " + std::to_string(stream_count) +
        " streams; timed (host clock, call to results on the host) against the sequential copy, kernel, copy and "
        "against the chapter's pipeline over full-size device buffers, " + std::to_string(reference.chunks) +
        " chunks over " + std::to_string(reference.streams) + " streams.\n");

  course::DeviceBuffer<float> ring_in(capacity), ring_out(capacity);
  const DeviceRing ring{ring_in.data(), ring_out.data(), capacity};
  // Ordinary blocking streams, like the pipeline runner's.
  std::vector<Stream> ring_streams;
  ring_streams.reserve(static_cast<std::size_t>(stream_count));
  std::vector<cudaStream_t> handles;
  for (int i = 0; i < stream_count; ++i) handles.push_back(ring_streams.emplace_back(cudaStreamDefault).get());
  PipelineRunner runner(stream_count);

  struct Variant {
    const char* name;
    std::function<void()> run;
    double ms = 0;
  };
  Variant variants[] = {
      {"sequential", [&] { runner.run(sequential, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false); }},
      {"reference", [&] { runner.run(reference, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false); }},
      {"ring", [&] { ring_pipeline(s.host_in(), s.host_out(), n, c.kernel_iterations, ring, handles); }},
  };
  // The unchunked output, checked against the CPU, is what every variant must give bit for bit: once into
  // a poisoned output before it is timed, and again after its timed runs.
  poison(s.host_out(), n);
  variants[0].run();
  check_against_reference(s.host_in(), s.host_out(), n, c.kernel_iterations, "ring_pipeline, sequential");
  const std::vector<float> expected(s.host_out(), s.host_out() + n);
  auto check = [&](const Variant& v, const char* when) {
    if (std::memcmp(expected.data(), s.host_out(), n * sizeof(float)) != 0)
      throw std::runtime_error(std::string("ring_pipeline: the ") + v.name + " variant's output " + when +
                               " differs from the unchunked output");
  };
  for (Variant& v : variants) {
    course::NvtxRange range(v.name);
    poison(s.host_out(), n);
    v.run();
    check(v, "before timing");
    v.ms = course::time_host(v.run, opt.common.timing).median;
    check(v, "after timing");
  }

  const double sequential_ms = variants[0].ms, reference_ms = variants[1].ms, ring_ms = variants[2].ms;
  const double model_sequential = pipeline_model_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, 1, s.engines());
  const double model_reference = pipeline_model_ms(c.h2d_ms, c.kernel_ms, c.d2h_ms, reference.chunks, s.engines());
  s.add({"ring_pipeline", "sequential", sequential_ms, model_sequential, 1.0, 1.0, {}},
        {{"chunks", 1}, {"streams", 1}});
  s.add({"ring_pipeline", "reference", reference_ms, model_reference, sequential_ms / reference_ms,
         model_sequential / model_reference, {}},
        {{"chunks", reference.chunks}, {"streams", reference.streams}});
  // The ring's chunk count is the student's choice, so no model time of its own: the reference's is the target.
  s.add({"ring_pipeline", "ring", ring_ms, {}, sequential_ms / ring_ms, {}, {}},
        {{"ring_elements", capacity}, {"streams", stream_count}, {"time_over_reference", ring_ms / reference_ms}});
  s.say("ring: " + format_ratio(sequential_ms / ring_ms) + " over sequential, " +
        format_fixed((sequential_ms / ring_ms) / (model_sequential / model_reference), 2) + " of the model's " +
        format_ratio(model_sequential / model_reference) + " at N=" + std::to_string(reference.chunks) +
        "; its time is " + format_fixed(ring_ms / reference_ms, 2) +
        "x the reference's (exercise 06.3: full points within 1.2x)\n\n");
}

}  // namespace streams
