// Who runs while whom waits: the host beside the device, kernels beside kernels, and the default streams
// that quietly serialise the others.
#include <algorithm>
#include <string>

#include "common/report.hpp"
#include "scenarios.hpp"

namespace streams {

using course::format_fixed;

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

}  // namespace streams
