// Chapter 02's exercise program: cudaMemcpy device to device against the lesson's SM copy
// (launch_sm_copy, exercise 02.3) at one size, in interleaved trials, every copy checked byte for byte.
// `scripts/course grade` runs it to time exercise 02.3 against cudaMemcpy in the same process
// (exercises.json, "perf"); students run it to see where they stand.
//   bandwidth_exercise [--size 1GiB] [--reps N] [--warmup N] [--device N] [--json FILE] [--csv]
#include <cuda_runtime.h>

#include <iostream>
#include <string>

#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/report.hpp"
#include "copies.cuh"
#include "model.hpp"

namespace {

int run(int argc, char** argv) {
  course::CommonOptions common;
  std::string size_text = "1GiB";
  CLI::App app{"02_bandwidth, exercise 02.3: the lesson's SM copy (launch_sm_copy) against cudaMemcpy device to "
               "device, interleaved trials, every copy checked"};
  course::add_common_options(app, common);
  app.add_option("--size", size_text, "bytes per copy (one size: the duel is at the size that counts)")
      ->check(course::count_validator())
      ->capture_default_str();
  course::parse_command_line(app, argc, argv);
  // The sweep's checks and memory estimate hold for a sweep of one size: the same three buffers.
  bandwidth::SweepConfig sizes;
  sizes.min_bytes = sizes.max_bytes = sizes.source_bytes = course::parse_count(size_text);
  bandwidth::validate_sweep(sizes);

  const course::DeviceInfo info = course::require_device(common.device);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  bandwidth::check_fits_in_device_memory(sizes, free_bytes);

  course::RunReport report("02_bandwidth_exercise", argc, argv, common);
  report.results().set_device(info);
  const std::size_t bytes = sizes.max_bytes;
  report.results().config() = {{"bytes", bytes}, {"reps", common.timing.reps}, {"warmup", common.timing.warmup}};
  course::print_device_header(report.info(), info);

  bandwidth::CopyBench bench(bytes, 1);
  const bandwidth::CopyKind lesson_copy[] = {bandwidth::CopyKind::d2d_sm_kernel};
  // Throws on a wrong byte (exit 1): a fast copy that is wrong gets no row.
  const auto duel = bench.d2d_duel(bytes, common.timing, lesson_copy);

  auto& table = report.table("Device to device at " + bandwidth::size_label(bytes) +
                             ", interleaved trials, every copy checked");
  for (const bandwidth::DuelEntry& entry : duel) {
    const double gbs = bandwidth::gbs_from_bytes_seconds(static_cast<double>(bytes), entry.ms.median * 1e-3);
    table.add_row()
        .text("variant", entry.copy)
        .fixed("time_ms", entry.ms.median, 4)
        .fixed({"GB/s (bytes once)", "gbs"}, gbs, 1)
        .fixed({"CV%", "cv_percent"}, 100 * entry.ms.cv, 1)
        .ratio({"x memcpy", "vs_memcpy"}, duel[0].ms.median / entry.ms.median)  // entry 0: cudaMemcpy
        .json("bytes", bytes)
        .json("ms_min", entry.ms.min)
        .json("samples", entry.ms.count);
  }
  report.finish(std::cout);
  if (!common.json_path.empty()) report.info() << "wrote " << common.json_path << "\n";
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("bandwidth_exercise", run, argc, argv); }
