// 02_bandwidth: host↔device and device↔device bandwidth, measured properly.
//   bandwidth [--variants a,b] [--min-size 1KiB] [--max-size 1GiB] [--step 4] [--size 33554432] [--p2p auto|off]
//             [--p2p-size 256MiB] [--seed N] [--reps N] [--warmup N] [--device N] [--json FILE] [--csv]
// The driver: command line → plan (checked before any GPU is touched) → measurements → tables → report.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "beyond/sm_copy_tuned.cuh"
#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/report.hpp"
#include "common/timing.cuh"
#include "common/variants.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "tables.hpp"

namespace {

using course::format_fixed;

// What the tables' numbers mean, printed before the run: the units and the peaks they are compared with.
void print_legend(std::ostream& out, const bandwidth::Peaks& peaks, const course::DeviceInfo& info) {
  out << "units: GB/s = 1e9 bytes/s. The old bandwidthTest's MB/s = 1.024e6 bytes/s, so 1 GB/s = "
      << format_fixed(bandwidth::legacy_mbs_from_gbs(1.0), 4) << " legacy MB/s.\n"
      << "D2D rows count each byte once (bytes copied); the r+w columns count it twice, as the old tool did.\n"
      << "copy ceiling (cudaMemcpy D2D, " << bandwidth::size_label(peaks.copy_ceiling_bytes)
      << ", read + write): " << format_fixed(peaks.copy_ceiling_gbs, 1) << " GB/s; PCIe peak one way: "
      << (peaks.pcie_gbs > 0 ? format_fixed(peaks.pcie_gbs, 1) + " GB/s (gen " + std::to_string(info.pcie_generation) +
                                   " x" + std::to_string(info.pcie_width) + ")"
                             : std::string("unknown (the PCIe link is not visible here, e.g. in a VM)"))
      << "\n"
      << "sweep: \"spin\" = copies queued behind a spin kernel, timed from its end (GPU work only); \"events\" = an\n"
      << "  event pair around each single copy (host enqueue cost included). Both ways: per pair of copies.\n"
      << "fit: relative least squares; n_half = alpha*beta; % of peak: PCIe theoretical for host copies, half the\n"
      << "  copy ceiling for D2D. Book's size: legacy MB/s as the old tool reported them (D2D counted twice).\n"
      << "peer to peer: a->b one way; a<->b both ways at once, the two directions summed.\n\n";
}

int run(int argc, char** argv) {
  const std::vector<std::string> beyond_names = course::variant_names(bandwidth::tuned_sm_copy_variants());
  bandwidth::Options options;
  CLI::App app{"02_bandwidth: host<->device and device<->device copy bandwidth, timed with events and behind a "
               "spin kernel, every copy checked"};
  bandwidth::add_options(app, options, beyond_names);
  course::parse_command_line(app, argc, argv);
  // Everything that needs no GPU is checked before one is touched (so CI can test it).
  const bandwidth::Plan plan = bandwidth::make_plan(options, beyond_names);

  const course::DeviceInfo info = course::require_device(options.common.device);
  const int device_count = course::usable_device_count();
  const bool run_p2p = plan.p2p && device_count >= 2;
  bandwidth::check_device_memory(plan, options.common.device, run_p2p ? device_count : 0);

  course::RunReport report("02_bandwidth", argc, argv, options.common);
  report.results().set_device(info);
  report.results().config() = bandwidth::config_json(plan, run_p2p);
  course::print_device_header(report.info(), info);

  // The ceiling D2D is compared with: cudaMemcpy at (up to) 1 GiB, read + write counted.
  bandwidth::Measurements measured;
  measured.peaks.copy_ceiling_bytes = std::min<std::size_t>(std::size_t{1} << 30, plan.sweep.largest());
  measured.peaks.copy_ceiling_gbs = course::measure_copy_bandwidth_gbs(measured.peaks.copy_ceiling_bytes, plan.timing);
  measured.peaks.pcie_gbs = info.pcie_theoretical_gbs();
  print_legend(report.info(), measured.peaks, info);

  measured.source_bytes = plan.sweep.source_bytes;
  {
    bandwidth::CopyBench bench(plan.sweep.largest(), plan.seed);
    measured.sweep = bandwidth::measure_sweep(bench, plan);
    measured.duel = bandwidth::measure_duel(bench, plan);
  }  // the bench's buffers are freed before the peer matrix allocates its own
  measured.device_count = device_count;
  measured.p2p_ran = run_p2p;
  measured.p2p_bytes = plan.p2p_bytes;
  if (run_p2p) measured.peers = bandwidth::measure_p2p(plan, device_count);

  const std::vector<std::string> notes = bandwidth::record_run(report, measured, info);
  report.finish(std::cout);
  for (const std::string& note : notes) report.info() << note << "\n";
  if (!options.common.json_path.empty()) report.info() << "wrote " << options.common.json_path << "\n";
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("bandwidth", run, argc, argv); }
