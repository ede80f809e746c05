// 07_multigpu_fd: the 2-D wave equation with an 8th-order stencil — the single-GPU ladder, then slabs on
// any number of GPUs in one process (peer copies, overlapped exchange), then one process per GPU (NCCL).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/report.hpp"
#include "common/timing.cuh"
#include "decomposition.hpp"
#include "kernels.cuh"
#include "physics.hpp"
#include "solver.cuh"
#if defined(COURSE_HAVE_NCCL)
#include "nccl_backend.cuh"
#endif

extern char** environ;

namespace {

using wave::Problem;
using wave::Variant;

struct Options {
  course::CommonOptions common;
  Problem problem;
  std::string velocity = "layered";
  std::string variant = "wide_vec4_prefetch_r64";  // the fastest rung measured on an H100
  int steps = 20;
  int gpus = 1;
  int slabs = 0;  // 0: one per GPU
  bool no_overlap = false;
  bool ladder = false;
  bool scaling = false;
  bool check = false;
  std::string backend = "single";
  int launch = 0;
  std::string nccl_id_file;
  std::string snapshot;
  bool json_append = false;
};

// One measured configuration, as a table row and a JSON row.
struct Measurement {
  std::string table, variant, backend;
  int nx = 0, ny = 0, gpus = 1, slabs = 1;
  bool overlap = false;
  double ms_per_step = 0;
  std::optional<bool> bitwise;  // compared with one slab on one GPU
  std::optional<double> efficiency;
};

double cells(const Measurement& m) { return static_cast<double>(m.nx) * m.ny; }
double gcells_per_s(const Measurement& m) { return cells(m) / (m.ms_per_step * 1e6); }

nlohmann::json to_json(const Measurement& m, double ceiling_gbs) {
  const double gbs = course::gb_per_s(wave::bytes_per_cell * cells(m), m.ms_per_step);
  nlohmann::json row = {{"table", m.table},       {"variant", m.variant},          {"backend", m.backend},
                        {"nx", m.nx},             {"ny", m.ny},                    {"gpus", m.gpus},
                        {"slabs", m.slabs},       {"overlap", m.overlap},          {"ms_per_step", m.ms_per_step},
                        {"gcells_per_s", gcells_per_s(m)}, {"mcells_per_s", gcells_per_s(m) * 1e3},
                        {"gb_per_s", gbs},        {"roofline_pct", 100.0 * gbs / (ceiling_gbs * m.gpus)}};
  row["bitwise_equal"] = m.bitwise ? nlohmann::json(*m.bitwise) : nlohmann::json(nullptr);
  row["efficiency"] = m.efficiency ? nlohmann::json(*m.efficiency) : nlohmann::json(nullptr);
  return row;
}

course::Table make_table() {
  return course::Table({"table", "variant", "backend", "grid", "gpus", "slabs", "overlap", "ms/step", "Gcells/s",
                        "Mcells/s", "GB/s", "% roofline", "efficiency", "bitwise"});
}

void add_row(course::Table& t, const Measurement& m, double ceiling_gbs) {
  const double gbs = course::gb_per_s(wave::bytes_per_cell * cells(m), m.ms_per_step);
  t.add_row({m.table, m.variant, m.backend, std::to_string(m.nx) + "x" + std::to_string(m.ny), std::to_string(m.gpus),
             std::to_string(m.slabs), m.overlap ? "yes" : "no", course::format_fixed(m.ms_per_step, 3),
             course::format_fixed(gcells_per_s(m), 1), course::format_fixed(gcells_per_s(m) * 1e3, 0),
             course::format_fixed(gbs, 0), course::format_fixed(100.0 * gbs / (ceiling_gbs * m.gpus), 1),
             m.efficiency ? course::format_fixed(100.0 * *m.efficiency, 1) + "%" : "-",
             m.bitwise ? (*m.bitwise ? "equal" : "DIFFERS") : "-"});
}

// Runs `config` for warm-up + reps × steps steps; returns the median milliseconds per step and the solver.
double time_solver(wave::SlabSolver& solver, int steps, course::TimingOptions timing) {
  const course::Stats s = course::time_host(
      [&] {
        solver.advance(steps);
        solver.synchronize();
      },
      timing);
  return s.median / steps;
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> one_gpu_reference(const Problem& p, const Variant& v, int steps, int device) {
  wave::SlabSolver reference({p, 1, 1, false, &v, device});
  reference.advance(steps);
  return reference.gather();
}

// ---- snapshots ----------------------------------------------------------------------------------
// A downsampled copy of the field: block averages of stride × stride cells.
struct Snapshot {
  int width = 0, height = 0, stride = 1;
  std::vector<float> values;
};

Snapshot downsample(const std::vector<float>& field, int nx, int ny, int max_side) {
  Snapshot s;
  s.stride = std::max(1, (std::max(nx, ny) + max_side - 1) / max_side);
  s.width = nx / s.stride;
  s.height = ny / s.stride;
  s.values.resize(static_cast<std::size_t>(s.width) * s.height);
  for (int j = 0; j < s.height; ++j)
    for (int i = 0; i < s.width; ++i) {
      double sum = 0;
      for (int dy = 0; dy < s.stride; ++dy)
        for (int dx = 0; dx < s.stride; ++dx)
          sum += field[static_cast<std::size_t>(j * s.stride + dy) * nx + static_cast<std::size_t>(i * s.stride + dx)];
      s.values[static_cast<std::size_t>(j) * s.width + i] = static_cast<float>(sum / (s.stride * s.stride));
    }
  return s;
}

std::string base64(const std::vector<unsigned char>& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned v = (bytes[i] << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                       (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[v & 63] : '=';
  }
  return out;
}

nlohmann::json snapshot_metadata(const Problem& p, int steps, const Snapshot& s) {
  return {{"nx", p.nx},         {"ny", p.ny},
          {"step", steps},      {"time_s", steps * p.dt_s},
          {"spacing_m", p.spacing_m}, {"dt_s", p.dt_s},
          {"velocity", wave::to_string(p.model)}, {"sponge_width", p.sponge_width},
          {"source_x", p.source_x}, {"source_y", p.source_y},
          {"stride", s.stride}, {"width", s.width}, {"height", s.height}};
}

// FILE gets a NumPy .npy array (float32, height × width) and FILE.json its metadata.
void write_snapshot_files(const std::string& path, const nlohmann::json& meta, const Snapshot& s) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(s.height) + ", " +
                       std::to_string(s.width) + "), }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const unsigned short len = static_cast<unsigned short>(header.size());
  const unsigned char len_le[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  out.write(reinterpret_cast<const char*>(len_le), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(s.values.data()), static_cast<std::streamsize>(s.values.size() * sizeof(float)));
  if (!out) throw course::UsageError("cannot write the snapshot " + path);
  course::write_file_atomically(path + ".json", meta.dump(2) + "\n");
}

// The small copy embedded in the results file, from which figures.py draws the lesson's images:
// 8-bit values, symmetric around 128, scaled by the largest magnitude.
nlohmann::json embedded_snapshot(nlohmann::json meta, const Snapshot& s) {
  float peak = 0;
  for (float v : s.values) peak = std::max(peak, std::fabs(v));
  std::vector<unsigned char> q(s.values.size());
  for (std::size_t i = 0; i < q.size(); ++i)
    q[i] = static_cast<unsigned char>(std::lround(128.0 + 127.0 * (peak > 0 ? s.values[i] / peak : 0.0)));
  meta["peak"] = peak;
  meta["encoding"] = "uint8: value = (byte - 128) / 127 * peak";
  meta["data_base64"] = base64(q);
  return meta;
}

// ---- the launcher: N local processes of this program, one per GPU ------------------------------
int launch_local_ranks(int count, int argc, char** argv, const std::string& id_file) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--launch") { ++i; continue; }
    if (a.rfind("--launch=", 0) == 0) continue;
    if (a == "--nccl-id-file") { ++i; continue; }
    if (a.rfind("--nccl-id-file=", 0) == 0) continue;
    args.push_back(a);
  }
  args.push_back("--nccl-id-file");
  args.push_back(id_file);
  std::filesystem::remove(id_file);  // never a stale id from an earlier run
  std::vector<pid_t> children;
  for (int rank = 0; rank < count; ++rank) {
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      if (kv.rfind("RANK=", 0) == 0 || kv.rfind("WORLD_SIZE=", 0) == 0 || kv.rfind("LOCAL_RANK=", 0) == 0) continue;
      env_strings.push_back(kv);
    }
    env_strings.push_back("RANK=" + std::to_string(rank));
    env_strings.push_back("WORLD_SIZE=" + std::to_string(count));
    env_strings.push_back("LOCAL_RANK=" + std::to_string(rank));
    env_strings.push_back("NCCL_NVLS_ENABLE=0");
    std::vector<char*> child_argv, child_env;
    for (auto& a : args) child_argv.push_back(a.data());
    child_argv.push_back(nullptr);
    for (auto& e : env_strings) child_env.push_back(e.data());
    child_env.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, child_argv.data(), child_env.data()) != 0)
      throw course::CudaError("cannot start rank " + std::to_string(rank));
    children.push_back(pid);
  }
  int worst = 0;
  std::size_t alive = children.size();
  while (alive > 0) {
    int status = 0;
    const pid_t pid = ::wait(&status);
    if (pid < 0) break;
    const auto it = std::find(children.begin(), children.end(), pid);
    if (it == children.end()) continue;
    *it = -1;
    --alive;
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (rc != 0 && worst == 0) {
      worst = rc;
      // A rank that failed leaves the others waiting in NCCL forever: end the ranks we started.
      for (pid_t other : children)
        if (other > 0) ::kill(other, SIGTERM);
    }
  }
  return worst;
}

// ---- results file -----------------------------------------------------------------------------
// Writes the results file; with --json-append the rows (and snapshots) of the existing file come first,
// so bench.sh can collect several invocations in one file.
void write_results(const Options& o, course::ResultsFile& results, const std::vector<nlohmann::json>& rows) {
  if (o.common.json_path.empty()) return;
  if (o.json_append && std::filesystem::exists(o.common.json_path)) {
    std::ifstream in(o.common.json_path);
    const nlohmann::json old = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (old.is_object()) {
      for (const auto& r : old.value("rows", nlohmann::json::array())) results.add_row(r);
      nlohmann::json extra = old.value("extra", nlohmann::json::object());
      if (!extra.is_object()) extra = nlohmann::json::object();
      extra["command_lines"].push_back(old.value("command_line", ""));
      for (const auto& [key, value] : results.extra().items()) {
        if (value.is_array() && extra.contains(key) && extra[key].is_array())
          for (const auto& v : value) extra[key].push_back(v);
        else extra[key] = value;
      }
      results.extra() = extra;
    }
  }
  for (const auto& r : rows) results.add_row(r);
  results.write(o.common.json_path);
}

int run(int argc, char** argv) {
  Options o;
  o.common.timing = {1, 5};
  CLI::App app{"07_multigpu_fd: 2-D wave equation, 8th-order stencil; one GPU, many GPUs, many processes"};
  course::add_common_options(app, o.common);
  app.add_option("--nx", o.problem.nx, "cells along x")->check(CLI::Range(1, 1 << 19))->capture_default_str();
  app.add_option("--ny", o.problem.ny, "cells along y (the split axis)")->check(CLI::Range(1, 1 << 19))->capture_default_str();
  app.add_option("--steps", o.steps, "time steps per timed run")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--variant", o.variant, "kernel (see --ladder for all)")->capture_default_str();
  app.add_flag("--ladder", o.ladder, "time every kernel of the ladder on one GPU");
  app.add_option("--gpus", o.gpus, "GPUs to use (devices --device …)")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--slabs", o.slabs, "slabs along y (default: one per GPU; more share GPUs)")->check(CLI::Range(0, 1 << 19));
  app.add_flag("--no-overlap", o.no_overlap, "compute all rows, then exchange (shows what overlap buys)");
  app.add_flag("--scaling", o.scaling, "strong and weak scaling over 1 … --gpus GPUs, with and without overlap");
  app.add_flag("--check", o.check, "compare the result bit for bit with one slab on one GPU");
  app.add_option("--velocity", o.velocity, "velocity model: constant or layered")->capture_default_str();
  app.add_option("--sponge", o.problem.sponge_width, "absorbing sponge width in cells (0: rigid walls only)")
      ->capture_default_str();
  app.add_option("--dt", o.problem.dt_s, "time step in s (0: from --courant); an unstable one is refused")
      ->capture_default_str();
  app.add_option("--courant", o.problem.courant, "v_max·dt/h when --dt is 0")->capture_default_str();
  app.add_option("--source-x", o.problem.source_x, "source column (default nx/2)");
  app.add_option("--source-y", o.problem.source_y, "source row (default ny/2)");
  app.add_option("--backend", o.backend, "single (slabs in this process) or nccl (one process per GPU)")
      ->capture_default_str();
  app.add_option("--launch", o.launch, "start this many local NCCL ranks of this program and wait for them")
      ->check(CLI::Range(1, 1024));
  app.add_option("--nccl-id-file", o.nccl_id_file, "file through which rank 0 hands out the NCCL id (no MPI)");
  app.add_option("--snapshot", o.snapshot, "write the final wavefield, downsampled, to FILE (.npy) and FILE.json");
  app.add_flag("--json-append", o.json_append, "add this run's rows to the existing --json file");
  course::parse_command_line(app, argc, argv);

  // Everything that can be checked without a GPU is checked first: bad input is exit 2 everywhere.
  o.problem.model = wave::parse_velocity_model(o.velocity);
  const Problem p = wave::resolve(o.problem);
  const Variant& variant = wave::find_variant(o.variant);
  if (o.backend != "single" && o.backend != "nccl")
    throw course::UsageError("unknown backend '" + o.backend + "' (use single or nccl)");
  const int slabs = o.slabs > 0 ? o.slabs : o.gpus;
  wave::validate_decomposition(p.ny, slabs);
  if (o.gpus > slabs) throw course::UsageError("more GPUs than slabs");
  if (o.ladder && (o.gpus > 1 || o.slabs > 1 || o.scaling)) throw course::UsageError("--ladder runs on one GPU");
  const bool overlap = !o.no_overlap;

  if (o.launch > 0) {
#if defined(COURSE_HAVE_NCCL)
    if (o.backend != "nccl") throw course::UsageError("--launch starts NCCL ranks: add --backend nccl");
    wave::validate_decomposition(p.ny, o.launch);
    const std::string id_file =
        o.nccl_id_file.empty() ? "/tmp/wave_fd_nccl_" + std::to_string(::getpid()) + ".id" : o.nccl_id_file;
    return launch_local_ranks(o.launch, argc, argv, id_file);
#else
    throw course::UsageError("this build has no NCCL backend (NCCL was not found at configure time)");
#endif
  }

  course::ResultsFile results("07_multigpu_fd", argc, argv);
  course::Table table = make_table();
  std::vector<Measurement> rows;
  std::vector<nlohmann::json> json_rows;
  bool all_equal = true;

  if (o.backend == "nccl") {
#if defined(COURSE_HAVE_NCCL)
    const wave::NcclRunResult r =
        wave::run_nccl_rank(p, variant, overlap, o.steps, o.common.timing, o.nccl_id_file, o.check);
    if (!r.is_root) return course::exit_ok;
    const course::DeviceInfo info = course::query_device(r.device);
    course::print_device_header(std::cout, info);
    const double ceiling = course::measure_copy_bandwidth_gbs();
    Measurement m{"nccl", variant.name, "nccl", p.nx, p.ny, r.world, r.world, overlap, r.ms_per_step, {}, {}};
    if (r.checked) m.bitwise = r.mismatches == 0;
    all_equal = !r.checked || r.mismatches == 0;
    add_row(table, m, ceiling);
    results.set_device(info);
    results.extra()["copy_bandwidth_gbs"] = ceiling;
    json_rows.push_back(to_json(m, ceiling));
    std::cout << "backend nccl: " << r.world << " processes, NCCL_NVLS_ENABLE=0";
    if (r.checked) std::cout << "; " << r.mismatches << " cells differ from one GPU (max |diff| " << r.max_abs_diff << ")";
    std::cout << "\n";
    table.print(std::cout, o.common.csv);
    write_results(o, results, json_rows);
    return all_equal ? course::exit_ok : course::exit_failure;
#else
    throw course::UsageError("this build has no NCCL backend (NCCL was not found at configure time)");
#endif
  }

  const course::DeviceInfo info = course::require_device(o.common.device);
  course::print_device_header(std::cout, info);
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (o.common.device + o.gpus > present)
    throw course::UsageError("asked for " + std::to_string(o.gpus) + " GPU(s) from device " +
                             std::to_string(o.common.device) + " but " + std::to_string(present) + " are present");
  const double ceiling = course::measure_copy_bandwidth_gbs();
  std::cout << "grid " << p.nx << " x " << p.ny << ", " << wave::to_string(p.model) << " velocity, v_max·dt/h = "
            << course::format_fixed(p.courant, 3) << " (limit " << course::format_fixed(wave::courant_limit(), 4)
            << "), sponge " << p.sponge_width << ", copy ceiling " << course::format_fixed(ceiling, 0)
            << " GB/s, roofline counts " << wave::bytes_per_cell << " bytes per cell\n";
  const int total_steps = (o.common.timing.warmup + o.common.timing.reps) * o.steps;
  std::vector<std::string> peer_lines;

  const auto measure = [&](const std::string& table_name, const Variant& v, const Problem& problem, int gpus,
                           int nslabs, bool with_overlap) {
    course::NvtxRange range((table_name + " " + v.name).c_str());
    wave::SlabSolver solver({problem, nslabs, gpus, with_overlap, &v, o.common.device});
    for (const auto& line : solver.peer_report())
      if (std::find(peer_lines.begin(), peer_lines.end(), line) == peer_lines.end()) peer_lines.push_back(line);
    Measurement m{table_name, v.name, "single", problem.nx, problem.ny, gpus, nslabs, with_overlap,
                  time_solver(solver, o.steps, o.common.timing), {}, {}};
    return std::pair{m, nslabs > 1 || gpus > 1 ? solver.gather() : std::vector<float>{}};
  };

  if (o.ladder) {
    double previous = 0;
    for (const Variant& v : wave::variants()) {
      auto [m, unused] = measure("ladder", v, p, 1, 1, false);
      rows.push_back(m);
      nlohmann::json row = to_json(m, ceiling);
      row["teaches"] = v.teaches;
      row["reads"] = v.reads_memory;
      row["speedup_vs_previous"] = previous > 0 ? nlohmann::json(previous / m.ms_per_step) : nlohmann::json(nullptr);
      previous = m.ms_per_step;
      json_rows.push_back(row);
      add_row(table, m, ceiling);
    }
  } else if (o.scaling) {
    // Strong: the same grid on 1 … gpus GPUs; weak: ny × g rows on g GPUs. The strong runs are compared
    // bit for bit with the one-GPU field (the same number of steps is run every time).
    std::vector<float> reference;
    double base_strong[2] = {0, 0}, base_weak[2] = {0, 0};
    for (int g = 1; g <= o.gpus; ++g) {
      for (const bool ov : {true, false}) {
        auto [m, field] = measure("strong", variant, p, g, g, ov);
        if (g == 1 && ov) reference = one_gpu_reference(p, variant, total_steps, o.common.device);
        if (g > 1) {
          m.bitwise = bitwise_equal(field, reference);
          all_equal = all_equal && *m.bitwise;
        }
        double& base = base_strong[ov ? 0 : 1];
        if (g == 1) base = m.ms_per_step;
        m.efficiency = base / (g * m.ms_per_step);
        rows.push_back(m);
      }
      Problem weak = o.problem;
      weak.ny = p.ny * g;
      weak.source_y = -1;
      weak = wave::resolve(weak);
      for (const bool ov : {true, false}) {
        auto [m, unused] = measure("weak", variant, weak, g, g, ov);
        double& base = base_weak[ov ? 0 : 1];
        if (g == 1) base = m.ms_per_step;
        m.efficiency = base / m.ms_per_step;
        rows.push_back(m);
      }
    }
    for (const auto& m : rows) {
      json_rows.push_back(to_json(m, ceiling));
      add_row(table, m, ceiling);
    }
  } else {
    wave::SlabSolver solver({p, slabs, o.gpus, overlap, &variant, o.common.device});
    peer_lines = solver.peer_report();
    Measurement m{"run", variant.name, "single", p.nx, p.ny, o.gpus, slabs, overlap,
                  time_solver(solver, o.steps, o.common.timing), {}, {}};
    std::vector<float> field;
    if (o.check || !o.snapshot.empty()) field = solver.gather();
    if (o.check) {
      m.bitwise = bitwise_equal(field, one_gpu_reference(p, variant, solver.steps_done(), o.common.device));
      all_equal = *m.bitwise;
    }
    if (!o.snapshot.empty()) {
      const Snapshot full = downsample(field, p.nx, p.ny, 512);
      const nlohmann::json meta = snapshot_metadata(p, solver.steps_done(), full);
      write_snapshot_files(o.snapshot, meta, full);
      const Snapshot small = downsample(field, p.nx, p.ny, 200);
      results.extra()["snapshots"].push_back(embedded_snapshot(snapshot_metadata(p, solver.steps_done(), small), small));
      std::cout << "snapshot: " << o.snapshot << " (" << full.width << " x " << full.height << ", stride " << full.stride
                << ") and " << o.snapshot << ".json\n";
    }
    rows.push_back(m);
    json_rows.push_back(to_json(m, ceiling));
    add_row(table, m, ceiling);
  }

  for (const auto& line : peer_lines) std::cout << line << "\n";
  table.print(std::cout, o.common.csv);
  if (o.ladder && !rows.empty()) {
    // The target of the ladder: 85% of the 12-byte roofline for the fastest rung.
    const auto best = std::min_element(rows.begin(), rows.end(),
                                       [](const Measurement& l, const Measurement& r) { return l.ms_per_step < r.ms_per_step; });
    const nlohmann::json best_row = to_json(*best, ceiling);
    const double percent = best_row.value("roofline_pct", 0.0);
    const bool met = percent >= 85.0;
    std::cout << "best rung: " << best->variant << ", " << course::format_fixed(best->ms_per_step, 3) << " ms/step, "
              << course::format_fixed(percent, 1) << "% of roofline: " << (met ? "meets" : "misses")
              << " the 85% target\n";
    results.extra()["ladder_best"] = {{"variant", best->variant}, {"percent_roofline", percent}, {"meets_85", met}};
  }
  results.set_device(info);
  results.config() = {{"nx", p.nx},          {"ny", p.ny},     {"steps", o.steps}, {"velocity", wave::to_string(p.model)},
                      {"sponge", p.sponge_width}, {"dt_s", p.dt_s}, {"courant", p.courant},
                      {"warmup", o.common.timing.warmup}, {"reps", o.common.timing.reps}};
  results.extra()["copy_bandwidth_gbs"] = ceiling;
  results.extra()["bytes_per_cell"] = wave::bytes_per_cell;
  results.extra()["gpus_present"] = present;
  for (const auto& line : peer_lines) results.extra()["peer_access"].push_back(line);
  write_results(o, results, json_rows);
  if (!all_equal) {
    std::cerr << "07_multigpu_fd: a decomposed run is NOT bitwise equal to the one-GPU run\n";
    return course::exit_failure;
  }
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("07_multigpu_fd", run, argc, argv); }
