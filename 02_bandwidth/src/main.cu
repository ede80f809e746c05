// 02_bandwidth: host↔device and device↔device bandwidth, measured properly.
//   bandwidth [--kinds all] [--min-size 1KiB] [--max-size 1GiB] [--step 4] [--size 33554432]
//             [--p2p auto|off] [--p2p-size 256MiB] [--reps N] [--warmup N] [--device N] [--json FILE] [--csv]
#include <cuda_runtime.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/progress.hpp"
#include "common/report.hpp"
#include "common/timing.cuh"
#include "copies.cuh"
#include "model.hpp"

namespace {

using bandwidth::CopyKind;
using bandwidth::CopyMeasurement;
using bandwidth::CopyTiming;
using bandwidth::HostMemoryKind;
using course::format_fixed;

// Decimal GB/s of `lanes` transfers of `bytes` each in `ms`.
double gbs(std::size_t bytes, double ms, int lanes = 1) {
  return course::gb_per_s(static_cast<double>(bytes) * lanes, ms);
}

nlohmann::json timing_json(const CopyTiming& t, std::size_t bytes, int lanes) {
  return {{"ms_median", t.ms.median},         {"ms_min", t.ms.min},
          {"ms_max", t.ms.max},               {"cv", t.ms.cv},
          {"samples", t.ms.count},            {"gbs", gbs(bytes, t.ms.median, lanes)},
          {"copies_per_trial", t.copies_per_trial}, {"spin_covered_fraction", t.spin_covered_fraction}};
}

// One row of the sweep table (when given) and of the JSON: both timings of a point.
void add_measurement(course::Table* table, course::ResultsFile& results, const std::string& scenario,
                     const std::string& copy, const std::string& memory, const CopyMeasurement& m, int lanes = 1) {
  const auto& spin = m.spin_blocked;
  const auto& events = m.events;
  if (table)
    table->add_row({copy, memory, bandwidth::size_label(m.bytes), std::to_string(spin.copies_per_trial),
                 format_fixed(spin.ms.median * 1e3, 2), format_fixed(gbs(m.bytes, spin.ms.median, lanes), 2),
                 format_fixed(spin.ms.cv * 100, 1), format_fixed(spin.spin_covered_fraction * 100, 0),
                 format_fixed(events.ms.median * 1e3, 2), format_fixed(gbs(m.bytes, events.ms.median, lanes), 2),
                 course::format_ratio(events.ms.median / spin.ms.median)});
  results.add_row({{"scenario", scenario},
                   {"copy", copy},
                   {"memory", memory},
                   {"bytes", m.bytes},
                   {"lanes", lanes},
                   {"spin_blocked", timing_json(spin, m.bytes, lanes)},
                   {"events", timing_json(events, m.bytes, lanes)},
                   {"verified", true}});
}

course::Table make_sweep_table() {
  // "spin": copies queued behind a spin kernel; "events": an event pair around one copy.
  return course::Table({"copy", "memory", "bytes", "copies/trial", "us/copy spin", "GB/s spin", "CV% spin",
                        "spin covered %", "us/copy events", "GB/s events", "events/spin"});
}

struct Series {
  std::string copy, memory;
  std::vector<CopyMeasurement> points;
};

struct Options {
  course::CommonOptions common;
  std::string kinds = "all";
  std::string min_size = "1KiB";
  std::string max_size = "1GiB";
  std::string source_size = "33554432";
  std::size_t step = 4;
  std::string p2p = "auto";
  std::string p2p_size = "256MiB";
  std::uint64_t seed = 20240613;
};

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"02_bandwidth: host<->device and device<->device copy bandwidth, timed with events and behind a "
               "spin kernel, every copy checked"};
  course::add_common_options(app, o.common);
  app.add_option("--kinds", o.kinds, "host memory kinds: all, or a comma list of pageable, pinned, write-combined, registered")
      ->capture_default_str();
  app.add_option("--min-size", o.min_size, "smallest transfer of the sweep")->check(course::count_validator())->capture_default_str();
  app.add_option("--max-size", o.max_size, "largest transfer of the sweep")->check(course::count_validator())->capture_default_str();
  app.add_option("--step", o.step, "size factor between sweep points")->check(CLI::Range(2, 1024))->capture_default_str();
  app.add_option("--size", o.source_size, "the book's transfer size (compared with its K80 figures)")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--p2p", o.p2p, "peer-to-peer matrix when 2 or more GPUs are present")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  app.add_option("--p2p-size", o.p2p_size, "transfer size of the peer-to-peer matrix")->check(course::count_validator())->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the random data every copy carries")->capture_default_str();
  course::parse_command_line(app, argc, argv);

  // Everything that needs no GPU is checked before one is touched (so CI can test it).
  const std::vector<HostMemoryKind> kinds = bandwidth::parse_host_memory_kinds(o.kinds);
  bandwidth::SweepConfig config;
  config.min_bytes = course::parse_count(o.min_size);
  config.max_bytes = course::parse_count(o.max_size);
  config.step = o.step;
  config.source_bytes = course::parse_count(o.source_size);
  bandwidth::validate_sweep(config);
  const std::size_t p2p_bytes = course::parse_count(o.p2p_size);

  const course::DeviceInfo info = course::require_device(o.common.device);
  course::print_device_header(std::cout, info);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  bandwidth::check_fits_in_device_memory(config, free_bytes);
  const int device_count = course::usable_device_count();
  const bool run_p2p = o.p2p == "auto" && device_count >= 2;

  course::ResultsFile results("02_bandwidth", argc, argv);
  results.set_device(info);
  const auto sizes = bandwidth::sweep_sizes(config.min_bytes, config.max_bytes, config.step, config.source_bytes);
  results.config() = {{"kinds", o.kinds},  {"min_bytes", config.min_bytes}, {"max_bytes", config.max_bytes},
                      {"step", config.step}, {"source_bytes", config.source_bytes}, {"sizes", sizes},
                      {"reps", o.common.timing.reps}, {"warmup", o.common.timing.warmup}, {"seed", o.seed},
                      {"p2p", run_p2p}, {"p2p_bytes", p2p_bytes}};

  // The ceiling D2D is compared with: cudaMemcpy at (up to) 1 GiB, read + write counted.
  const std::size_t ceiling_bytes = std::min<std::size_t>(std::size_t{1} << 30, config.largest());
  const double ceiling_gbs = course::measure_copy_bandwidth_gbs(ceiling_bytes, o.common.timing);
  const double pcie_peak_gbs = info.pcie_theoretical_gbs();

  std::cout << "units: GB/s = 1e9 bytes/s. The old bandwidthTest's MB/s = 1.024e6 bytes/s, so 1 GB/s = "
            << format_fixed(bandwidth::legacy_mbs_from_gbs(1.0), 4) << " legacy MB/s.\n"
            << "D2D rows count each byte once (bytes copied); the r+w columns count it twice, as the old tool did.\n"
            << "copy ceiling (cudaMemcpy D2D, " << bandwidth::size_label(ceiling_bytes)
            << ", read + write): " << format_fixed(ceiling_gbs, 1) << " GB/s; PCIe peak one way: "
            << (pcie_peak_gbs > 0 ? format_fixed(pcie_peak_gbs, 1) + " GB/s (gen " + std::to_string(info.pcie_generation) +
                                        " x" + std::to_string(info.pcie_width) + ")"
                                  : std::string("unknown (the PCIe link is not visible here, e.g. in a VM)"))
            << "\n\n";

  // ---- the sweep: every host kind both ways, then device to device
  course::Table sweep = make_sweep_table();
  course::Table bidirectional({"memory", "bytes", "GB/s both ways", "CV%", "H2D+D2H one-way sum", "both/sum",
                               "spin covered %"});
  nlohmann::json bidirectional_json = nlohmann::json::array();
  std::vector<Series> series;
  std::vector<double> one_way_at_source(2, 0);  // h2d, d2h for the current kind
  const CopyKind d2d_kinds[] = {CopyKind::d2d_memcpy, CopyKind::d2d_sm_kernel};
  course::Progress progress("sweep", (kinds.size() * 2 + std::size(d2d_kinds)) * sizes.size());
  {
    bandwidth::CopyBench bench(config.largest(), o.seed);
    for (const HostMemoryKind kind : kinds) {
      const std::string memory(bandwidth::kind_name(kind));
      bench.use_host_memory(kind);
      for (const CopyKind copy : {CopyKind::h2d, CopyKind::d2h}) {
        Series s{bandwidth::copy_kind_name(copy), memory, {}};
        course::NvtxRange range((s.copy + " " + memory).c_str());
        for (const std::size_t n : sizes) {
          progress.step(s.copy + " " + memory + " " + bandwidth::size_label(n));
          s.points.push_back(bench.measure(copy, n, o.common.timing));
          add_measurement(&sweep, results, "sweep", s.copy, memory, s.points.back());
          if (n == config.source_bytes)
            one_way_at_source[copy == CopyKind::h2d ? 0 : 1] = s.points.back().spin_blocked.ms.median;
        }
        series.push_back(std::move(s));
      }
      // H2D and D2H at the same time, on two streams: both copy engines at work.
      const CopyMeasurement both = bench.measure_bidirectional(config.source_bytes, o.common.timing);
      const double both_gbs = gbs(both.bytes, both.spin_blocked.ms.median, 2);
      const double sum_gbs = gbs(both.bytes, one_way_at_source[0]) + gbs(both.bytes, one_way_at_source[1]);
      bidirectional.add_row({memory, bandwidth::size_label(both.bytes), format_fixed(both_gbs, 2),
                             format_fixed(both.spin_blocked.ms.cv * 100, 1), format_fixed(sum_gbs, 2),
                             format_fixed(both_gbs / sum_gbs, 2),
                             format_fixed(both.spin_blocked.spin_covered_fraction * 100, 0)});
      bidirectional_json.push_back({{"memory", memory}, {"bytes", both.bytes}, {"gbs_both_ways", both_gbs},
                                    {"gbs_one_way_sum", sum_gbs}, {"cv", both.spin_blocked.ms.cv}});
      add_measurement(nullptr, results, "bidirectional", "h2d+d2h", memory, both, 2);
    }
    for (const CopyKind copy : d2d_kinds) {
      Series s{bandwidth::copy_kind_name(copy), "device", {}};
      course::NvtxRange range(s.copy.c_str());
      for (const std::size_t n : sizes) {
        progress.step(s.copy + " " + bandwidth::size_label(n));
        s.points.push_back(bench.measure(copy, n, o.common.timing));
        add_measurement(&sweep, results, "sweep", s.copy, "device", s.points.back());
      }
      series.push_back(std::move(s));
    }

    // ---- the D2D duel at the largest sweep size, trial by trial interleaved
    course::NvtxRange range("d2d duel");
    const auto duel = bench.d2d_duel(config.max_bytes, o.common.timing);
    course::Table duel_table({"copy", "bytes", "GB/s (bytes once)", "GB/s r+w", "CV%", "x memcpy", "% of ceiling"});
    nlohmann::json duel_json = nlohmann::json::array();
    const double memcpy_ms = duel[0].ms.median;  // entry 0 is cudaMemcpy
    std::size_t best = 1;                         // the fastest SM copy: every entry but memcpy
    for (std::size_t v = 0; v < duel.size(); ++v) {
      const double once = gbs(config.max_bytes, duel[v].ms.median);
      duel_table.add_row({duel[v].copy, bandwidth::size_label(config.max_bytes), format_fixed(once, 1),
                          format_fixed(2 * once, 1), format_fixed(duel[v].ms.cv * 100, 1),
                          course::format_ratio(memcpy_ms / duel[v].ms.median),
                          format_fixed(200 * once / ceiling_gbs, 1)});
      duel_json.push_back({{"copy", duel[v].copy}, {"bytes", config.max_bytes}, {"ms_median", duel[v].ms.median},
                           {"cv", duel[v].ms.cv}, {"gbs", once}, {"gbs_read_plus_write", 2 * once},
                           {"vs_memcpy", memcpy_ms / duel[v].ms.median}});
      if (v > 0 && duel[v].ms.median < duel[best].ms.median) best = v;
    }
    const std::string best_line = "fastest SM copy: " + duel[best].copy + " at " +
                                  course::format_ratio(memcpy_ms / duel[best].ms.median) + " cudaMemcpy";
    results.extra()["d2d_best_sm_copy"] = {{"copy", duel[best].copy}, {"vs_memcpy", memcpy_ms / duel[best].ms.median}};
    results.extra()["d2d_duel"] = duel_json;

    std::cout << "Sweep: per-copy time, spin-blocked (copies queued behind a spin kernel) vs events around one copy\n";
    sweep.print(std::cout, o.common.csv);
    std::cout << "\nH2D and D2H at once, two streams (" << bandwidth::size_label(config.source_bytes) << " each way)\n";
    bidirectional.print(std::cout, o.common.csv);
    std::cout << "\nDevice to device at " << bandwidth::size_label(config.max_bytes)
              << ", interleaved trials (events around single copies)\n";
    duel_table.print(std::cout, o.common.csv);
    std::cout << best_line << "\n";
  }
  results.extra()["bidirectional"] = bidirectional_json;

  // ---- the fit T(n) = α + n/β of every series, both timing methods
  course::Table fits({"copy", "memory", "alpha us", "beta GB/s", "n_half", "% of peak", "max resid %",
                      "alpha us (events)", "beta GB/s (events)"});
  nlohmann::json fits_json = nlohmann::json::array();
  for (const Series& s : series) {
    if (s.points.size() < 2) continue;
    std::vector<double> bytes, spin_s, events_s;
    for (const auto& p : s.points) {
      bytes.push_back(static_cast<double>(p.bytes));
      spin_s.push_back(p.spin_blocked.ms.median * 1e-3);
      events_s.push_back(p.events.ms.median * 1e-3);
    }
    const auto fit = bandwidth::fit_latency_bandwidth(bytes, spin_s);
    const auto fit_events = bandwidth::fit_latency_bandwidth(bytes, events_s);
    const double beta_gbs = fit.bandwidth_bytes_per_s / 1e9;
    const bool device_copy = s.memory == "device";
    // D2D: β counts bytes once, the ceiling counts read + write.
    const double peak = device_copy ? ceiling_gbs / 2 : pcie_peak_gbs;
    const std::string percent = peak > 0 ? format_fixed(100 * beta_gbs / peak, 1) : std::string("-");
    fits.add_row({s.copy, s.memory, format_fixed(fit.latency_s * 1e6, 2), format_fixed(beta_gbs, 2),
                  bandwidth::size_label(static_cast<std::size_t>(fit.half_bandwidth_bytes)), percent,
                  format_fixed(fit.max_relative_residual * 100, 1), format_fixed(fit_events.latency_s * 1e6, 2),
                  format_fixed(fit_events.bandwidth_bytes_per_s / 1e9, 2)});
    fits_json.push_back({{"copy", s.copy},
                         {"memory", s.memory},
                         {"latency_us", fit.latency_s * 1e6},
                         {"bandwidth_gbs", beta_gbs},
                         {"half_bandwidth_bytes", fit.half_bandwidth_bytes},
                         {"max_relative_residual", fit.max_relative_residual},
                         {"peak_gbs", peak},
                         {"peak_kind", device_copy ? "copy ceiling / 2 (bytes once)" : "PCIe theoretical, one way"},
                         {"percent_of_peak", peak > 0 ? nlohmann::json(100 * beta_gbs / peak) : nlohmann::json()},
                         {"events_latency_us", fit_events.latency_s * 1e6},
                         {"events_bandwidth_gbs", fit_events.bandwidth_bytes_per_s / 1e9}});
  }
  results.extra()["fits"] = fits_json;
  std::cout << "\nFit T(n) = alpha + n/beta over the sweep (relative least squares); n_half = alpha*beta; "
               "% of peak: PCIe theoretical for host copies, half the copy ceiling for D2D\n";
  fits.print(std::cout, o.common.csv);

  // ---- the book's size, side by side with its K80
  using K80 = bandwidth::K80Reference;
  course::Table book({"copy", "memory", "GB/s", "legacy MB/s", "K80 legacy MB/s", "x K80", "% of peak"});
  nlohmann::json book_json = nlohmann::json::array();
  for (const Series& s : series) {
    for (const auto& p : s.points) {
      if (p.bytes != config.source_bytes) continue;
      const bool device_copy = s.memory == "device";
      const double once = gbs(p.bytes, p.spin_blocked.ms.median);
      // The old tool counted D2D bytes twice: so do we in this column, to compare like with like.
      const double legacy = bandwidth::legacy_mbs_from_gbs(device_copy ? 2 * once : once);
      double k80 = 0;
      if (s.memory == "pinned" && s.copy == "h2d") k80 = K80::h2d_legacy_mbs;
      if (s.memory == "pinned" && s.copy == "d2h") k80 = K80::d2h_legacy_mbs;
      if (s.copy == "d2d_memcpy") k80 = K80::d2d_legacy_mbs_read_plus_write;
      const bool same_size = config.source_bytes == K80::bytes;
      const double peak = device_copy ? ceiling_gbs / 2 : pcie_peak_gbs;
      book.add_row({s.copy, s.memory, format_fixed(once, 2), format_fixed(legacy, 1),
                    k80 > 0 && same_size ? format_fixed(k80, 1) : std::string("-"),
                    k80 > 0 && same_size ? course::format_ratio(legacy / k80) : std::string("-"),
                    peak > 0 ? format_fixed(100 * once / peak, 1) : std::string("-")});
      book_json.push_back({{"copy", s.copy}, {"memory", s.memory}, {"bytes", p.bytes}, {"gbs", once},
                           {"legacy_mbs", legacy}, {"legacy_counts_twice", device_copy},
                           {"k80_legacy_mbs", k80 > 0 && same_size ? nlohmann::json(k80) : nlohmann::json()},
                           {"cv", p.spin_blocked.ms.cv}});
    }
  }
  results.extra()["book_size"] = book_json;
  std::cout << "\nAt the book's size (" << config.source_bytes
            << " bytes): legacy MB/s = the old bandwidthTest's unit (D2D counted twice, as it did)\n";
  book.print(std::cout, o.common.csv);

  results.extra()["units"] = {{"gbs_bytes_per_s", 1e9},
                              {"legacy_mb_bytes", bandwidth::legacy_mb_bytes},
                              {"legacy_mbs_per_gbs", bandwidth::legacy_mbs_from_gbs(1.0)},
                              {"d2d_rows", "bytes counted once; read + write = twice"}};
  results.extra()["k80"] = {{"bytes", K80::bytes},
                            {"h2d_legacy_mbs", K80::h2d_legacy_mbs},
                            {"d2h_legacy_mbs", K80::d2h_legacy_mbs},
                            {"d2d_legacy_mbs_read_plus_write", K80::d2d_legacy_mbs_read_plus_write}};
  results.extra()["copy_ceiling"] = {{"gbs_read_plus_write", ceiling_gbs}, {"bytes", ceiling_bytes}};
  results.extra()["pcie"] = {{"generation", info.pcie_generation},
                             {"width", info.pcie_width},
                             {"theoretical_gbs", pcie_peak_gbs > 0 ? nlohmann::json(pcie_peak_gbs) : nlohmann::json()}};

  // ---- peer to peer
  nlohmann::json p2p_json = {{"device_count", device_count}};
  if (run_p2p) {
    for (int d = 0; d < device_count; ++d) {
      CUDA_CHECK(cudaSetDevice(d));
      std::size_t f = 0, t = 0;
      CUDA_CHECK(cudaMemGetInfo(&f, &t));
      if (2 * (p2p_bytes + bandwidth::SweepConfig::guard_bytes) > f)
        throw course::UsageError("--p2p-size " + std::to_string(p2p_bytes) + " does not fit twice in device " +
                                 std::to_string(d) + "'s free memory");
    }
    CUDA_CHECK(cudaSetDevice(o.common.device));
    course::NvtxRange range("p2p");
    const auto pairs = bandwidth::measure_peer_matrix(device_count, p2p_bytes, o.common.timing, o.seed);
    course::Table p2p({"src", "dst", "peer access", "GB/s one way", "CV%", "GB/s both ways", "CV%", "spin covered %"});
    bool any_capable = false;
    for (const auto& pm : pairs) {
      any_capable = any_capable || pm.peer_capable;
      const double one = gbs(pm.one_way.bytes, pm.one_way.spin_blocked.ms.median);
      const double both = gbs(pm.both_ways.bytes, pm.both_ways.spin_blocked.ms.median, 2);
      p2p.add_row({std::to_string(pm.src), std::to_string(pm.dst),
                   pm.peer_access ? "enabled" : (pm.peer_capable ? "off" : "unavailable"), format_fixed(one, 1),
                   format_fixed(pm.one_way.spin_blocked.ms.cv * 100, 1), format_fixed(both, 1),
                   format_fixed(pm.both_ways.spin_blocked.ms.cv * 100, 1),
                   format_fixed(std::min(pm.one_way.spin_blocked.spin_covered_fraction,
                                         pm.both_ways.spin_blocked.spin_covered_fraction) * 100, 0)});
      const std::string access = pm.peer_access ? "enabled" : "off";
      add_measurement(nullptr, results, "p2p_one_way", std::to_string(pm.src) + "->" + std::to_string(pm.dst), access,
                      pm.one_way);
      add_measurement(nullptr, results, "p2p_both_ways", std::to_string(pm.src) + "<->" + std::to_string(pm.dst), access,
                      pm.both_ways, 2);
      p2p_json["pairs"].push_back({{"src", pm.src}, {"dst", pm.dst}, {"peer_access", pm.peer_access},
                                   {"peer_capable", pm.peer_capable}, {"bytes", pm.one_way.bytes},
                                   {"gbs_one_way", one}, {"gbs_both_ways", both},
                                   {"cv_one_way", pm.one_way.spin_blocked.ms.cv},
                                   {"cv_both_ways", pm.both_ways.spin_blocked.ms.cv}});
    }
    p2p_json["bytes"] = p2p_bytes;
    p2p_json["peer_access_available"] = any_capable;
    std::cout << "\nPeer to peer, cudaMemcpyPeerAsync of " << bandwidth::size_label(p2p_bytes)
              << " (both ways: the sum of the two directions)\n";
    p2p.print(std::cout, o.common.csv);
    if (!any_capable)
      std::cout << "peer access is unavailable between these GPUs (cudaDeviceCanAccessPeer = 0): only the staged "
                   "path was measured\n";
  } else {
    p2p_json["note"] = device_count < 2 ? "one GPU: no peer-to-peer matrix" : "peer-to-peer matrix skipped (--p2p off)";
    std::cout << "\npeer to peer: " << p2p_json["note"].get<std::string>() << "\n";
  }
  results.extra()["p2p"] = p2p_json;

  if (!o.common.json_path.empty()) {
    results.write(o.common.json_path);
    std::cout << "\nwrote " << o.common.json_path << "\n";
  }
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("bandwidth", run, argc, argv); }
