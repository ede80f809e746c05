#include "tables.hpp"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <span>
#include <vector>

#include "model.hpp"

namespace bandwidth {

namespace {

using course::Column;
using course::Row;

constexpr double none = std::numeric_limits<double>::quiet_NaN();  // shows "-", null in the JSON

// Decimal GB/s of `lanes` transfers of `bytes` each in `ms`.
double gbs(std::size_t bytes, double ms, int lanes = 1) {
  return gbs_from_bytes_seconds(static_cast<double>(bytes) * lanes, ms * 1e-3);
}

nlohmann::json timing_json(const CopyTiming& t, std::size_t bytes, int lanes) {
  nlohmann::json out = {{"ms_median", t.ms.median},         {"ms_min", t.ms.min},
                        {"ms_max", t.ms.max},               {"cv", t.ms.cv},
                        {"samples", t.ms.count},            {"gbs", gbs(bytes, t.ms.median, lanes)},
                        {"copies_per_trial", t.copies_per_trial}, {"spin_covered_fraction", t.spin_covered_fraction}};
  if (!t.lane_ms.empty()) {  // each lane to its own end, in lane order
    nlohmann::json lane = nlohmann::json::array();
    for (const course::Stats& l : t.lane_ms) lane.push_back({{"ms_median", l.median}, {"cv", l.cv}});
    out["lanes_to_own_end"] = std::move(lane);
  }
  return out;
}

// A byte count shown as "32 MiB" (or "33554432 B"); the JSON keeps the number under the column's key.
Row& size_cell(Row& row, const Column& column, std::size_t bytes) {
  return row.text(column, size_label(bytes)).json(column.key, bytes);
}

// A fraction shown as a percentage; the JSON keeps the fraction under the column's key.
Row& percent_cell(Row& row, const Column& column, double fraction, int digits) {
  if (!std::isfinite(fraction)) return row.fixed(column, fraction, digits);
  return row.text(column, course::format_fixed(100 * fraction, digits)).json(column.key, fraction);
}

// A column whose value the JSON keeps inside one of a measured point's nested timings ("spin_blocked"
// or "events"): store_point, called after the cells, puts the whole timing in its place.
Column nested(const char* header, const char* timing) { return {header, timing}; }

// The JSON of one measured point, as every results file of this chapter has held it.
void store_point(Row& row, const std::string& scenario, const std::string& copy, const std::string& memory,
                 const CopyMeasurement& m, int lanes) {
  row.json("scenario", scenario)
      .json("copy", copy)
      .json("memory", memory)
      .json("bytes", m.bytes)
      .json("lanes", lanes)
      .json("spin_blocked", timing_json(m.spin_blocked, m.bytes, lanes))
      .json("events", timing_json(m.events, m.bytes, lanes))
      .json("verified", true);
}

// The keys of a recorded row that "extra" also holds, for figures.py and the results committed before.
nlohmann::json copy_keys(const nlohmann::json& row, std::initializer_list<const char*> keys) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* key : keys) out[key] = row.at(key);
  return out;
}

// GB/s of `copy` from `memory` at `bytes` in the sweep (spin-blocked), or none when not measured.
double one_way_gbs(std::span<const Series> series, const std::string& copy, const std::string& memory,
                   std::size_t bytes) {
  for (const Series& s : series)
    if (s.copy == copy && s.memory == memory)
      for (const CopyMeasurement& p : s.points)
        if (p.bytes == bytes) return gbs(p.bytes, p.spin_blocked.ms.median);
  return none;
}

// One contestant of the duel, as a row of the lesson's table or of the one beyond it. Returns the entry
// extra's "d2d_duel" keeps of it.
nlohmann::json duel_row(course::RowTable& table, const char* scenario, const DuelEntry& entry, const Duel& duel,
                        const Peaks& peaks) {
  const double once = gbs(duel.bytes, entry.ms.median);
  Row& row = table.add_row().text("copy", entry.copy);
  size_cell(row, "bytes", duel.bytes)
      .fixed({"GB/s (bytes once)", "gbs"}, once, 1)
      .fixed({"GB/s r+w", "gbs_read_plus_write"}, 2 * once, 1);
  percent_cell(row, {"CV%", "cv"}, entry.ms.cv, 1);
  row.ratio({"x memcpy", "vs_memcpy"}, duel.entries[0].ms.median / entry.ms.median);  // entry 0: cudaMemcpy
  percent_cell(row, {"% of ceiling", "fraction_of_ceiling"}, 2 * once / peaks.copy_ceiling_gbs, 1);
  row.json("scenario", scenario).json("ms_median", entry.ms.median);
  return copy_keys(row.to_json(), {"copy", "bytes", "ms_median", "cv", "gbs", "gbs_read_plus_write", "vs_memcpy"});
}

// One direction (or both at once) of a peer pair. Returns the row's JSON: the next row may move it.
nlohmann::json peer_row(course::RowTable& table, const std::string& scenario, const std::string& route,
                        const std::string& access, const std::string& memory, const CopyMeasurement& m, int lanes) {
  Row& row = table.add_row().text("copy", route).text({"peer access", "access"}, access);
  size_cell(row, "bytes", m.bytes)
      .fixed(nested("GB/s", "spin_blocked"), gbs(m.bytes, m.spin_blocked.ms.median, lanes), 1);
  percent_cell(row, nested("CV%", "spin_blocked"), m.spin_blocked.ms.cv, 1);
  percent_cell(row, nested("spin covered %", "spin_blocked"), m.spin_blocked.spin_covered_fraction, 0);
  store_point(row, scenario, route, memory, m, lanes);
  return row.to_json();
}

// Units, the K80's figures, the copy ceiling and the PCIe link.
void record_constants(course::ResultsFile& results, const Peaks& peaks, const course::DeviceInfo& info) {
  using K80 = K80Reference;
  results.extra()["units"] = {{"gbs_bytes_per_s", 1e9},
                              {"legacy_mb_bytes", legacy_mb_bytes},
                              {"legacy_mbs_per_gbs", legacy_mbs_from_gbs(1.0)},
                              {"d2d_rows", "bytes counted once; read + write = twice"}};
  results.extra()["k80"] = {{"bytes", K80::bytes},
                            {"h2d_legacy_mbs", K80::h2d_legacy_mbs},
                            {"d2h_legacy_mbs", K80::d2h_legacy_mbs},
                            {"d2d_legacy_mbs_read_plus_write", K80::d2d_legacy_mbs_read_plus_write}};
  results.extra()["copy_ceiling"] = {{"gbs_read_plus_write", peaks.copy_ceiling_gbs},
                                     {"bytes", peaks.copy_ceiling_bytes}};
  results.extra()["pcie"] = {{"generation", info.pcie_generation},
                             {"width", info.pcie_width},
                             {"theoretical_gbs", peaks.pcie_gbs > 0 ? nlohmann::json(peaks.pcie_gbs) : nullptr}};
}

// The sweep: one row per measured point, both timing methods (scenario "sweep").
void record_sweep(course::RunReport& report, std::span<const Series> series) {
  auto& table = report.table("Sweep: time per copy, spin-blocked vs events around one copy");
  for (const Series& s : series)
    for (const CopyMeasurement& m : s.points) {
      const CopyTiming& spin = m.spin_blocked;
      const CopyTiming& events = m.events;
      Row& row = table.add_row().text("copy", s.copy).text("memory", s.memory);
      size_cell(row, "bytes", m.bytes)
          .integer(nested("copies/trial", "spin_blocked"), spin.copies_per_trial)
          .fixed(nested("us/copy spin", "spin_blocked"), spin.ms.median * 1e3, 2)
          .fixed(nested("GB/s spin", "spin_blocked"), gbs(m.bytes, spin.ms.median), 2);
      percent_cell(row, nested("CV% spin", "spin_blocked"), spin.ms.cv, 1);
      percent_cell(row, nested("spin covered %", "spin_blocked"), spin.spin_covered_fraction, 0);
      row.fixed(nested("us/copy events", "events"), events.ms.median * 1e3, 2)
          .fixed(nested("GB/s events", "events"), gbs(m.bytes, events.ms.median), 2)
          .ratio(nested("events/spin", "events"), events.ms.median / spin.ms.median);
      store_point(row, "sweep", s.copy, s.memory, m, 1);
    }
}

// H2D and D2H at once, beside the sum of the one-way figures at the same size, and each direction's own
// rate while the other runs (bytes over the time to that lane's last copy) beside its one-way rate
// (scenario "bidirectional"). Lane 0 is H2D, lane 1 D2H (CopyBench::measure_bidirectional).
void record_both_ways(course::RunReport& report, std::span<const BothWays> both_ways, std::span<const Series> series) {
  if (both_ways.empty()) return;
  auto& table = report.table("H2D and D2H at once, two streams, " + size_label(both_ways.front().measurement.bytes) +
                             " each way");
  nlohmann::json extra = nlohmann::json::array();
  for (const BothWays& b : both_ways) {
    const CopyMeasurement& m = b.measurement;
    const double both = gbs(m.bytes, m.spin_blocked.ms.median, 2);
    const double h2d_alone = one_way_gbs(series, "h2d", b.memory, m.bytes);
    const double d2h_alone = one_way_gbs(series, "d2h", b.memory, m.bytes);
    const double sum = h2d_alone + d2h_alone;
    const auto& lanes = m.spin_blocked.lane_ms;
    const double h2d_during = lanes.size() == 2 ? gbs(m.bytes, lanes[0].median) : none;
    const double d2h_during = lanes.size() == 2 ? gbs(m.bytes, lanes[1].median) : none;
    Row& row = table.add_row().text("memory", b.memory);
    size_cell(row, "bytes", m.bytes).fixed({"GB/s both ways", "gbs_both_ways"}, both, 2);
    percent_cell(row, {"CV%", "cv"}, m.spin_blocked.ms.cv, 1);
    row.fixed({"H2D+D2H one-way sum", "gbs_one_way_sum"}, sum, 2).fixed({"both/sum", "both_over_sum"}, both / sum, 2);
    row.fixed({"H2D GB/s during", "gbs_h2d_during"}, h2d_during, 2)
        .fixed({"H2D during/alone", "h2d_during_over_alone"}, h2d_during / h2d_alone, 2)
        .fixed({"D2H GB/s during", "gbs_d2h_during"}, d2h_during, 2)
        .fixed({"D2H during/alone", "d2h_during_over_alone"}, d2h_during / d2h_alone, 2);
    percent_cell(row, nested("spin covered %", "spin_blocked"), m.spin_blocked.spin_covered_fraction, 0);
    store_point(row, "bidirectional", "h2d+d2h", b.memory, m, 2);
    row.json("gbs_h2d_one_way", h2d_alone).json("gbs_d2h_one_way", d2h_alone);
    extra.push_back(copy_keys(row.to_json(), {"memory", "bytes", "gbs_both_ways", "gbs_one_way_sum", "cv",
                                              "gbs_h2d_during", "gbs_d2h_during", "gbs_h2d_one_way",
                                              "gbs_d2h_one_way"}));
  }
  report.results().extra()["bidirectional"] = std::move(extra);
}

// When each copy call returned, against when its copy was complete (scenario "copy_return"). A copy
// whose call waited for it shows "after return" at the wait floor; one still running shows more.
void record_call_returns(course::RunReport& report, std::span<const CallReturnPoint> points) {
  if (points.empty()) return;
  auto& table = report.table("When the copy call returns: host clock from the call, each trial on an idle GPU");
  for (const CallReturnPoint& p : points) {
    const CallReturn& t = p.timing;
    Row& row = table.add_row().text("copy", p.copy).text("memory", p.memory).text("call", p.call);
    size_cell(row, "bytes", p.bytes)
        .fixed({"us to return", "return_us"}, t.returned_ms.median * 1e3, 2)
        .fixed({"us to complete", "complete_us"}, t.complete_ms.median * 1e3, 2)
        .fixed({"us after return", "after_return_us"}, t.after_return_ms.median * 1e3, 2)
        .fixed({"us wait floor", "wait_floor_us"}, t.wait_floor_ms.median * 1e3, 2);
    percent_cell(row, {"CV% complete", "complete_cv"}, t.complete_ms.cv, 1);
    row.json("scenario", "copy_return").json("samples", t.complete_ms.count).json("verified", true);
  }
}

// The lesson's part of the duel: cudaMemcpy and the lesson's SM copies (scenario "d2d_duel").
void record_duel(course::RunReport& report, const Duel& duel, const Peaks& peaks) {
  if (duel.entries.empty()) return;
  auto& table = report.table("Device to device at " + size_label(duel.bytes) + ", interleaved trials");
  nlohmann::json extra = nlohmann::json::array();
  for (std::size_t v = 0; v < duel.lesson_count; ++v)
    extra.push_back(duel_row(table, "d2d_duel", duel.entries[v], duel, peaks));
  report.results().extra()["d2d_duel"] = std::move(extra);
}

// Beyond the lesson: the tuned SM copies of the same duel, in a table of their own (scenario
// "d2d_duel_beyond"). After record_duel: "extra" lists the lesson's entries first, as it always has.
void record_beyond(course::RunReport& report, const Duel& duel, const Peaks& peaks) {
  if (duel.entries.size() <= duel.lesson_count) return;
  auto& table = report.table("Beyond the lesson: tuned SM copies, device to device at " + size_label(duel.bytes) +
                             ", in the same interleaved trials");
  auto& extra = report.results().extra()["d2d_duel"];
  for (std::size_t v = duel.lesson_count; v < duel.entries.size(); ++v)
    extra.push_back(duel_row(table, "d2d_duel_beyond", duel.entries[v], duel, peaks));
}

// The fastest SM copy of the duel, lesson and beyond; the line that names it, or "" when none ran.
std::string record_fastest_sm_copy(course::ResultsFile& results, const Duel& duel) {
  if (duel.entries.size() < 2) return "";
  std::size_t best = 1;  // every entry but cudaMemcpy (entry 0) is an SM copy
  for (std::size_t v = 2; v < duel.entries.size(); ++v)
    if (duel.entries[v].ms.median < duel.entries[best].ms.median) best = v;
  const double vs_memcpy = duel.entries[0].ms.median / duel.entries[best].ms.median;
  results.extra()["d2d_best_sm_copy"] = {{"copy", duel.entries[best].copy}, {"vs_memcpy", vs_memcpy}};
  return "fastest SM copy: " + duel.entries[best].copy + " at " + course::format_ratio(vs_memcpy) + " cudaMemcpy";
}

// The fit T(n) = α + n/β of every series of two or more points, both timing methods (scenario "fit").
void record_fits(course::RunReport& report, std::span<const Series> series, const Peaks& peaks) {
  auto& table = report.table("Fit T(n) = alpha + n/beta over the sweep");
  nlohmann::json extra = nlohmann::json::array();
  for (const Series& s : series) {
    if (s.points.size() < 2) continue;
    std::vector<double> bytes, spin_s, events_s;
    for (const auto& p : s.points) {
      bytes.push_back(static_cast<double>(p.bytes));
      spin_s.push_back(p.spin_blocked.ms.median * 1e-3);
      events_s.push_back(p.events.ms.median * 1e-3);
    }
    const auto fit = fit_latency_bandwidth(bytes, spin_s);
    const auto fit_events = fit_latency_bandwidth(bytes, events_s);
    const double beta_gbs = fit.bandwidth_bytes_per_s / 1e9;
    const bool device_copy = s.memory == "device";
    // D2D: β counts bytes once, the ceiling counts read + write.
    const double peak = device_copy ? peaks.copy_ceiling_gbs / 2 : peaks.pcie_gbs;
    Row& row = table.add_row().text("copy", s.copy).text("memory", s.memory);
    row.fixed({"alpha us", "latency_us"}, fit.latency_s * 1e6, 2)
        .fixed({"beta GB/s", "bandwidth_gbs"}, beta_gbs, 2)
        .text({"n_half", "half_bandwidth_bytes"}, size_label(static_cast<std::size_t>(fit.half_bandwidth_bytes)))
        .json("half_bandwidth_bytes", fit.half_bandwidth_bytes)
        .fixed({"% of peak", "percent_of_peak"}, peak > 0 ? 100 * beta_gbs / peak : none, 1);
    percent_cell(row, {"max resid %", "max_relative_residual"}, fit.max_relative_residual, 1);
    row.fixed({"alpha us (events)", "events_latency_us"}, fit_events.latency_s * 1e6, 2)
        .fixed({"beta GB/s (events)", "events_bandwidth_gbs"}, fit_events.bandwidth_bytes_per_s / 1e9, 2)
        .json("scenario", "fit")
        .json("peak_gbs", peak)
        .json("peak_kind", device_copy ? "copy ceiling / 2 (bytes once)" : "PCIe theoretical, one way");
    extra.push_back(copy_keys(row.to_json(), {"copy", "memory", "latency_us", "bandwidth_gbs", "half_bandwidth_bytes",
                                              "max_relative_residual", "peak_gbs", "peak_kind", "percent_of_peak",
                                              "events_latency_us", "events_bandwidth_gbs"}));
  }
  report.results().extra()["fits"] = std::move(extra);
}

// Every series at the book's size, beside the K80 in the old tool's units (scenario "book_size").
void record_book_size(course::RunReport& report, std::span<const Series> series, std::size_t source_bytes,
                      const Peaks& peaks) {
  using K80 = K80Reference;
  auto& table = report.table("At the K80 blog post's size, " + std::to_string(source_bytes) + " bytes, beside its K80");
  nlohmann::json extra = nlohmann::json::array();
  for (const Series& s : series)
    for (const CopyMeasurement& p : s.points) {
      if (p.bytes != source_bytes) continue;
      const bool device_copy = s.memory == "device";
      const double once = gbs(p.bytes, p.spin_blocked.ms.median);
      // The old tool counted D2D bytes twice: so do we in this column, to compare like with like.
      const double legacy = legacy_mbs_from_gbs(device_copy ? 2 * once : once);
      double k80 = none;  // the blog post measured one size only
      if (source_bytes == K80::bytes && s.memory == "pinned" && s.copy == "h2d") k80 = K80::h2d_legacy_mbs;
      if (source_bytes == K80::bytes && s.memory == "pinned" && s.copy == "d2h") k80 = K80::d2h_legacy_mbs;
      if (source_bytes == K80::bytes && s.copy == "d2d_memcpy") k80 = K80::d2d_legacy_mbs_read_plus_write;
      const double peak = device_copy ? peaks.copy_ceiling_gbs / 2 : peaks.pcie_gbs;
      Row& row = table.add_row().text("copy", s.copy).text("memory", s.memory);
      row.fixed({"GB/s", "gbs"}, once, 2)
          .fixed({"legacy MB/s", "legacy_mbs"}, legacy, 1)
          .fixed({"K80 legacy MB/s", "k80_legacy_mbs"}, k80, 1)
          .ratio({"x K80", "vs_k80"}, legacy / k80)
          .fixed({"% of peak", "percent_of_peak"}, peak > 0 ? 100 * once / peak : none, 1)
          .json("scenario", "book_size")
          .json("bytes", p.bytes)
          .json("legacy_counts_twice", device_copy)
          .json("cv", p.spin_blocked.ms.cv);
      extra.push_back(copy_keys(row.to_json(), {"copy", "memory", "bytes", "gbs", "legacy_mbs", "legacy_counts_twice",
                                                "k80_legacy_mbs", "cv"}));
    }
  report.results().extra()["book_size"] = std::move(extra);
}

// The peer-to-peer matrix: per pair and access, one row one way and one both ways at once (scenarios
// "p2p_one_way", "p2p_both_ways"). Returns a note, or "".
std::string record_p2p(course::RunReport& report, std::span<const PeerMeasurement> pairs, int device_count,
                       std::size_t bytes) {
  auto& table = report.table("Peer to peer, cudaMemcpyPeerAsync of " + size_label(bytes));
  nlohmann::json summary = {{"device_count", device_count}, {"bytes", bytes}, {"pairs", nlohmann::json::array()}};
  bool any_capable = false;
  for (const PeerMeasurement& pm : pairs) {
    any_capable = any_capable || pm.peer_capable;
    const std::string access = pm.peer_access ? "enabled" : (pm.peer_capable ? "off" : "unavailable");
    const std::string memory = pm.peer_access ? "enabled" : "off";  // what the rows' "memory" has always said
    const std::string src = std::to_string(pm.src), dst = std::to_string(pm.dst);
    const auto one = peer_row(table, "p2p_one_way", src + "->" + dst, access, memory, pm.one_way, 1);
    const auto both = peer_row(table, "p2p_both_ways", src + "<->" + dst, access, memory, pm.both_ways, 2);
    summary["pairs"].push_back({{"src", pm.src},
                                {"dst", pm.dst},
                                {"peer_access", pm.peer_access},
                                {"peer_capable", pm.peer_capable},
                                {"bytes", one.at("bytes")},
                                {"gbs_one_way", one.at("spin_blocked").at("gbs")},
                                {"gbs_both_ways", both.at("spin_blocked").at("gbs")},
                                {"cv_one_way", one.at("spin_blocked").at("cv")},
                                {"cv_both_ways", both.at("spin_blocked").at("cv")}});
  }
  summary["peer_access_available"] = any_capable;
  report.results().extra()["p2p"] = std::move(summary);
  if (any_capable) return "";
  return "peer access is unavailable between these GPUs (cudaDeviceCanAccessPeer = 0): only the staged path was "
         "measured";
}

// Why there is no peer-to-peer matrix (one GPU, or --p2p off); returns it as a note.
std::string record_no_p2p(course::ResultsFile& results, int device_count) {
  const std::string note =
      device_count < 2 ? "one GPU: no peer-to-peer matrix" : "peer-to-peer matrix skipped (--p2p off)";
  results.extra()["p2p"] = {{"device_count", device_count}, {"note", note}};
  return "peer to peer: " + note;
}

}  // namespace

std::vector<std::string> record_run(course::RunReport& report, const Measurements& measured,
                                    const course::DeviceInfo& info) {
  const auto& sweep = measured.sweep;
  std::vector<std::string> notes;
  record_constants(report.results(), measured.peaks, info);
  record_sweep(report, sweep.series);
  record_both_ways(report, sweep.both_ways, sweep.series);
  record_call_returns(report, sweep.call_returns);
  record_duel(report, measured.duel, measured.peaks);
  notes.push_back(record_fastest_sm_copy(report.results(), measured.duel));
  record_fits(report, sweep.series, measured.peaks);
  record_book_size(report, sweep.series, measured.source_bytes, measured.peaks);
  if (measured.p2p_ran)
    notes.push_back(record_p2p(report, measured.peers, measured.device_count, measured.p2p_bytes));
  else
    notes.push_back(record_no_p2p(report.results(), measured.device_count));
  record_beyond(report, measured.duel, measured.peaks);
  std::erase(notes, std::string());
  return notes;
}

}  // namespace bandwidth
