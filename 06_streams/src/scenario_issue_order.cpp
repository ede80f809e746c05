// Issue orders on shared hardware queues: each queue setting measured in a child process (see
// issue_order_child.hpp), each order beside what the in-order queue simulators of model.hpp predict.
#include <string>
#include <vector>

#include "common/report.hpp"
#include "issue_order_child.hpp"
#include "scenarios.hpp"

namespace streams {

using course::format_fixed;
using course::format_ratio;
using nlohmann::json;

namespace {

// The rows of one queue setting and its entry in extra.<scenario>. Speedups are against depth-first issue,
// which the child measures first.
class SettingRecord {
 public:
  SettingRecord(Session& s, const char* scenario, const QueueSetting& cfg)
      : s_(s), scenario_(scenario), cfg_(cfg),
        json_{{"connections", cfg.connections}, {"streams", cfg.streams}, {"orders", json::array()}} {}

  // `key`, `value`: what this scenario reads off the measured timeline.
  void add(const ChildOrder& o, const Timeline& model, const char* key, const json& value) {
    const std::string order_name = issue_order_name(o.order);
    if (o.order == IssueOrder::depth_first) depth_ = {o.wall_ms, model.end_ms()};
    s_.add({scenario_, o.measured.name, o.wall_ms, model.end_ms(), depth_.wall_ms / o.wall_ms,
            depth_.model_ms / model.end_ms(), o.measured.overlap_factor()},
           {{"connections", cfg_.connections}, {"streams", cfg_.streams}, {"order", order_name},
            {"recorded_wall_ms", o.recorded_wall_ms}, {key, value}});
    json_["orders"].push_back({{"order", order_name}, {"wall_ms", o.wall_ms}, {"model_ms", model.end_ms()}, {key, value}});
  }
  double depth_first_ms() const { return depth_.wall_ms; }
  const json& to_json() const { return json_; }

 private:
  struct Baseline {
    double wall_ms = 0, model_ms = 0;
  };
  Session& s_;
  const char* scenario_;
  QueueSetting cfg_;
  json json_;
  Baseline depth_;
};

}  // namespace

void scenario_issue_order(Session& s) {
  const auto& opt = s.opt();
  s.say("False dependencies: in each stream a chain of " + std::to_string(chain_steps) + " dependent one-block kernels of " +
        format_fixed(chain_kernel_ms, 1) + " ms, issued depth-first (A0 B0 C0 A1 ...), breadth-first (A0 A1 ... B0 B1 ...) "
        "or staggered; each setting in a child process with CUDA_DEVICE_MAX_CONNECTIONS set. The kernels time "
        "themselves (no event in the queues); the model simulates in-order queues.\n");
  json configs = json::array();
  json summary = json::object();
  for (const QueueSetting& cfg : queue_settings(opt.streams, chain_many_streams)) {
    const std::string tag = queue_tag(cfg);
    const ChainMachine machine{cfg.streams, cfg.connections, chain_kernel_ms};
    SettingRecord record(s, "issue_order", cfg);
    double breadth_ms = 0;
    for (const ChildOrder& o : measure_in_child(s, "issue_order", cfg, 1, tag)) {
      const std::vector<StepOp> sequence = issue_steps(cfg.streams, chain_steps, o.order);
      Timeline model = simulate_kernel_chains(sequence, chain_steps, machine, o.measured.name + " (model)");
      if (o.order == IssueOrder::breadth_first) breadth_ms = o.wall_ms;
      record.add(o, model, "first_step_spread_ms", first_step_spread_ms(o.measured, chain_steps));
      if (cfg.streams <= 8) s.show(o.measured);
      else s.keep(o.measured);
      s.keep(model);
    }
    const double depth_ms = record.depth_first_ms();
    const std::string key = cfg.connections == 1 ? "one_queue" : cfg.streams == opt.streams ? "default_queues" : "shared_queues";
    summary[key] = {{"connections", cfg.connections}, {"streams", cfg.streams}, {"depth_first_ms", depth_ms},
                    {"breadth_first_ms", breadth_ms}, {"depth_over_breadth", depth_ms / breadth_ms}};
    s.say(tag + ": depth-first takes " + format_ratio(depth_ms / breadth_ms) + " as long as breadth-first\n");
    configs.push_back(record.to_json());
  }
  s.say("\n");
  s.results().extra()["issue_order"] = configs;
  s.results().extra()["summary"]["false_dependency"] = summary;
}

void scenario_issue_order_copies(Session& s) {
  const Calibration& c = s.calibration();
  const auto& opt = s.opt();
  s.say("Issue order of the copy pipeline on shared hardware queues (each setting in a child process with "
        "CUDA_DEVICE_MAX_CONNECTIONS set). The copies go to the copy engines' own queues, so one connection "
        "does not serialise them; the model assumes so. The recorded timelines put two events around each "
        "operation, and on one connection those events wait in the queue: trust the measured walls.\n");
  json configs = json::array();
  for (const QueueSetting& cfg : queue_settings(opt.streams, copies_many_streams)) {
    const std::string tag = "copies, " + queue_tag(cfg);
    QueueMachine machine{cfg.streams, cfg.connections, s.engines(), c.h2d_ms / cfg.streams, c.kernel_ms / cfg.streams,
                         c.d2h_ms / cfg.streams, true};
    SettingRecord record(s, "issue_order_copies", cfg);
    for (const ChildOrder& o : measure_in_child(s, "issue_order_copies", cfg, c.kernel_iterations, tag)) {
      const std::vector<PipelineOp> sequence = issue_sequence(cfg.streams, o.order);
      Timeline model = simulate_hardware_queues(sequence, machine, o.measured.name + " (model)");
      record.add(o, model, "h2d_lead_ms", h2d_lead_over_previous_kernel_ms(o.measured, cfg.streams));
      s.keep(o.measured);
      s.keep(model);
    }
    configs.push_back(record.to_json());
  }
  s.results().extra()["issue_order_copies"] = configs;
}

}  // namespace streams
