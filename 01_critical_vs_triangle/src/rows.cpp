#include "rows.hpp"

#include <omp.h>

#include <cstdio>
#include <string>

#include "partition.hpp"
#include "vector_clones.hpp"

namespace md {

namespace {

/// A cell whose text is not its JSON value (a range, a dash, an exponent): the table shows `text`, the
/// JSON keeps `value` under the column's key.
void cell(course::Row& row, const course::Column& column, std::string text, nlohmann::json value) {
  row.text(column, std::move(text));
  row.json(column.key, std::move(value));
}

std::string range(double lo, double hi) { return course::format_fixed(lo, 3) + "-" + course::format_fixed(hi, 3); }

std::string exponent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

}  // namespace

void record_row(course::RowTable& table, const Config& config, std::size_t atoms, int reps, const Measurement& m,
                double serial_ms) {
  const Variant& v = *m.variant;
  const ForceMeasurement& f = m.force;
  const bool synchronises = v.name != "serial", triangle = v.name == "triangle";
  const bool has_section = v.critical_section || v.name == "thread_arrays";
  course::Row& row = table.add_row();
  row.integer("threads", m.threads).text("strategy", std::string(v.name)).fixed("force_ms", f.ms, 3);
  cell(row, {"force_range", "force_ms_min"}, range(f.min_ms, f.max_ms), f.min_ms);
  row.json("force_ms_max", f.max_ms).ratio("speedup", serial_ms / f.ms);
  if (config.steps > 0) {
    const double ns_per_atom_step = m.loop.seconds * 1e9 / (static_cast<double>(atoms) * m.loop.steps);
    row.fixed({"steps/s", "loop_steps_per_s"}, m.loop.steps_per_second(), 1)
        .fixed({"ns/atom-step", "ns_per_atom_step"}, ns_per_atom_step, 1)
        .json("loop_force_s", m.loop.force_seconds)
        .json("loop_neighbour_s", m.loop.neighbour_seconds)
        .json("loop_seconds", m.loop.seconds);
  }
  cell(row, {"max_rel_err", "max_rel_error"}, exponent(f.max_error), f.max_error);
  // The idle analysis last: its model and triangle columns exist only for the variants they describe, and
  // a column appears where its first row puts it, so these must follow every column all rows share.
  cell(row, "idle_ms", synchronises ? course::format_fixed(f.idle_ms, 3) : "-", f.idle_ms);
  cell(row, {"idle_range", "idle_ms_min"}, synchronises ? range(f.idle_min_ms, f.idle_max_ms) : "-", f.idle_min_ms);
  row.json("idle_ms_max", f.idle_max_ms);
  const double section_us = f.idle.section_mean_s * 1e6;
  cell(row, {"Tc_us", "section_us"}, has_section ? course::format_fixed(section_us, 1) : "-", section_us);
  if (v.critical_section) row.fixed("model_idle_ms", model_idle_s(v, m.threads, f.idle.section_mean_s) * 1e3, 3);
  if (triangle) {
    // `clamped`: Δ hit its limit 2N/(Nth(Nth-1)) (n0 would be negative), so the model's halving cannot hold.
    const double step_limit = max_triangle_step(atoms, m.threads);
    const bool clamped = m.threads > 1 && f.triangle_step >= step_limit;
    row.fixed({"delta", "triangle_step"}, f.triangle_step, 0).json("max_triangle_step", step_limit);
    cell(row, "clamped", clamped ? "yes" : "no", clamped);
  }
  row.json("cells", config.initial ? nlohmann::json() : nlohmann::json(config.cells)).json("atoms", atoms).json("reps", reps);
  row.json("idle_before_ms", f.idle.idle_before_s * 1e3).json("idle_after_ms", f.idle.idle_after_s * 1e3);
  row.json("particle_ns", f.idle.particle_s * 1e9);
  row.json("isa", std::string(v.vector_clones ? bound_clone_isa() : build_isa()));
}

std::vector<std::string> cpu_vector_extensions() {
  std::vector<std::string> found;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  // __builtin_cpu_supports takes a string literal only, hence one line per extension. Its names differ
  // from /proc/cpuinfo's for SSE4 and are given here in cpuinfo's spelling (SSE3 keeps its own name:
  // cpuinfo says "pni"). x86-64-v3 (the avx2 clone) is avx2 + fma + more; x86-64-v4 (the avx512 clone)
  // adds avx512f, dq, cd, bw and vl.
  const auto add = [&found](const char* name, bool present) {
    if (present) found.emplace_back(name);
  };
  add("sse2", __builtin_cpu_supports("sse2"));
  add("sse3", __builtin_cpu_supports("sse3"));
  add("ssse3", __builtin_cpu_supports("ssse3"));
  add("sse4_1", __builtin_cpu_supports("sse4.1"));
  add("sse4_2", __builtin_cpu_supports("sse4.2"));
  add("avx", __builtin_cpu_supports("avx"));
  add("avx2", __builtin_cpu_supports("avx2"));
  add("fma", __builtin_cpu_supports("fma"));
  add("avx512f", __builtin_cpu_supports("avx512f"));
  add("avx512dq", __builtin_cpu_supports("avx512dq"));
  add("avx512cd", __builtin_cpu_supports("avx512cd"));
  add("avx512bw", __builtin_cpu_supports("avx512bw"));
  add("avx512vl", __builtin_cpu_supports("avx512vl"));
#endif
  return found;
}

void record_cpu(course::ResultsFile& results) {
  results.header("cpu_model") = course::host_cpu_name();
  results.header("cpu_vector_extensions") = cpu_vector_extensions();
}

nlohmann::json config_json(const Config& config, std::size_t atoms, const course::TimingOptions& timing) {
  nlohmann::json json = {{"cells", config.cells},          {"atoms", atoms},
          {"density", config.density},      {"temperature", config.temperature},
          {"cutoff", config.cutoff},        {"skin", config.skin},
          {"dt", config.dt},                {"steps", config.steps},
          {"reference_steps", config.reference_steps < 0 ? config.steps : config.reference_steps},
          {"rebuild_every", config.rebuild_every}, {"threads", config.threads},
          {"strategies", config.variants},  {"seed", config.seed},
          {"reps", timing.reps},            {"warmup", timing.warmup},
          {"omp_num_procs", omp_get_num_procs()},
          {"minimum_image", config.minimum_image_every_pair ? "every-pair" : "across-box"},
          {"list_build", config.list_build == ListBuildPass::baseline ? "baseline" : "vectorized"},
          // the neighbour build's distance pass: the bound clone, or the baseline pass built once
          {"list_build_isa", config.list_build == ListBuildPass::baseline ? build_isa() : bound_clone_isa()}};
  if (config.initial) {  // started from a data file: no lattice, and no velocity seed
    json["cells"] = nullptr;
    json["seed"] = nullptr;
    json["data"] = config.data_file;
  }
  return json;
}

nlohmann::json thermo_json(const Thermo& thermo) {
  return {{"temperature", thermo.temperature}, {"potential_per_atom", thermo.potential_per_atom},
          {"total_per_atom", thermo.total_per_atom}, {"pressure", thermo.pressure}};
}

nlohmann::json timeline_json(const std::vector<ThreadTimes>& times) {
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& t : times)
    threads.push_back({{"start_us", t.start * 1e6}, {"loop_begin_us", t.loop_begin * 1e6},
                       {"compute_end_us", t.compute_end * 1e6}, {"section_enter_us", t.section_enter * 1e6},
                       {"section_exit_us", t.section_exit * 1e6}, {"particles", t.particles}});
  return threads;
}

}  // namespace md
