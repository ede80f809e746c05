// streams: what CUDA streams buy and when they don't, one named scenario per claim of the lecture.
//   streams --scenario all            every scenario, the ASCII timelines, one table at the end
//   streams --scenario pipeline       the chunked H2D → kernel → D2H pipeline, N swept, measured vs model
//   streams --trace trace.json        also write every timeline as a Chrome trace (open in ui.perfetto.dev)
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "child_process.hpp"
#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/progress.hpp"
#include "common/report.hpp"
#include "model.hpp"
#include "streams.cuh"
#include "timeline.hpp"

namespace {

using namespace streams;
using course::format_fixed;
using course::format_ratio;
using nlohmann::json;

struct Options {
  course::CommonOptions common;
  std::string scenario = "all";
  std::string size = "256MiB";
  int chunks = 8;
  int streams = 4;
  std::string sweep = "1,2,3,4,6,8,12,16,24,32,64,128,256";
  int sweep_streams = 8;
  int kernel_iterations = 0;
  int small_kernels = 8;
  int gantt_width = 96;
  std::string trace_path;
  int child_streams = 0;  // internal: this process is a child of issue_order
};

// The connections settings of issue_order: {CUDA_DEVICE_MAX_CONNECTIONS, streams}; 0 streams = --streams.
struct QueueConfig {
  int connections;
  int streams;
};
constexpr int default_connections = 8;
constexpr int many_streams = 16;  // copies: more streams than the default 8 connections
constexpr int chain_many_streams = 32;  // kernel chains: 4 streams per connection
constexpr int chain_steps = 3;          // dependent kernels per stream (A, B, C)
constexpr double chain_kernel_ms = 1.0;

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> values;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    int v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw course::UsageError("'" + text + "' is not a comma-separated list of integers");
    values.push_back(v);
    pos = comma + 1;
  }
  return values;
}

// One printed and saved row. Empty optionals print as "-" and save as null.
struct Row {
  std::string scenario, variant;
  std::optional<double> measured_ms, model_ms, speedup, model_speedup, overlap;
};

std::string cell(const std::optional<double>& v, bool ratio, int digits = 3) {
  if (!v) return "-";
  return ratio ? format_ratio(*v) : format_fixed(*v, digits);
}

json value_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

class Session {
 public:
  Session(Options opt, int argc, char** argv)
      : opt_(std::move(opt)), results_("06_streams", argc, argv),
        table_({"scenario", "variant", "measured_ms", "model_ms", "speedup", "model_speedup", "overlap",
               "duplex_model_ms"}) {}

  void start(std::size_t elements) {
    elements_ = elements;
    device_ = course::require_device(opt_.common.device);
    results_.set_device(device_);
    if (opt_.child_streams == 0 && !opt_.common.csv) course::print_device_header(std::cout, device_);
    engines_ = std::max(1, device_.async_engine_count >= 2 ? 2 : device_.async_engine_count);
    host_in_ = course::PinnedBuffer<float>(elements);
    host_out_ = course::PinnedBuffer<float>(elements);
    dev_in_ = course::DeviceBuffer<float>(elements);
    dev_out_ = course::DeviceBuffer<float>(elements);
    fill_inputs(host_in_.span(), 2024u);
    dev_in_.upload(host_in_.span());
    dev_out_.fill_bytes(0xff);
  }

  const Calibration& calibration() {
    if (!calibration_) {
      course::NvtxRange range("calibration");
      calibration_ = calibrate_balanced(host_in_.data(), host_out_.data(), dev_in_.data(), dev_out_.data(), elements_,
                                        {2, 7}, opt_.kernel_iterations);
      const Calibration& c = *calibration_;
      results_.extra()["calibration"] = {{"h2d_ms", c.h2d_ms}, {"d2h_ms", c.d2h_ms}, {"both_copies_ms", c.both_copies_ms},
                                        {"kernel_ms", c.kernel_ms}, {"kernel_iterations", c.kernel_iterations},
                                        {"ms_per_iteration", c.ms_per_iteration}, {"kernel_floor_ms", c.kernel_floor_ms},
                                        {"copy_engines", engines_}};
      say("calibration: H2D " + format_fixed(c.h2d_ms, 3) + " ms, D2H " + format_fixed(c.d2h_ms, 3) +
          " ms, both at once " + format_fixed(c.both_copies_ms, 3) + " ms (" +
          format_ratio((c.h2d_ms + c.d2h_ms) / c.both_copies_ms) + " of serial), kernel " + format_fixed(c.kernel_ms, 3) +
          " ms at " + std::to_string(c.kernel_iterations) + " FMAs per element (K aimed at both at once); " + std::to_string(engines_) +
          " copy engine(s) in the model\n");
    }
    return *calibration_;
  }

  // duplex_model_ms: pipeline rows only, the model with the measured both-copies time.
  void add(const Row& r, json more = json::object(), std::optional<double> duplex_model_ms = {}) {
    table_.add_row({r.scenario, r.variant, cell(r.measured_ms, false), cell(r.model_ms, false), cell(r.speedup, true),
                    cell(r.model_speedup, true), cell(r.overlap, false, 2), cell(duplex_model_ms, false)});
    json row = {{"scenario", r.scenario}, {"variant", r.variant}, {"measured_ms", value_or_null(r.measured_ms)},
                {"model_ms", value_or_null(r.model_ms)}, {"speedup", value_or_null(r.speedup)},
                {"model_speedup", value_or_null(r.model_speedup)}, {"overlap", value_or_null(r.overlap)},
                {"duplex_model_ms", value_or_null(duplex_model_ms)}};
    row.update(more);
    results_.add_row(row);
  }

  void show(const Timeline& tl) {
    timelines_.push_back(tl);
    if (!opt_.common.csv) std::cout << render_gantt(tl, opt_.gantt_width) << '\n';
  }
  void keep(const Timeline& tl) { timelines_.push_back(tl); }
  void say(const std::string& text) const {
    if (!opt_.common.csv) std::cout << text;
  }

  void finish() {
    json tls = json::array();
    for (const auto& tl : timelines_) tls.push_back(to_json(tl));
    results_.extra()["timelines"] = tls;
    if (opt_.child_streams == 0) table_.print(std::cout, opt_.common.csv);
    if (!opt_.trace_path.empty()) {
      course::write_file_atomically(opt_.trace_path, chrome_trace(timelines_).dump(1));
      say("trace: " + opt_.trace_path + " (open it in ui.perfetto.dev)\n");
    }
    if (!opt_.common.json_path.empty()) results_.write(opt_.common.json_path);
  }

  const Options& opt() const { return opt_; }
  std::size_t elements() const { return elements_; }
  int engines() const { return engines_; }
  const course::DeviceInfo& device() const { return device_; }
  course::ResultsFile& results() { return results_; }
  float* host_in() { return host_in_.data(); }
  float* host_out() { return host_out_.data(); }
  float* dev_in() { return dev_in_.data(); }
  float* dev_out() { return dev_out_.data(); }

 private:
  Options opt_;
  course::ResultsFile results_;
  course::Table table_;
  std::vector<Timeline> timelines_;
  course::DeviceInfo device_;
  std::size_t elements_ = 0;
  int engines_ = 2;
  course::PinnedBuffer<float> host_in_, host_out_;
  course::DeviceBuffer<float> dev_in_, dev_out_;
  std::optional<Calibration> calibration_;
};

void poison(float* host, std::size_t n) { std::memset(host, 0xff, n * sizeof(float)); }

// Every element of a sample against the CPU reference (all of them would take minutes at thousands of
// FMAs per element).
void check_against_reference(const float* in, const float* out, std::size_t n, int iterations, const char* what) {
  const std::size_t step = std::max<std::size_t>(1, n / 4096);
  for (std::size_t i = 0; i < n; i += step) {
    const float expected = fma_chain_reference(in[i], iterations);
    if (std::memcmp(&expected, &out[i], sizeof(float)) != 0)
      throw std::runtime_error(std::string(what) + ": element " + std::to_string(i) + " differs from the CPU reference");
  }
  const float last = fma_chain_reference(in[n - 1], iterations);
  if (std::memcmp(&last, &out[n - 1], sizeof(float)) != 0)
    throw std::runtime_error(std::string(what) + ": the last element differs from the CPU reference");
}

// ---------------------------------------------------------------------------------------------------------
void scenario_host_device(Session& s) {
  const Calibration& c = s.calibration();
  s.say("The host and the device work at the same time: a launch returns at once.\n");
  const HostDeviceResult r = measure_host_device(s.dev_in(), s.dev_out(), s.elements(), c.kernel_iterations,
                                                 c.kernel_ms, s.opt().common.timing);
  const double serial = r.kernel_ms + r.host_work_ms;
  const double model = std::max(r.kernel_ms, r.host_work_ms);
  s.add({"host_device", "launch call returns", r.launch_call_ms, {}, {}, {}, {}});
  s.add({"host_device", "kernel, then host work", serial, serial, 1.0, 1.0, {}});
  s.add({"host_device", "host works during kernel", r.together_ms, model, serial / r.together_ms, serial / model, {}});
  s.results().extra()["host_device"] = {{"launch_call_ms", r.launch_call_ms}, {"kernel_ms", r.kernel_ms},
                                        {"host_work_ms", r.host_work_ms}, {"together_ms", r.together_ms}};
}

// ---------------------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------------------
void scenario_pipeline(Session& s) {
  const Calibration& c = s.calibration();
  const std::size_t n = s.elements();
  const auto& opt = s.opt();
  const std::vector<int> sweep = parse_int_list(opt.sweep);
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

// ---------------------------------------------------------------------------------------------------------
void scenario_kernel_concurrency(Session& s) {
  const auto& opt = s.opt();
  const int big_kernels = 4;
  const int small_kernels = opt.small_kernels;
  const unsigned small_blocks = static_cast<unsigned>(std::max(1, s.device().sm_count / small_kernels));
  s.say("Kernels from different streams: big grids (many waves of blocks) overlap only at their tails; small grids ("
        + std::to_string(small_blocks) + " blocks each) run side by side.\n");
  const int big_iterations = iterations_for(s.dev_in(), s.dev_out(), s.elements(), 0, 8.0);
  const ConcurrencyResult big = measure_kernel_concurrency(s.dev_in(), s.dev_out(), s.elements(), big_kernels,
                                                           big_iterations, 0, opt.common.timing, "big grids");
  const int small_iterations = iterations_for(s.dev_in(), s.dev_out(), s.elements(), small_blocks, 2.0);
  const ConcurrencyResult small = measure_kernel_concurrency(s.dev_in(), s.dev_out(), s.elements(), small_kernels,
                                                             small_iterations, small_blocks, opt.common.timing,
                                                             "small grids");
  s.show(big.concurrent);
  s.show(small.serial);
  s.show(small.concurrent);
  s.keep(big.serial);
  const std::string b = std::to_string(big_kernels), k = std::to_string(small_kernels);
  s.add({"kernel_concurrency", "big: 1 launch, whole buffer", big.one_launch_ms, {}, {}, {}, {}});
  s.add({"kernel_concurrency", "big: " + b + " launches, 1 stream", big.serial_ms, big.serial_ms, 1.0, 1.0, {}});
  s.add({"kernel_concurrency", "big: " + b + " launches, " + b + " streams", big.concurrent_ms, big.serial_ms,
         big.serial_ms / big.concurrent_ms, 1.0, big.concurrent.overlap_factor()});
  s.add({"kernel_concurrency", "small: 1 launch, all blocks", small.one_launch_ms, {}, {}, {}, {}});
  s.add({"kernel_concurrency", "small: " + k + " launches, 1 stream", small.serial_ms, small.serial_ms, 1.0, 1.0, {}});
  const double small_model = small.serial_ms / small_kernels;  // all of them in one wave of blocks
  s.add({"kernel_concurrency", "small: " + k + " launches, " + k + " streams", small.concurrent_ms, small_model,
         small.serial_ms / small.concurrent_ms, static_cast<double>(small_kernels), small.concurrent.overlap_factor()});
  s.results().extra()["kernel_concurrency"] = {{"big_iterations", big_iterations}, {"small_iterations", small_iterations},
                                               {"small_blocks", small_blocks}, {"small_kernels", small_kernels}};
}

// ---------------------------------------------------------------------------------------------------------
// issue_order runs in child processes: CUDA_DEVICE_MAX_CONNECTIONS is read when the context is created.

std::vector<QueueConfig> queue_configs(int streams) {
  std::vector<QueueConfig> configs = {{1, streams}, {default_connections, streams}};
  if (streams < many_streams) configs.push_back({default_connections, many_streams});
  return configs;
}

// The child's part: every issue order for --child-streams streams, in whatever connections it was given.
void issue_order_copies_child(Session& s) {
  const int streams = s.opt().child_streams;
  const std::size_t n = s.elements();
  const int iterations = s.opt().kernel_iterations;
  if (iterations < 1) throw course::UsageError("--child-streams needs --kernel-iters");
  PipelineRunner runner(streams);
  poison(s.host_out(), n);
  runner.run({n, 1, 1, IssueOrder::depth_first, iterations}, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
  const std::vector<float> reference(s.host_out(), s.host_out() + n);
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  json orders = json::array();
  for (IssueOrder order : all_issue_orders()) {
    const PipelineShape shape{n, streams, streams, order, iterations};
    const PipelineMeasurement m = measure_pipeline(runner, shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(),
                                                   s.opt().common.timing, true, issue_order_name(order));
    poison(s.host_out(), n);
    runner.run(shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
    if (std::memcmp(reference.data(), s.host_out(), n * sizeof(float)) != 0)
      throw std::runtime_error("issue_order_copies: " + issue_order_name(order) + " differs from the unchunked output");
    orders.push_back({{"order", issue_order_name(order)}, {"wall_ms", m.wall.median}, {"cv", m.wall.cv},
                      {"recorded_wall_ms", m.recorded.wall_ms}, {"timeline", to_json(m.recorded.timeline)}});
  }
  s.results().extra()["child"] = {{"connections_env", env ? env : ""}, {"streams", streams}, {"orders", orders}};
}

json run_issue_order_child(Session& s, const std::string& scenario, const QueueConfig& cfg, int iterations) {
  const auto& opt = s.opt();
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("streams_" + scenario + "_" + std::to_string(getpid()) + "_" + std::to_string(cfg.connections) +
                             "_" + std::to_string(cfg.streams) + ".json")).string();
  const std::vector<std::string> args = {current_executable(), "--scenario", scenario, "--child-streams",
                                         std::to_string(cfg.streams), "--size", opt.size, "--kernel-iters",
                                         std::to_string(iterations), "--reps", std::to_string(opt.common.timing.reps),
                                         "--warmup", std::to_string(opt.common.timing.warmup), "--device",
                                         std::to_string(opt.common.device), "--json", path};
  const int rc = run_child_process(args, {{"CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(cfg.connections)}}, true);
  if (rc == course::exit_no_device) throw course::NoDeviceError("the issue_order child found no device");
  if (rc != 0) throw std::runtime_error("the issue_order child exited with code " + std::to_string(rc));
  std::ifstream in(path);
  const json doc = json::parse(in);
  in.close();
  std::filesystem::remove(path);
  const json& child = doc.at("extra").at("child");
  if (child.at("connections_env").get<std::string>() != std::to_string(cfg.connections))
    throw std::runtime_error("the issue_order child did not see CUDA_DEVICE_MAX_CONNECTIONS");
  return child;
}

void scenario_issue_order_copies(Session& s) {
  const Calibration& c = s.calibration();
  const auto& opt = s.opt();
  s.say("Issue order of the copy pipeline on shared hardware queues (each setting in a child process with "
        "CUDA_DEVICE_MAX_CONNECTIONS set). The copies go to the copy engines' own queues, so one connection "
        "does not serialise them; the model assumes so. The recorded timelines put two events around each "
        "operation, and on one connection those events wait in the queue: trust the measured walls.\n");
  json configs = json::array();
  for (const QueueConfig& cfg : queue_configs(opt.streams)) {
    const json child = run_issue_order_child(s, "issue_order_copies", cfg, c.kernel_iterations);
    const std::string tag = "copies, " + std::to_string(cfg.connections) +
                            (cfg.connections == 1 ? " queue, " : " queues, ") + std::to_string(cfg.streams) + " streams";
    QueueMachine machine{cfg.streams, cfg.connections, s.engines(), c.h2d_ms / cfg.streams, c.kernel_ms / cfg.streams,
                         c.d2h_ms / cfg.streams, true};
    double depth_ms = 0, depth_model = 0;
    json config_json = {{"connections", cfg.connections}, {"streams", cfg.streams}, {"orders", json::array()}};
    for (const json& o : child.at("orders")) {
      const std::string order_name = o.at("order").get<std::string>();
      IssueOrder order = IssueOrder::depth_first;
      for (IssueOrder candidate : all_issue_orders())
        if (issue_order_name(candidate) == order_name) order = candidate;
      const std::vector<PipelineOp> sequence = issue_sequence(cfg.streams, order);
      Timeline model = simulate_hardware_queues(sequence, machine, tag + ", " + order_name + " (model)");
      Timeline measured = timeline_from_json(o.at("timeline"));
      measured.name = tag + ", " + order_name;
      const double wall = o.at("wall_ms").get<double>();
      if (order == IssueOrder::depth_first) {
        depth_ms = wall;
        depth_model = model.end_ms();
      }
      const std::vector<double> lead = h2d_lead_over_previous_kernel_ms(measured, cfg.streams);
      s.add({"issue_order_copies", tag + ", " + order_name, wall, model.end_ms(), depth_ms / wall, depth_model / model.end_ms(),
             measured.overlap_factor()},
            {{"connections", cfg.connections}, {"streams", cfg.streams}, {"order", order_name},
             {"recorded_wall_ms", o.at("recorded_wall_ms")}, {"h2d_lead_ms", lead}});
      config_json["orders"].push_back({{"order", order_name}, {"wall_ms", wall}, {"model_ms", model.end_ms()},
                                       {"h2d_lead_ms", lead}});
      s.keep(measured);
      s.keep(model);
    }
    configs.push_back(config_json);
  }
  s.results().extra()["issue_order_copies"] = configs;
}

// The kernel chains: the false dependency as it shows on today's GPUs.
std::vector<QueueConfig> chain_configs(int streams) {
  std::vector<QueueConfig> configs = {{1, streams}, {default_connections, streams}};
  if (streams < chain_many_streams) configs.push_back({default_connections, chain_many_streams});
  return configs;
}

void issue_order_chain_child(Session& s) {
  const int streams = s.opt().child_streams;
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  KernelChainRunner runner(streams);
  json orders = json::array();
  for (IssueOrder order : all_issue_orders()) {
    const KernelChainMeasurement m =
        measure_kernel_chains(runner, chain_steps, order, chain_kernel_ms, s.opt().common.timing, issue_order_name(order));
    for (int c = 0; c < streams; ++c)
      if (m.last.values[static_cast<std::size_t>(c)] != chain_value_reference(c, chain_steps))
        throw std::runtime_error("issue_order: " + issue_order_name(order) + " ran stream " + std::to_string(c) +
                                 "'s kernels out of order");
    orders.push_back({{"order", issue_order_name(order)}, {"wall_ms", m.wall.median}, {"cv", m.wall.cv},
                      {"recorded_wall_ms", m.last.timeline.end_ms()}, {"timeline", to_json(m.last.timeline)}});
  }
  s.results().extra()["child"] = {{"connections_env", env ? env : ""}, {"streams", streams}, {"orders", orders}};
}

void scenario_issue_order(Session& s) {
  const auto& opt = s.opt();
  s.say("False dependencies: in each stream a chain of " + std::to_string(chain_steps) + " dependent one-block kernels of " +
        format_fixed(chain_kernel_ms, 1) + " ms, issued depth-first (A0 B0 C0 A1 ...), breadth-first (A0 A1 ... B0 B1 ...) "
        "or staggered; each setting in a child process with CUDA_DEVICE_MAX_CONNECTIONS set. The kernels time "
        "themselves (no event in the queues); the model simulates in-order queues.\n");
  json configs = json::array();
  json summary = json::object();
  for (const QueueConfig& cfg : chain_configs(opt.streams)) {
    const json child = run_issue_order_child(s, "issue_order", cfg, 1);
    const std::string tag = std::to_string(cfg.connections) + (cfg.connections == 1 ? " queue, " : " queues, ") +
                            std::to_string(cfg.streams) + " streams";
    const ChainMachine machine{cfg.streams, cfg.connections, chain_kernel_ms};
    double depth_ms = 0, depth_model = 0, breadth_ms = 0;
    json config_json = {{"connections", cfg.connections}, {"streams", cfg.streams}, {"orders", json::array()}};
    for (const json& o : child.at("orders")) {
      const std::string order_name = o.at("order").get<std::string>();
      IssueOrder order = IssueOrder::depth_first;
      for (IssueOrder candidate : all_issue_orders())
        if (issue_order_name(candidate) == order_name) order = candidate;
      const std::vector<StepOp> sequence = issue_steps(cfg.streams, chain_steps, order);
      Timeline model = simulate_kernel_chains(sequence, chain_steps, machine, tag + ", " + order_name + " (model)");
      Timeline measured = timeline_from_json(o.at("timeline"));
      measured.name = tag + ", " + order_name;
      const double wall = o.at("wall_ms").get<double>();
      if (order == IssueOrder::depth_first) {
        depth_ms = wall;
        depth_model = model.end_ms();
      }
      if (order == IssueOrder::breadth_first) breadth_ms = wall;
      const double spread = first_step_spread_ms(measured, chain_steps);
      s.add({"issue_order", tag + ", " + order_name, wall, model.end_ms(), depth_ms / wall, depth_model / model.end_ms(),
             measured.overlap_factor()},
            {{"connections", cfg.connections}, {"streams", cfg.streams}, {"order", order_name},
             {"recorded_wall_ms", o.at("recorded_wall_ms")}, {"first_step_spread_ms", spread}});
      config_json["orders"].push_back({{"order", order_name}, {"wall_ms", wall}, {"model_ms", model.end_ms()},
                                       {"first_step_spread_ms", spread}});
      if (cfg.streams <= 8) s.show(measured);
      else s.keep(measured);
      s.keep(model);
    }
    const std::string key = cfg.connections == 1 ? "one_queue" : cfg.streams == opt.streams ? "default_queues" : "shared_queues";
    summary[key] = {{"connections", cfg.connections}, {"streams", cfg.streams}, {"depth_first_ms", depth_ms},
                    {"breadth_first_ms", breadth_ms}, {"depth_over_breadth", depth_ms / breadth_ms}};
    s.say(tag + ": depth-first takes " + format_ratio(depth_ms / breadth_ms) + " as long as breadth-first\n");
    configs.push_back(config_json);
  }
  s.say("\n");
  s.results().extra()["issue_order"] = configs;
  s.results().extra()["summary"]["false_dependency"] = summary;
}

// ---------------------------------------------------------------------------------------------------------
void scenario_default_stream(Session& s) {
  const double t = 5.0;
  s.say("The default streams: a kernel in stream A, one in a default stream, one in stream B (" +
        format_fixed(t, 1) + " ms spin kernels).\n");
  struct Variant {
    const char* name;
    cudaStream_t stream;
    bool blocking;
    double model;
  };
  const Variant variants[] = {{"blocking A/B + legacy default", cudaStreamLegacy, true, 3 * t},
                              {"blocking A/B + per-thread default", cudaStreamPerThread, true, t},
                              {"non-blocking A/B + legacy default", cudaStreamLegacy, false, t}};
  double baseline = 0;
  for (const Variant& v : variants) {
    const DefaultStreamResult r = measure_default_stream(v.stream, v.blocking, t, s.opt().common.timing, v.name);
    if (baseline == 0) baseline = r.wall.median;
    s.show(r.timeline);
    s.add({"default_stream", v.name, r.wall.median, v.model, baseline / r.wall.median, 3 * t / v.model,
           r.timeline.overlap_factor()});
  }
}

// ---------------------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------------------
struct Scenario {
  const char* name;
  void (*run)(Session&);
};
const Scenario scenarios[] = {{"host_device", scenario_host_device},
                              {"pageable_vs_pinned", scenario_pageable_vs_pinned},
                              {"pipeline", scenario_pipeline},
                              {"kernel_concurrency", scenario_kernel_concurrency},
                              {"issue_order", scenario_issue_order},
                              {"issue_order_copies", scenario_issue_order_copies},
                              {"default_stream", scenario_default_stream},
                              {"host_func", scenario_host_func}};

int run(int argc, char** argv) {
  Options opt;
  opt.common.timing = {2, 10};
  CLI::App app{"Chapter 06: CUDA streams. Each scenario measures one claim and prints the model's prediction."};
  course::add_common_options(app, opt.common);
  std::vector<std::string> names = {"all"};
  for (const auto& sc : scenarios) names.emplace_back(sc.name);
  app.add_option("--scenario", opt.scenario, "which scenario to run")->check(CLI::IsMember(names))->capture_default_str();
  app.add_option("--size", opt.size, "bytes per direction (float elements = size / 4), e.g. 256MiB")
      ->check(course::count_validator())->capture_default_str();
  app.add_option("--chunks", opt.chunks, "chunks of the pageable_vs_pinned and host_func pipelines")->capture_default_str();
  app.add_option("--streams", opt.streams, "streams of pageable_vs_pinned, host_func and issue_order")->capture_default_str();
  app.add_option("--sweep", opt.sweep, "chunk counts N of the pipeline sweep (comma-separated)")->capture_default_str();
  app.add_option("--sweep-streams", opt.sweep_streams, "the sweep uses min(N, this) streams")->capture_default_str();
  app.add_option("--kernel-iters", opt.kernel_iterations, "FMAs per element (0: calibrate so that K ~ (H+D)/2)")
      ->check(CLI::Range(0, 1 << 26))->capture_default_str();
  app.add_option("--small-kernels", opt.small_kernels, "small-grid kernels in kernel_concurrency")
      ->check(CLI::Range(1, 32))->capture_default_str();
  app.add_option("--gantt-width", opt.gantt_width, "columns of the ASCII timelines")->check(CLI::Range(20, 1000))->capture_default_str();
  app.add_option("--trace", opt.trace_path, "write every timeline as Chrome-trace JSON (Perfetto)")->type_name("FILE");
  app.add_option("--child-streams", opt.child_streams, "internal: run as an issue_order child")->group("");
  course::parse_command_line(app, argc, argv);

  // Every value is checked before the GPU is touched: bad input is exit 2 even on a machine without one.
  const std::uint64_t bytes = course::parse_count(opt.size);
  const std::size_t elements = static_cast<std::size_t>(bytes / sizeof(float));
  if (elements == 0) throw course::UsageError("--size must hold at least one float (4 bytes)");
  validate_pipeline_shape(elements, opt.chunks, opt.streams);
  if (opt.sweep_streams < 1) throw course::UsageError("--sweep-streams must be at least 1");
  for (int chunks : parse_int_list(opt.sweep)) validate_pipeline_shape(elements, chunks, std::min(chunks, opt.sweep_streams));
  if (opt.streams > 64) throw course::UsageError("--streams above 64 is not a useful experiment");
  for (const QueueConfig& cfg : queue_configs(opt.streams)) validate_pipeline_shape(elements, cfg.streams, cfg.streams);
  if (opt.child_streams != 0 && opt.scenario != "issue_order" && opt.scenario != "issue_order_copies")
    throw course::UsageError("--child-streams is internal to the issue_order scenarios");
  if (opt.child_streams < 0) throw course::UsageError("--child-streams must be positive");

  Session session(opt, argc, argv);
  session.start(elements);
  auto& config = session.results().config();
  config = {{"scenario", opt.scenario}, {"size_bytes", bytes}, {"elements", elements}, {"chunks", opt.chunks},
            {"streams", opt.streams}, {"sweep", parse_int_list(opt.sweep)}, {"sweep_streams", opt.sweep_streams},
            {"reps", opt.common.timing.reps}, {"warmup", opt.common.timing.warmup}};
  if (opt.child_streams > 0) {
    if (opt.scenario == "issue_order") issue_order_chain_child(session);
    else issue_order_copies_child(session);
  } else {
    for (const auto& sc : scenarios) {
      if (opt.scenario != "all" && opt.scenario != sc.name) continue;
      course::NvtxRange range(sc.name);
      session.say(std::string("== ") + sc.name + " ==\n");
      sc.run(session);
    }
  }
  session.finish();
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("streams", run, argc, argv); }
