// This process as one rank of the NCCL backend; rank 0 reports for all of them.
#include <ostream>

#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/timing.cuh"
#include "runs.hpp"
#if defined(COURSE_HAVE_NCCL)
#include "nccl_backend.cuh"
#endif

namespace wave {

std::optional<bool> run_nccl(const Settings& s, course::RunReport& report) {
#if defined(COURSE_HAVE_NCCL)
  require_any_device();  // one line and exit 77, not a CUDA error from inside the backend
  const Problem& p = s.problem;
  const Variant& variant = s.variants.front();
  const NcclRunResult r = run_nccl_rank(p, variant, s.overlap, s.steps, s.common.timing, s.nccl_id_file, s.check);
  if (!r.is_root) return std::nullopt;
  const course::DeviceInfo info = course::query_device(r.device);
  course::print_device_header(report.info(), info);
  const double ceiling = course::measure_copy_bandwidth_gbs();
  Measurement m{"nccl", variant.name, "nccl", p.nx, p.ny, r.world, r.world, s.overlap, r.ms_per_step, {}, {}, {}, 1, {}};
  if (r.checked) m.bitwise = r.mismatches == 0;
  m.steps_per_pass = variant.steps_per_pass;
  if (r.world > 1) m.halo_bytes_per_step = halo_bytes_per_step(p, variant, r.world);
  record(report.table("nccl").add_row(), m, ceiling);
  record_setup(s, report.results(), info, ceiling, course::usable_device_count());
  report.info() << "backend nccl: " << r.world << " processes, NCCL_NVLS_ENABLE=0";
  if (r.checked) report.info() << "; " << r.mismatches << " cells differ from one GPU (max |diff| " << r.max_abs_diff << ")";
  report.info() << "\n";
  return m.bitwise.value_or(true);
#else
  (void)s;
  (void)report;
  throw course::UsageError("this build has no NCCL backend (NCCL was not found at configure time)");
#endif
}

}  // namespace wave
