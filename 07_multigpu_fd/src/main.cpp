// wave_fd (07_multigpu_fd): the 2-D wave equation with an 8th-order stencil — the single-GPU ladder,
// then slabs on any number of GPUs in one process (peer copies, overlapped exchange), then one process
// per GPU (NCCL). The driver: command line → run → report. The runs are in *_run.cpp, the kernels in
// rungs/ (one file per rung, the table in variant_table.cpp), the multi-GPU step in solver.cu and nccl_backend.cu.
#include <unistd.h>

#include <iostream>
#include <stdexcept>
#include <string>

#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/report.hpp"
#include "launcher.hpp"
#include "listing.hpp"
#include "options.hpp"
#include "runs.hpp"

namespace {

// --launch N: N ranks of this program on this machine, sharing the NCCL id through a file.
int launch(const wave::Settings& s, int argc, char** argv) {
  wave::require_any_device();  // without a GPU: one line and exit 77 here, not one failure per rank
  const int present = course::usable_device_count();
  if (s.ranks > present)  // two ranks on one GPU: NCCL refuses the duplicate device, after a long start
    throw course::UsageError("--launch " + std::to_string(s.ranks) + " starts one rank per GPU, but " +
                             std::to_string(present) + " GPU(s) are present");
  const std::string id_file =
      s.nccl_id_file.empty() ? "/tmp/wave_fd_nccl_" + std::to_string(::getpid()) + ".id" : s.nccl_id_file;
  return wave::launch_local_ranks(s.ranks, argc, argv, id_file);
}

// The runs of this process. Returns whether every bit-for-bit check held.
bool run_in_process(const wave::Settings& s, course::RunReport& report) {
  wave::RunContext ctx = wave::open_devices(s, report);
  bool passed = true;
  switch (s.mode) {
    case wave::Mode::ladder:
      if (s.tune) passed = wave::run_tune(ctx);
      passed = wave::run_ladder(ctx) && passed;
      break;
    case wave::Mode::tune: passed = wave::run_tune(ctx); break;
    case wave::Mode::scaling: passed = wave::run_scaling(ctx); break;
    default: passed = wave::run_slabs(ctx);
  }
  for (const auto& line : ctx.peer_lines) {
    report.info() << line << "\n";
    report.results().extra()["peer_access"].push_back(line);
  }
  report.finish(std::cout);
  for (const auto& note : ctx.notes) report.info() << note << "\n";
  return passed;
}

int run(int argc, char** argv) {
  const wave::Settings s = wave::parse_settings(argc, argv);  // every check that needs no GPU
  if (s.mode == wave::Mode::launch) return launch(s, argc, argv);

  course::RunReport report("07_multigpu_fd", argc, argv, s.common);
  if (s.mode == wave::Mode::list) {  // the kernels as data; the static part needs no GPU (exit 0 without one)
    wave::list_variants(s, report);
    report.finish(std::cout);
    return course::exit_ok;
  }
  bool passed = true;
  if (s.mode == wave::Mode::nccl_rank) {
    const std::optional<bool> root = wave::run_nccl(s, report);
    if (!root) return course::exit_ok;  // ranks other than 0 report nothing
    passed = *root;
    report.finish(std::cout);
  } else {
    passed = run_in_process(s, report);
  }
  if (!passed)
    throw std::runtime_error(
        s.mode == wave::Mode::ladder || s.mode == wave::Mode::tune
            ? "a rung's (or shape's) field is NOT bitwise equal to the first one's (the bitwise column says which)"
            : "a decomposed run is NOT bitwise equal to the one-GPU run");
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("wave_fd", run, argc, argv); }
