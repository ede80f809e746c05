// first_kernel: chapter 00's ladder. Every kernel is checked against the CPU, then timed with events
// (warm-up runs, then the median of the timed ones), and reported in GB/s.
//   first_kernel                                   the ladder at the default sizes (2^26 floats, 8192 x 8192)
//   first_kernel --variants copy_coalesced,copy_strided --stride 8
//   first_kernel --levels                          also the memory levels: shared, L1 latency; L2 bandwidth
//   first_kernel --csv                             only the tables, as CSV, on stdout
#include <cuda_runtime.h>

#include <iostream>
#include <string>

#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/report.hpp"
#include "common/timing.cuh"
#include "common/variants.hpp"
#include "first_kernel.hpp"
#include "levels.hpp"
#include "options.hpp"
#include "workspace.hpp"

namespace {

using namespace first_kernel;

std::string size_text(const Problem& p, const Variant& v) {
  if (v.layout == Layout::matrix) return std::to_string(p.width) + " x " + std::to_string(p.height);
  return std::to_string(p.n) + " floats";
}

std::string shape_text(LaunchShape s) {
  if (s.grid.y == 1 && s.block.y == 1) return std::to_string(s.grid.x) + " x " + std::to_string(s.block.x);
  return "(" + std::to_string(s.grid.x) + "," + std::to_string(s.grid.y) + ") x (" + std::to_string(s.block.x) +
         "," + std::to_string(s.block.y) + ")";
}

void record_levels(course::RunReport& report, const Problem& p, course::TimingOptions timing) {
  auto& table = report.table("The memory levels (latency: one thread's dependent loads; bandwidth: every SM reading)");
  for (const LevelResult& r : measure_levels(p.sm_count, p.max_threads_per_sm, timing)) {
    course::Row& row = table.add_row().text("level", r.level).text("method", r.method);
    row.text({"footprint", "footprint"}, course::format_bytes(static_cast<double>(r.footprint_bytes)));
    row.fixed({"ns/load", "ns_per_load"}, r.ns_per_load, 1).fixed({"GB/s", "gbs"}, r.gbs, 0);
    row.fixed({"CV%", "cv_percent"}, 100 * r.ms.cv, 1);
    row.json("bytes", r.footprint_bytes).json("ms_median", r.ms.median).json("samples", r.ms.count);
  }
}

int run(int argc, char** argv) {
  Options opt;
  CLI::App app{"Chapter 00: your first kernels. SAXPY, a grid-stride loop, a coalesced and a strided copy, "
               "a 2-D copy and two transposes, each checked against the CPU, then timed."};
  add_options(app, opt);
  course::parse_command_line(app, argc, argv);
  Problem p = check_options(opt);
  const auto chosen = course::select_variants(variants(), opt.variant_names);

  const course::DeviceInfo info = course::require_device(opt.common.device);
  p.sm_count = info.sm_count;
  CUDA_CHECK(cudaDeviceGetAttribute(&p.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, info.index));
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (const std::size_t need = device_bytes_needed(p, chosen); need > free_bytes)
    throw course::UsageError("these sizes need " + course::format_bytes(static_cast<double>(need)) +
                             " of device memory; " + course::format_bytes(static_cast<double>(free_bytes)) + " free");

  course::RunReport report("00_first_kernel", argc, argv, opt.common);
  report.results().set_device(info);
  report.results().config() = {{"n", p.n},           {"width", p.width},   {"height", p.height},
                               {"stride", p.stride}, {"block", p.block},   {"a", p.a},
                               {"reps", opt.common.timing.reps},            {"warmup", opt.common.timing.warmup},
                               {"max_threads_per_sm", p.max_threads_per_sm}, {"levels", opt.levels}};
  course::print_device_header(report.info(), info);

  Workspace workspace(p, chosen);
  auto& table = report.table("The ladder: each kernel checked against the CPU, then the median of " +
                             std::to_string(opt.common.timing.reps) + " event-timed runs");
  for (const Variant& v : chosen) {
    course::NvtxRange range(v.name);
    workspace.check(v);  // a wrong kernel ends the run here (exit 1): it gets no row
    const course::Stats ms = workspace.time(v, opt.common.timing);
    const LaunchShape shape = v.shape(p);
    table.add_row()
        .text("variant", v.name)
        .text("size", size_text(p, v))
        .text({"grid x block", "launch"}, shape_text(shape))
        .fixed("time_ms", ms.median, 4)
        .fixed({"GB/s", "gbs"}, course::gb_per_s(v.bytes(p), ms.median), 1)
        .fixed({"CV%", "cv_percent"}, 100 * ms.cv, 1)
        .json("bytes", v.bytes(p))
        .json("teaches", v.teaches)
        .json("grid", {shape.grid.x, shape.grid.y})
        .json("block", {shape.block.x, shape.block.y})
        .json("ms_min", ms.min)
        .json("ms_max", ms.max)
        .json("samples", ms.count)
        .json("checked", true);
  }
  if (opt.levels) record_levels(report, p, opt.common.timing);
  report.finish(std::cout);
  if (!opt.common.json_path.empty()) report.info() << "wrote " << opt.common.json_path << "\n";
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("first_kernel", run, argc, argv); }
