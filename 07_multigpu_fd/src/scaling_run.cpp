// Strong and weak scaling over 1 … --gpus GPUs, each with and without overlap.
#include "runs.hpp"

namespace wave {

bool run_scaling(RunContext& ctx) {
  const Settings& s = ctx.settings;
  const Variant variant = ctx.resolve(s.variants.front());
  const Problem& p = s.problem;
  course::RowTable& strong = ctx.report.table("strong");
  course::RowTable& weak = ctx.report.table("weak");
  // Strong: the same grid on 1 … gpus GPUs; weak: ny × g rows on g GPUs. The strong runs are compared
  // bit for bit with the one-GPU field (the same number of steps is run every time).
  const int total_steps = (s.common.timing.warmup + s.common.timing.reps) * s.steps;
  std::vector<float> reference;
  double base_strong[2] = {0, 0}, base_weak[2] = {0, 0};
  bool all_equal = true;
  for (int g = 1; g <= s.gpus; ++g) {
    for (const bool ov : {true, false}) {
      auto [m, field] = ctx.measure("strong", variant, p, g, g, ov, g > 1);
      if (g == 1 && ov) reference = one_gpu_reference(p, variant, total_steps, s.common.device);
      if (g > 1) {
        m.bitwise = bitwise_equal(field, reference);
        all_equal = all_equal && *m.bitwise;
      }
      double& base = base_strong[ov ? 0 : 1];
      if (g == 1) base = m.ms_per_step;
      m.efficiency = base / (g * m.ms_per_step);
      record(strong.add_row(), m, ctx.ceiling_gbs);
    }
    const Problem taller = weak_problem(s.input, g);
    for (const bool ov : {true, false}) {
      Measurement m = ctx.measure("weak", variant, taller, g, g, ov, false).first;
      double& base = base_weak[ov ? 0 : 1];
      if (g == 1) base = m.ms_per_step;
      m.efficiency = base / m.ms_per_step;
      record(weak.add_row(), m, ctx.ceiling_gbs);
    }
  }
  return all_equal;
}

}  // namespace wave
