// What the runs in one process share: the devices they need, checked before anything is allocated or
// timed; the facts every results file records; one timed configuration.
#include <algorithm>
#include <iostream>

#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/timing.cuh"
#include "decomposition.hpp"
#include "runs.hpp"

namespace wave {
namespace {

// The most device memory each device of the run holds at any one time (index d: device --device + d).
std::vector<std::size_t> bytes_needed(const Settings& s) {
  const Problem& p = s.problem;
  std::vector<std::size_t> need(static_cast<std::size_t>(s.gpus), 0);
  const auto at_least = [&](const std::vector<std::size_t>& phase) {
    for (std::size_t d = 0; d < phase.size(); ++d) need[d] = std::max(need[d], phase[d]);
  };
  switch (s.mode) {
    case Mode::run: {
      const int buffers = buffers_for(s.variants.front());
      std::vector<std::size_t> bytes =
          device_bytes(p.nx, p.ny, s.slabs, s.gpus, buffers, exchange_depth(s.variants.front(), s.slabs));
      if (s.check) bytes[0] += slab_bytes(p.nx, p.ny, buffers);  // the one-slab reference runs while the slabs exist
      at_least(bytes);
      break;
    }
    case Mode::scaling: {
      const Variant& v = s.variants.front();
      const int buffers = buffers_for(v);
      at_least({slab_bytes(p.nx, p.ny, buffers)});  // the reference, made between two measured runs
      for (int g = 1; g <= s.gpus; ++g) {
        at_least(device_bytes(p.nx, p.ny, g, g, buffers, exchange_depth(v, g)));
        at_least(device_bytes(p.nx, p.ny * g, g, g, buffers, exchange_depth(v, g)));
      }
      break;
    }
    default: {
      int buffers = 3;
      for (const Variant& v : s.variants) buffers = std::max(buffers, buffers_for(v));
      const std::size_t stream = 2 * sizeof(float) * static_cast<std::size_t>(p.nx) * static_cast<std::size_t>(p.ny);
      at_least({std::max(slab_bytes(p.nx, p.ny, buffers), stream)});  // ladder, tune
    }
  }
  return need;
}

void check_memory(const Settings& s) {
  const std::vector<std::size_t> need = bytes_needed(s);
  for (int d = 0; d < s.gpus; ++d) {
    const course::DeviceInfo info = course::query_device(s.common.device + d);
    const std::size_t bytes = need[static_cast<std::size_t>(d)];
    if (bytes > info.global_mem_bytes)
      throw course::UsageError("the grid needs " + course::format_bytes(static_cast<double>(bytes)) + " on GPU " +
                               std::to_string(info.index) + ", which has " +
                               course::format_bytes(static_cast<double>(info.global_mem_bytes)) +
                               ": use a smaller grid or more GPUs");
  }
}

}  // namespace

void RunContext::add_peer_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines)
    if (std::find(peer_lines.begin(), peer_lines.end(), line) == peer_lines.end()) peer_lines.push_back(line);
}

std::pair<Measurement, std::vector<float>> RunContext::measure(const std::string& table, const Variant& v,
                                                               const Problem& p, int gpus, int slabs, bool overlap,
                                                               bool keep_field) {
  course::NvtxRange range((table + " " + v.name).c_str());
  SlabSolver solver({p, slabs, gpus, overlap, &v, settings.common.device});
  add_peer_lines(solver.peer_report());
  Measurement m{table, v.name, "single", p.nx, p.ny, gpus, slabs, overlap,
                time_solver(solver, settings.steps, settings.common.timing), {}, {}, {}, 1, {}};
  m.steps_per_pass = v.steps_per_pass;
  if (slabs > 1) m.halo_bytes_per_step = halo_bytes_per_step(p, v, slabs);
  return {m, keep_field ? solver.gather() : std::vector<float>{}};
}

double RunContext::stream_ceiling() {
  if (!stream_gcells) {
    course::NvtxRange range("stream_ceiling");
    const Problem& p = settings.problem;
    const double ms = time_stream_ceiling(p.nx, p.ny, settings.steps, settings.common.timing);
    stream_gcells = static_cast<double>(p.nx) * p.ny / (ms * 1e6);
  }
  return *stream_gcells;
}

void require_any_device() {
  if (course::usable_device_count() == 0)
    throw course::NoDeviceError("no usable CUDA device (this program needs an NVIDIA GPU)");
}

void record_setup(const Settings& s, course::ResultsFile& results, const course::DeviceInfo& device,
                  double ceiling_gbs, int gpus_present) {
  const Problem& p = s.problem;
  results.set_device(device);
  results.config() = {{"nx", p.nx},          {"ny", p.ny},     {"steps", s.steps}, {"velocity", to_string(p.model)},
                      {"sponge", p.sponge_width}, {"dt_s", p.dt_s}, {"courant", p.courant},
                      {"warmup", s.common.timing.warmup}, {"reps", s.common.timing.reps}};
  results.extra()["copy_bandwidth_gbs"] = ceiling_gbs;
  results.extra()["bytes_per_cell"] = bytes_per_cell;
  results.extra()["gpus_present"] = gpus_present;
}

RunContext open_devices(const Settings& s, course::RunReport& report) {
  const course::DeviceInfo info = course::require_device(s.common.device);
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (s.common.device + s.gpus > present)
    throw course::UsageError("asked for " + std::to_string(s.gpus) + " GPU(s) from device " +
                             std::to_string(s.common.device) + " but " + std::to_string(present) + " are present");
  check_memory(s);

  course::print_device_header(report.info(), info);
  RunContext ctx{s, report, 0.0, {}, {}, {}, {}};
  ctx.ceiling_gbs = course::measure_copy_bandwidth_gbs();
  const Problem& p = s.problem;
  report.info() << "grid " << p.nx << " x " << p.ny << ", " << to_string(p.model) << " velocity, v_max·dt/h = "
                << course::format_fixed(p.courant, 3) << " (limit " << course::format_fixed(courant_limit(), 4)
                << "), sponge " << p.sponge_width << ", copy ceiling " << course::format_fixed(ctx.ceiling_gbs, 0)
                << " GB/s, roofline counts " << bytes_per_cell << " bytes per cell\n";
  record_setup(s, report.results(), info, ctx.ceiling_gbs, present);
  return ctx;
}

}  // namespace wave
