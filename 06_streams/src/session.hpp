/// \file session.hpp
/// \brief What every scenario of `streams` shares: the options and the plan, the device, the buffers (pinned
/// host in/out, device in/out, inputs filled once), the calibration (measured on first use), the report,
/// and the checks of a computed output.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "common/buffers.cuh"
#include "common/device_info.hpp"
#include "options.hpp"
#include "scenario_report.hpp"
#include "streams.cuh"

namespace streams {

class Session {
 public:
  /// Records the configuration; touches no GPU.
  Session(const Options& opt, const Plan& plan, int argc, char** argv);

  /// Takes the device (course::require_device: exit 77 without one), prints its header (not in a child),
  /// allocates and fills the buffers.
  void start();

  /// H, D, both copies at once and the balanced kernel, measured on first use.
  const Calibration& calibration();

  // The report (see ScenarioReport).
  void add(const ScenarioRow& r, nlohmann::json more = nlohmann::json::object(),
           std::optional<double> duplex_model_ms = {}) {
    report_.add(r, std::move(more), duplex_model_ms);
  }
  void show(const Timeline& tl) { report_.show(tl); }
  void keep(const Timeline& tl) { report_.keep(tl); }
  void say(const std::string& text) const { report_.say(text); }
  course::ResultsFile& results() { return report_.results(); }
  /// The table on stdout, the results file, the trace.
  void finish();

  const Options& opt() const { return opt_; }
  const Plan& plan() const { return plan_; }
  std::size_t elements() const { return plan_.elements; }
  int engines() const { return engines_; }
  const course::DeviceInfo& device() const { return device_; }
  float* host_in() { return host_in_.data(); }
  float* host_out() { return host_out_.data(); }
  float* dev_in() { return dev_in_.data(); }
  float* dev_out() { return dev_out_.data(); }

 private:
  Options opt_;
  Plan plan_;
  ScenarioReport report_;
  course::DeviceInfo device_;
  int engines_ = 2;
  course::PinnedBuffer<float> host_in_, host_out_;
  course::DeviceBuffer<float> dev_in_, dev_out_;
  std::optional<Calibration> calibration_;
};

/// Fills a host output with NaN bit patterns, so that an element nobody wrote cannot pass a check.
void poison(float* host, std::size_t n);

/// Every element of a sample against the CPU reference (all of them would take minutes at thousands of
/// FMAs per element), and the last one; throws std::runtime_error naming `what` and the element.
void check_against_reference(const float* in, const float* out, std::size_t n, int iterations, const char* what);

}  // namespace streams
