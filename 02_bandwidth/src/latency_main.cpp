// Chapter 02's latency probe: how long one load waits for memory, for a footprint that fits in L2 and
// for ones far beyond it (a pointer chase: one thread, each address read from the line before). Little's
// law in the lesson (bytes in flight = latency x bandwidth) takes its latency from here.
//   memory_latency [--footprints 1MiB,16MiB,64MiB,256MiB,1GiB,4GiB] [--loads 100000] [--seed N] [--reps N] [--warmup N]
//                  [--device N] [--json FILE] [--csv]
#include <cuda_runtime.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/report.hpp"
#include "latency.cuh"
#include "latency.hpp"
#include "model.hpp"

namespace {

int run(int argc, char** argv) {
  course::CommonOptions common;
  common.timing = {1, 5};  // each timed run is ~0.1 s of back-to-back misses: five give a steady median
  std::vector<std::string> footprint_items{"1MiB", "16MiB", "64MiB", "256MiB", "1GiB", "4GiB"};
  std::string loads_text = "100000";
  std::uint64_t seed = 2;
  CLI::App app{"02_bandwidth: the latency of one load (pointer chase: one thread follows a random cycle "
               "through 128-byte lines), for each footprint"};
  course::add_common_options(app, common);
  course::add_list_option(app, "--footprints", footprint_items,
                          "bytes the chase walks through (multiples of 128: one line per load)");
  app.add_option("--loads", loads_text, "dependent loads per timed run")->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the random cycle")->capture_default_str();
  course::parse_command_line(app, argc, argv);
  const std::vector<std::uint64_t> footprints = bandwidth::parse_footprints(footprint_items);
  const std::uint64_t loads = course::parse_count(loads_text);
  bandwidth::check_loads(loads);

  const course::DeviceInfo info = course::require_device(common.device);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  for (const std::uint64_t bytes : footprints)  // the chase's buffer plus its cycle (4 bytes a line)
    if (bytes + bytes / bandwidth::latency_line_bytes * 4 > free_bytes / 10 * 9)
      throw course::UsageError("--footprints " + bandwidth::size_label(bytes) + ": does not fit in the " +
                               "device memory that is free (" + bandwidth::size_label(free_bytes) + ")");

  course::RunReport report("02_bandwidth", argc, argv, common);
  report.results().set_device(info);
  report.results().config() = {{"footprints", footprints}, {"loads", loads}, {"seed", seed},
                               {"line_bytes", bandwidth::latency_line_bytes},
                               {"reps", common.timing.reps}, {"warmup", common.timing.warmup}};
  course::print_device_header(report.info(), info);

  auto& table = report.table("Latency of one load, " + std::to_string(loads) +
                             " dependent loads per run (one thread), median of " +
                             std::to_string(common.timing.reps) + " runs");
  for (const std::uint64_t bytes : footprints) {
    bandwidth::PointerChase chase(bytes, seed);
    // Throws (exit 1) when the chase did not end where the cycle says: a wrong walk times nothing.
    const course::Stats ns = chase.time_ns_per_load(loads, common.timing);
    table.add_row()
        .text("footprint", bandwidth::size_label(bytes))
        .fixed({"ns per load", "ns_per_load"}, ns.median, 1)
        .fixed({"min", "ns_min"}, ns.min, 1)
        .fixed({"max", "ns_max"}, ns.max, 1)
        .fixed({"x L2 size", "x_l2"}, static_cast<double>(bytes) / static_cast<double>(info.l2_bytes), 2)
        .json("bytes", bytes)
        .json("lines", chase.lines())
        .json("samples", ns.count);
  }
  report.finish(std::cout);
  if (!common.json_path.empty()) report.info() << "wrote " << common.json_path << "\n";
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("memory_latency", run, argc, argv); }
