// wave_fd's command line. Every check that needs no GPU happens here, in the order that names the real
// constraint first: the decomposition before the sponge (a 7-row grid cut in two is refused for its
// slabs, not for a sponge nobody asked about), a mode's own options before the sizes they would use.
#include "options.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/errors.hpp"
#include "common/variants.hpp"
#include "decomposition.hpp"

namespace wave {
namespace {

constexpr int max_side = 1 << 19;  // the largest --nx/--ny; weak scaling may grow ny to resolve()'s 2^20

/// The command line as given, before any check.
struct RawOptions {
  course::CommonOptions common;
  Problem problem;
  std::string velocity = "layered";
  std::vector<std::string> variants;
  int steps = 20;
  int gpus = 1;
  int slabs = 0;  // 0: one per GPU
  bool no_overlap = false, ladder = false, scaling = false, check = false, tune = false;
  bool list = false;
  std::string backend = "single";
  int launch = 0;
  std::string nccl_id_file;
  std::string snapshot;
};

void add_options(CLI::App& app, RawOptions& o) {
  course::add_common_options(app, o.common);
  app.add_option("--nx", o.problem.nx, "cells along x")->check(CLI::Range(1, max_side))->capture_default_str();
  app.add_option("--ny", o.problem.ny, "cells along y (the split axis)")->check(CLI::Range(1, max_side))->capture_default_str();
  app.add_option("--steps", o.steps, "time steps per timed run")->check(CLI::Range(1, 1000000))->capture_default_str();
  course::add_variants_option(app, o.variants)
      ->description(std::string("kernels: with --ladder, the rows to run (default all); otherwise exactly one "
                                "(default ") + default_variant + ")");
  app.add_flag("--ladder", o.ladder, "time every kernel of the ladder on one GPU");
  app.add_flag("--list-variants", o.list,
               "list every kernel as data (launch shape; with a GPU, registers, memory, blocks per SM); "
               "--json FILE writes it");
  app.add_flag("--tune", o.tune,
               "time every shape of the tuned rungs on one GPU (the tune table) and use the fastest; "
               "with --ladder, before the ladder");
  app.add_option("--gpus", o.gpus, "GPUs to use (devices --device …)")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--slabs", o.slabs, "slabs along y (default: one per GPU; more share GPUs)")->check(CLI::Range(1, max_side));
  app.add_flag("--no-overlap", o.no_overlap, "compute all rows, then exchange (shows what overlap buys)");
  app.add_flag("--scaling", o.scaling, "strong and weak scaling over 1 … --gpus GPUs, with and without overlap");
  app.add_flag("--check", o.check, "compare the result bit for bit with one slab on one GPU");
  app.add_option("--velocity", o.velocity, "velocity model: constant or layered")->capture_default_str();
  app.add_option("--sponge", o.problem.sponge_width, "absorbing sponge width in cells (0: rigid walls only)")
      ->capture_default_str();
  app.add_option("--dt", o.problem.dt_s, "time step in s (0: from --courant); an unstable one is refused")
      ->capture_default_str();
  app.add_option("--courant", o.problem.courant, "v_max·dt/h when --dt is 0")->capture_default_str();
  // Absent means the centre; a negative position is a mistake, not a request for the centre.
  app.add_option("--source-x", o.problem.source_x, "source column (default nx/2)")->check(CLI::Range(0, max_side));
  app.add_option("--source-y", o.problem.source_y, "source row (default ny/2)")->check(CLI::Range(0, max_side));
  app.add_option("--backend", o.backend, "single (slabs in this process) or nccl (one process per GPU)")
      ->capture_default_str();
  app.add_option("--launch", o.launch, "start this many local NCCL ranks of this program and wait for them")
      ->check(CLI::Range(1, 1024));
  app.add_option("--nccl-id-file", o.nccl_id_file, "file through which rank 0 hands out the NCCL id (no MPI)");
  app.add_option("--snapshot", o.snapshot, "write the final wavefield, downsampled, to FILE (.npy) and FILE.json")
      ->type_name("FILE");
}

void refuse(bool bad, const std::string& why) {
  if (bad) throw course::UsageError(why);
}

// Which mode, and the options that make no sense in it (silently ignoring them would mislead).
Mode choose_mode(const CLI::App& app, const RawOptions& o) {
  const auto given = [&](const char* name) { return app.count(name) > 0; };
  if (o.list) {
    refuse(o.ladder || o.tune || o.scaling || o.backend != "single" || o.launch > 0 || given("--variants") ||
               given("--snapshot"),
           "--list-variants lists every kernel and runs none: give it alone (with --json FILE, --device N)");
    return Mode::list;
  }
  refuse(o.backend != "single" && o.backend != "nccl", "--backend " + o.backend + ": use single or nccl");
  refuse(given("--nccl-id-file") && o.backend != "nccl", "--nccl-id-file is for --backend nccl");
  if (o.backend == "nccl") {
    refuse(!nccl_available(), "this build has no NCCL backend (NCCL was not found at configure time)");
    refuse(o.ladder || o.scaling, "--backend nccl runs one configuration: drop --ladder/--scaling");
    refuse(given("--gpus") || given("--slabs"),
           "--backend nccl runs one slab per process: give --launch N (or mpirun -np N), not --gpus/--slabs");
    refuse(given("--device"), "--backend nccl picks each rank's GPU from its local rank: drop --device");
    refuse(given("--snapshot"), "--snapshot is for a run in one process (--backend single)");
    return o.launch > 0 ? Mode::launch : Mode::nccl_rank;
  }
  refuse(o.launch > 0, "--launch starts NCCL ranks: add --backend nccl");
  refuse(o.ladder && o.scaling, "--ladder and --scaling are two runs: give one of them");
  refuse(o.tune && o.scaling, "--tune runs on one GPU, one slab: use it alone or with --ladder, not --scaling");
  if (o.ladder || o.tune) {
    const std::string flag = o.ladder ? "--ladder" : "--tune";
    refuse(o.gpus > 1 || o.slabs > 1, flag + " runs on one GPU, one slab: drop --gpus/--slabs");
    refuse(o.check || o.no_overlap, flag + " times single-slab kernels: --check and --no-overlap do not apply");
    refuse(given("--snapshot"), "--snapshot is for a single run, not " + flag);
    return o.ladder ? Mode::ladder : Mode::tune;
  }
  if (o.scaling) {
    refuse(given("--slabs"), "--scaling runs one slab per GPU: drop --slabs");
    refuse(o.check || o.no_overlap, "--scaling always checks, with and without overlap: drop --check/--no-overlap");
    refuse(given("--snapshot"), "--snapshot is for a single run, not --scaling");
    return Mode::scaling;
  }
  return Mode::run;
}

// The ladder's rungs by default; any rung or tuning candidate by name (in table order).
std::vector<Variant> choose_variants(Mode mode, const std::vector<std::string>& names) {
  const std::vector<Variant> all = every_kernel();
  if (mode == Mode::ladder || mode == Mode::tune) {
    if (names.empty()) {  // every rung; --tune: every tuned rung
      std::vector<Variant> rungs;
      for (const Variant& v : variants())
        if (mode == Mode::ladder || v.family != nullptr) rungs.push_back(v);
      return rungs;
    }
    return course::select_variants(std::span<const Variant>(all), names);
  }
  refuse(names.size() > 1, "--variants: this run uses exactly one kernel, " + std::to_string(names.size()) +
                               " were given (a list selects rows of --ladder)");
  return course::select_variants(std::span<const Variant>(all),
                                 names.empty() ? std::vector<std::string>{default_variant} : names);
}

// --tune names tuned rungs only. Any rung runs decomposed: a temporal rung's slabs exchange halo · K
// rows once per pass (check_problem refuses slabs thinner than that).
void check_kernel_choice(const Settings& s) {
  if (s.mode == Mode::tune)
    for (const Variant& v : s.variants)
      refuse(candidates_of(v).empty(), std::string("--tune --variants ") + v.name +
                                           ": not a tuned rung, nothing to tune (tuned rungs: those with a shape column)");
}

// Sizes and numbers: the decomposition first (its message names slabs and rows), then the problem.
void check_problem(Settings& s, const RawOptions& o) {
  const Variant& rung = s.variants.front();
  if (s.mode == Mode::launch) validate_decomposition(o.problem.ny, s.ranks, exchange_depth(rung, s.ranks));
  if (s.mode == Mode::run || s.mode == Mode::scaling) {
    validate_decomposition(o.problem.ny, s.slabs, exchange_depth(rung, s.slabs));
    refuse(s.gpus > s.slabs, "more GPUs (" + std::to_string(s.gpus) + ") than slabs (" + std::to_string(s.slabs) +
                                 "): each GPU needs at least one slab");
  }
  s.input = o.problem;
  s.input.model = parse_velocity_model(o.velocity);
  // resolve() says what is wrong with the grid; the options that set it are named here, once.
  if (o.problem.sponge_width < 0 || o.problem.sponge_width > std::min(o.problem.nx, o.problem.ny) / 3)
    refuse(true, "--sponge " + std::to_string(o.problem.sponge_width) + " with --nx " + std::to_string(o.problem.nx) +
                     " --ny " + std::to_string(o.problem.ny) + ": the sponge width must be between 0 and a third of the "
                     "smaller grid side (" + std::to_string(std::min(o.problem.nx, o.problem.ny) / 3) +
                     "): lower --sponge or enlarge the grid");
  s.problem = resolve(s.input);
  if (s.mode == Mode::scaling && s.gpus > 1) (void)weak_problem(s.input, s.gpus);  // the tallest grid
}

// Without MPI, or started with RANK/WORLD_SIZE set (as --launch does), rank 0 hands the NCCL id out
// through a file (the same rule as run_nccl_rank's).
bool nccl_needs_id_file() {
#if defined(COURSE_HAVE_MPI)
  const char* world = std::getenv("WORLD_SIZE");
  return world != nullptr && std::atoi(world) >= 1;
#else
  return true;
#endif
}

}  // namespace

bool nccl_available() {
#if defined(COURSE_HAVE_NCCL)
  return true;
#else
  return false;
#endif
}

Problem weak_problem(const Problem& input, int gpus) {
  Problem weak = input;
  const long long rows = static_cast<long long>(input.ny) * gpus;
  refuse(rows > (1 << 20), "weak scaling to " + std::to_string(gpus) + " GPUs needs " + std::to_string(rows) +
                               " rows, more than 2^20: use a smaller --ny or fewer --gpus");
  weak.ny = static_cast<int>(rows);
  weak.source_y = -1;  // the centre of the taller grid
  return resolve(weak);
}

Settings parse_settings(int argc, char** argv) {
  RawOptions o;
  o.common.timing = {1, 5};
  CLI::App app{"wave_fd (07_multigpu_fd): 2-D wave equation, 8th-order stencil; one GPU, many GPUs, many processes"};
  add_options(app, o);
  course::parse_command_line(app, argc, argv);

  Settings s;
  s.mode = choose_mode(app, o);
  s.common = o.common;
  s.variants = choose_variants(s.mode, o.variants);
  s.steps = o.steps;
  s.gpus = o.gpus;
  s.slabs = o.slabs > 0 ? o.slabs : o.gpus;
  s.overlap = !o.no_overlap;
  s.check = o.check;
  s.tune = o.tune;
  s.ranks = o.launch;
  check_kernel_choice(s);
  s.nccl_id_file = o.nccl_id_file;
  check_problem(s, o);
  refuse(s.mode == Mode::nccl_rank && s.nccl_id_file.empty() && nccl_needs_id_file(),
         "--backend nccl without MPI needs --nccl-id-file FILE (or --launch N, which makes one)");
  if (!s.nccl_id_file.empty()) course::check_writable_path(s.nccl_id_file, "--nccl-id-file");
  if (!o.snapshot.empty() || app.count("--snapshot") > 0) {
    // The run may take minutes: a place where the files cannot be written is refused now.
    course::check_writable_path(o.snapshot, "--snapshot");
    course::check_writable_path(o.snapshot + ".json", "--snapshot");
    s.snapshot = o.snapshot;
  }
  // Two outputs in one file would overwrite each other at the end of the run (issue 31, item 8).
  course::check_distinct_outputs({{"--json", s.common.json_path},
                                  {"--snapshot", s.snapshot},
                                  {"--snapshot (its metadata)", s.snapshot.empty() ? "" : s.snapshot + ".json"},
                                  {"--nccl-id-file", s.nccl_id_file}});
  return s;
}

}  // namespace wave
