#include "measure.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "beyond/sm_copy_tuned.cuh"
#include "common/check.cuh"
#include "common/nvtx.hpp"
#include "common/progress.hpp"

namespace bandwidth {

namespace {

Series measure_series(CopyBench& bench, CopyKind copy, const std::string& memory, const Plan& plan,
                      course::Progress& progress) {
  Series s{copy_kind_name(copy), memory, {}};
  const std::string label = involves_host(copy) ? s.copy + " " + memory : s.copy;
  course::NvtxRange range(label.c_str());
  for (const std::size_t n : plan.sizes) {
    progress.step(label + " " + size_label(n));
    s.points.push_back(bench.measure(copy, n, plan.timing));
  }
  return s;
}

// Host memory kinds whose host → host copies the copy-return table shows: the CPU reads write-combined
// memory uncached, so a 32 MiB host → host copy from it would take long and teach nothing new.
bool host_to_host_measured(HostMemoryKind kind) {
  return kind == HostMemoryKind::pageable || kind == HostMemoryKind::pinned;
}

// When each copy call returns from the current host kind, against when its copy is complete: both
// directions, both calls, at every size of plan.call_return_sizes; host → host too for some kinds.
void measure_call_returns(CopyBench& bench, const HostMemoryVariant& kind, const Plan& plan,
                          course::Progress& progress, std::vector<CallReturnPoint>& out) {
  const std::string& memory = kind.name;
  course::NvtxRange range(("call return " + memory).c_str());
  for (const CopyKind copy : {CopyKind::h2d, CopyKind::d2h})
    for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async})
      for (const std::size_t n : plan.call_return_sizes) {
        progress.step(copy_call_name(call) + " " + copy_kind_name(copy) + " " + memory + " " + size_label(n));
        out.push_back({copy_kind_name(copy), memory, copy_call_name(call), n,
                       bench.measure_call_return(copy, call, n, plan.timing)});
      }
  if (!host_to_host_measured(kind.kind)) return;
  for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async})
    for (const std::size_t n : plan.call_return_sizes) {
      progress.step(copy_call_name(call) + " h2h " + memory + " " + size_label(n));
      out.push_back({"h2h", memory, copy_call_name(call), n, bench.measure_host_to_host_call_return(call, n, plan.timing)});
    }
}

// The same for cudaMemcpy's device → device copy (row "d2d", memory "device").
void measure_device_call_returns(CopyBench& bench, const Plan& plan, course::Progress& progress,
                                 std::vector<CallReturnPoint>& out) {
  course::NvtxRange range("call return device");
  for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async})
    for (const std::size_t n : plan.call_return_sizes) {
      progress.step(copy_call_name(call) + " d2d " + size_label(n));
      out.push_back({"d2d", "device", copy_call_name(call), n,
                     bench.measure_call_return(CopyKind::d2d_memcpy, call, n, plan.timing)});
    }
}

}  // namespace

void check_device_memory(const Plan& plan, int device, int peer_devices) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  check_fits_in_device_memory(plan.sweep, free_bytes);
  // The sweep's buffers are gone before the peer matrix allocates its own: each device's free memory now
  // is what the matrix will find.
  for (int d = 0; d < peer_devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    check_peer_matrix_fits(plan.p2p_bytes, free_bytes, d);
  }
  CUDA_CHECK(cudaSetDevice(device));
}

SweepResults measure_sweep(CopyBench& bench, const Plan& plan) {
  const auto host_kinds = plan.selection.pick(host_memory_variants());
  std::vector<CopyKind> device_copies;
  for (const DeviceCopyVariant& v : plan.selection.pick(device_copy_variants()))
    if (v.swept) device_copies.push_back(v.kind);
  const bool memcpy_d2d = std::find(device_copies.begin(), device_copies.end(), CopyKind::d2d_memcpy) != device_copies.end();
  const auto h2h_kinds = static_cast<std::size_t>(std::count_if(
      host_kinds.begin(), host_kinds.end(), [](const HostMemoryVariant& k) { return host_to_host_measured(k.kind); }));
  course::Progress progress("sweep", (host_kinds.size() * 2 + device_copies.size()) * plan.sizes.size() +
                                         (host_kinds.size() * 4 + h2h_kinds * 2 + (memcpy_d2d ? 2 : 0)) *
                                             plan.call_return_sizes.size());
  SweepResults out;
  for (const HostMemoryVariant& kind : host_kinds) {
    bench.use_host_memory(kind.kind);
    for (const CopyKind copy : {CopyKind::h2d, CopyKind::d2h})
      out.series.push_back(measure_series(bench, copy, kind.name, plan, progress));
    // H2D and D2H at the same time, on two streams: both copy engines at work.
    out.both_ways.push_back({kind.name, bench.measure_bidirectional(plan.sweep.source_bytes, plan.timing)});
    measure_call_returns(bench, kind, plan, progress, out.call_returns);
  }
  if (memcpy_d2d) measure_device_call_returns(bench, plan, progress, out.call_returns);
  for (const CopyKind copy : device_copies) out.series.push_back(measure_series(bench, copy, "device", plan, progress));
  return out;
}

Duel measure_duel(CopyBench& bench, const Plan& plan) {
  std::vector<CopyKind> sm_copies;  // cudaMemcpy is always entry 0: the baseline
  bool any_device_copy = false;
  for (const DeviceCopyVariant& v : plan.selection.pick(device_copy_variants())) {
    any_device_copy = true;
    if (v.kind != CopyKind::d2d_memcpy) sm_copies.push_back(v.kind);
  }
  const std::vector<SmCopyVariant> beyond = plan.selection.pick(tuned_sm_copy_variants());
  Duel duel;
  if (!any_device_copy && beyond.empty()) return duel;
  course::NvtxRange range("d2d duel");
  duel.bytes = plan.sweep.max_bytes;
  duel.entries = bench.d2d_duel(duel.bytes, plan.timing, sm_copies, beyond);
  duel.lesson_count = 1 + sm_copies.size();
  return duel;
}

std::vector<PeerMeasurement> measure_p2p(const Plan& plan, int device_count) {
  course::NvtxRange range("p2p");
  return measure_peer_matrix(device_count, plan.p2p_bytes, plan.timing, plan.seed);
}

}  // namespace bandwidth
