#include "issue_order_child.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "child_process.hpp"
#include "common/errors.hpp"
#include "streams.cuh"

namespace streams {

using nlohmann::json;

std::vector<QueueSetting> queue_settings(int streams, int many_streams) {
  std::vector<QueueSetting> settings = {{1, streams}, {default_connections, streams}};
  if (streams < many_streams) settings.push_back({default_connections, many_streams});
  return settings;
}

std::string queue_tag(const QueueSetting& setting) {
  return std::to_string(setting.connections) + (setting.connections == 1 ? " queue, " : " queues, ") +
         std::to_string(setting.streams) + " streams";
}

// ---- parent side --------------------------------------------------------------------------------------

namespace {

// The child's results file is scratch: gone however the child ends.
struct ScratchFile {
  std::string path;
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

std::vector<ChildOrder> read_child_orders(const json& child, const std::string& tag) {
  std::vector<ChildOrder> orders;
  for (const json& o : child.at("orders")) {
    const std::string order_name = o.at("order").get<std::string>();
    Timeline measured = timeline_from_json(o.at("timeline"));
    measured.name = tag + ", " + order_name;
    orders.push_back({issue_order_from_name(order_name), o.at("wall_ms").get<double>(), o.at("recorded_wall_ms"),
                      std::move(measured)});
  }
  return orders;
}

}  // namespace

std::vector<ChildOrder> measure_in_child(Session& s, const std::string& scenario, const QueueSetting& cfg,
                                         int iterations, const std::string& tag) {
  const auto& opt = s.opt();
  const ScratchFile scratch{(std::filesystem::temp_directory_path() /
                             ("streams_" + scenario + "_" + std::to_string(getpid()) + "_" +
                              std::to_string(cfg.connections) + "_" + std::to_string(cfg.streams) + ".json"))
                                .string()};
  const std::vector<std::string> args = {current_executable(), "--variants", scenario, "--child-streams",
                                         std::to_string(cfg.streams), "--size", opt.size, "--kernel-iters",
                                         std::to_string(iterations), "--reps", std::to_string(opt.common.timing.reps),
                                         "--warmup", std::to_string(opt.common.timing.warmup), "--device",
                                         std::to_string(opt.common.device), "--json", scratch.path};
  const int rc = run_child_process(args, {{"CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(cfg.connections)}},
                                   "/dev/null");
  if (rc == course::exit_no_device) throw course::NoDeviceError("the issue_order child found no device");
  if (rc != 0) throw std::runtime_error("the issue_order child exited with code " + std::to_string(rc));
  std::ifstream in(scratch.path);
  const json doc = json::parse(in);
  const json& child = doc.at("extra").at("child");
  if (child.at("connections_env").get<std::string>() != std::to_string(cfg.connections))
    throw std::runtime_error("the issue_order child did not see CUDA_DEVICE_MAX_CONNECTIONS");
  return read_child_orders(child, tag);
}

// ---- child side ---------------------------------------------------------------------------------------

namespace {

json order_json(IssueOrder order, const course::Stats& wall, double recorded_wall_ms, const Timeline& timeline) {
  return {{"order", issue_order_name(order)}, {"wall_ms", wall.median}, {"cv", wall.cv},
          {"recorded_wall_ms", recorded_wall_ms}, {"timeline", to_json(timeline)}};
}

void record_child(Session& s, int streams, json orders) {
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  s.results().extra()["child"] = {{"connections_env", env ? env : ""}, {"streams", streams}, {"orders", std::move(orders)}};
}

// The copy pipeline with one chunk per stream, in every issue order; each output checked against the
// unchunked run.
void copies_child(Session& s) {
  const int streams = s.opt().child_streams;
  const std::size_t n = s.elements();
  const int iterations = s.opt().kernel_iterations;
  PipelineRunner runner(streams);
  poison(s.host_out(), n);
  runner.run({n, 1, 1, IssueOrder::depth_first, iterations}, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
  const std::vector<float> reference(s.host_out(), s.host_out() + n);
  json orders = json::array();
  for (IssueOrder order : all_issue_orders()) {
    const PipelineShape shape{n, streams, streams, order, iterations};
    const PipelineMeasurement m = measure_pipeline(runner, shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(),
                                                   s.opt().common.timing, true, issue_order_name(order));
    poison(s.host_out(), n);
    runner.run(shape, s.host_in(), s.host_out(), s.dev_in(), s.dev_out(), 0, false);
    if (std::memcmp(reference.data(), s.host_out(), n * sizeof(float)) != 0)
      throw std::runtime_error("issue_order_copies: " + issue_order_name(order) + " differs from the unchunked output");
    orders.push_back(order_json(order, m.wall, m.recorded.wall_ms, m.recorded.timeline));
  }
  record_child(s, streams, std::move(orders));
}

// The kernel chains in every issue order; each chain's value checked against its in-order reference.
void chains_child(Session& s) {
  const int streams = s.opt().child_streams;
  KernelChainRunner runner(streams);
  json orders = json::array();
  for (IssueOrder order : all_issue_orders()) {
    const KernelChainMeasurement m =
        measure_kernel_chains(runner, chain_steps, order, chain_kernel_ms, s.opt().common.timing, issue_order_name(order));
    for (int c = 0; c < streams; ++c)
      if (m.last.values[static_cast<std::size_t>(c)] != chain_value_reference(c, chain_steps))
        throw std::runtime_error("issue_order: " + issue_order_name(order) + " ran stream " + std::to_string(c) +
                                 "'s kernels out of order");
    orders.push_back(order_json(order, m.wall, m.last.timeline.end_ms(), m.last.timeline));
  }
  record_child(s, streams, std::move(orders));
}

}  // namespace

void run_as_child(Session& s) {
  if (s.plan().scenarios.at(0) == "issue_order") chains_child(s);
  else copies_child(s);
}

}  // namespace streams
