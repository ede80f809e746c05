// One configuration: slabs on GPUs of this process, optionally checked against one GPU and snapshotted.
#include <ostream>

#include "runs.hpp"
#include "snapshot.hpp"

namespace wave {
namespace {

// The final field twice: a .npy of at most 512² for the reader, a 200² copy in the results file.
void write_snapshots(RunContext& ctx, const std::vector<float>& field, int steps_done) {
  const Settings& s = ctx.settings;
  const Problem& p = s.problem;
  const Snapshot full = downsample(field, p.nx, p.ny, 512);
  write_snapshot_files(s.snapshot, snapshot_metadata(p, steps_done, full), full);
  const Snapshot small = downsample(field, p.nx, p.ny, 200);
  ctx.report.results().extra()["snapshots"].push_back(
      embedded_snapshot(snapshot_metadata(p, steps_done, small), small));
  ctx.report.info() << "snapshot: " << s.snapshot << " (" << full.width << " x " << full.height << ", stride "
                    << full.stride << ") and " << s.snapshot << ".json\n";
}

}  // namespace

bool run_slabs(RunContext& ctx) {
  const Settings& s = ctx.settings;
  const Problem& p = s.problem;
  const Variant variant = ctx.resolve(s.variants.front());
  SlabSolver solver({p, s.slabs, s.gpus, s.overlap, &variant, s.common.device});
  ctx.add_peer_lines(solver.peer_report());
  Measurement m{"run", variant.name, "single", p.nx, p.ny, s.gpus, s.slabs, s.overlap,
                time_solver(solver, s.steps, s.common.timing), {}, {}, {}, 1, {}};
  m.steps_per_pass = variant.steps_per_pass;
  if (s.slabs > 1) m.halo_bytes_per_step = halo_bytes_per_step(p, variant, s.slabs);
  std::vector<float> field;
  if (s.check || !s.snapshot.empty()) field = solver.gather();
  if (s.check)
    m.bitwise = bitwise_equal(field, one_gpu_reference(p, variant, solver.steps_done(), s.common.device));
  if (!s.snapshot.empty()) write_snapshots(ctx, field, solver.steps_done());
  record(ctx.report.table("run").add_row(), m, ctx.ceiling_gbs);
  return m.bitwise.value_or(true);
}

}  // namespace wave
