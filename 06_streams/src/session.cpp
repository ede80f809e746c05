#include "session.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "common/device.cuh"
#include "common/nvtx.hpp"
#include "scenarios.hpp"

namespace streams {

using course::format_fixed;
using course::format_ratio;

namespace {

// The config's "scenario": "all", or the names that ran, comma-separated (as --scenario took them once).
std::string scenario_label(const Plan& plan) {
  if (plan.scenarios.size() == scenarios().size()) return "all";
  std::string label;
  for (const auto& name : plan.scenarios) label += (label.empty() ? "" : ",") + name;
  return label;
}

}  // namespace

Session::Session(const Options& opt, const Plan& plan, int argc, char** argv)
    : opt_(opt), plan_(plan), report_(opt, argc, argv) {
  results().config() = {{"scenario", scenario_label(plan_)}, {"size_bytes", plan_.bytes}, {"elements", plan_.elements},
                        {"chunks", opt_.chunks}, {"streams", opt_.streams}, {"sweep", plan_.sweep},
                        {"sweep_streams", opt_.sweep_streams}, {"reps", opt_.common.timing.reps},
                        {"warmup", opt_.common.timing.warmup}};
}

void Session::start() {
  const std::size_t elements = plan_.elements;
  device_ = course::require_device(opt_.common.device);
  results().set_device(device_);
  if (!plan_.child) course::print_device_header(report_.info(), device_);
  engines_ = std::max(1, device_.async_engine_count >= 2 ? 2 : device_.async_engine_count);
  host_in_ = course::PinnedBuffer<float>(elements);
  host_out_ = course::PinnedBuffer<float>(elements);
  dev_in_ = course::DeviceBuffer<float>(elements);
  dev_out_ = course::DeviceBuffer<float>(elements);
  fill_inputs(host_in_.span(), 2024u);
  dev_in_.upload(host_in_.span());
  dev_out_.fill_bytes(0xff);
}

const Calibration& Session::calibration() {
  if (!calibration_) {
    course::NvtxRange range("calibration");
    calibration_ = calibrate_balanced(host_in_.data(), host_out_.data(), dev_in_.data(), dev_out_.data(), elements(),
                                      {2, 7}, opt_.kernel_iterations);
    const Calibration& c = *calibration_;
    results().extra()["calibration"] = {{"h2d_ms", c.h2d_ms}, {"d2h_ms", c.d2h_ms}, {"both_copies_ms", c.both_copies_ms},
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

void Session::finish() { report_.finish(std::cout); }

void poison(float* host, std::size_t n) { std::memset(host, 0xff, n * sizeof(float)); }

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

}  // namespace streams
