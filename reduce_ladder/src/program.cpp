// The program every chapter of the reduction ladder runs: CLI → validation (before any GPU call) →
// device → for each size, each rung checked against the CPU sum, then timed → one table and the JSON.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/report.hpp"
#include "common/timing.cuh"
#include "reduce_ladder/program.hpp"

namespace reduce {

LadderOptions validate_ladder_options(const std::vector<std::string>& sizes, long long block,
                                      const std::vector<std::string>& only,
                                      std::span<const Variant> variants) {
  LadderOptions opts;
  if (sizes.empty()) throw course::UsageError("--n: give at least one size");
  for (const auto& text : sizes) {
    const auto n = course::parse_count(text);  // rejects 0, junk and overflow
    if (n > (std::uint64_t{1} << 32))
      throw course::UsageError("--n " + text + ": at most 2^32 elements (16 GiB of ints)");
    opts.sizes.push_back(static_cast<std::size_t>(n));
  }
  validate_block(block);
  opts.block = static_cast<unsigned>(block);
  for (const auto& name : only) {
    const bool known = std::any_of(variants.begin(), variants.end(),
                                   [&](const Variant& v) { return name == v.name; });
    if (!known) throw course::UsageError("--only " + name + ": no such kernel in this chapter");
    opts.only.push_back(name);
  }
  return opts;
}

namespace {

std::vector<Variant> flatten(const LadderProgram& program) {
  std::vector<Variant> all;
  for (const auto table : program.tables) all.insert(all.end(), table.begin(), table.end());
  return all;
}

std::string grid_text(LaunchShape s) { return s.grid == 0 ? "library" : std::to_string(s.grid); }
std::string block_text(LaunchShape s) { return s.block == 0 ? "library" : std::to_string(s.block); }

}  // namespace

int run_ladder_program(const LadderProgram& program, int argc, char** argv) {
  const std::vector<Variant> all = flatten(program);
  CLI::App app{program.description};
  course::CommonOptions common;
  std::vector<std::string> size_texts{"2^24", "2^28"};
  long long block = 512;
  std::vector<std::string> only;
  app.add_option("--n", size_texts, "element counts (ints), e.g. 2^24 or 16M; repeat or comma-separate")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--block", block, "threads per block: a power of two from 64 to 1024")->capture_default_str();
  app.add_option("--only", only, "run only these kernels (names as in the table); repeat or comma-separate")
      ->delimiter(',');
  course::add_common_options(app, common);
  course::parse_command_line(app, argc, argv);
  std::vector<Variant> variants;
  const LadderOptions opts = validate_ladder_options(size_texts, block, only, all);
  for (const auto& v : all)
    if (opts.only.empty() || std::find(opts.only.begin(), opts.only.end(), v.name) != opts.only.end())
      variants.push_back(v);

  const course::DeviceInfo device = course::require_device(common.device);
  course::print_device_header(std::cout, device);
  const double copy_gbs = course::measure_copy_bandwidth_gbs();
  std::printf("measured copy bandwidth (cudaMemcpy D2D, read + write): %.0f GB/s\n\n", copy_gbs);

  // One input array; every size is a prefix of it, so the data is made and uploaded once.
  const std::size_t max_n = *std::max_element(opts.sizes.begin(), opts.sizes.end());
  // Values in [-1000, 3000): negatives included, and a positive mean, so that the 2^28 sum (~2.7e11)
  // overflows a 32-bit accumulator: only the 64-bit kernels get it right.
  const std::vector<int> host = random_ints(max_n, -1000, 3000, 2024);
  course::DeviceBuffer<int> input(max_n);
  input.upload(host);
  course::DeviceBuffer<long long> result(1);

  std::size_t scratch = 8;
  for (const std::size_t n : opts.sizes)
    for (const auto& v : variants)
      scratch = std::max(scratch, scratch_bytes_for(v, n, v.shape(n, opts.block, device.sm_count)));
  Workspace workspace(scratch);

  course::ResultsFile results(program.chapter, argc, argv);
  results.set_device(device);
  results.config()["block"] = opts.block;
  results.config()["sizes"] = opts.sizes;
  results.config()["reps"] = common.timing.reps;
  results.config()["warmup"] = common.timing.warmup;
  results.config()["copy_gbs"] = copy_gbs;
  results.config()["element"] = "int32, summed in int64";

  course::Table table({"n", "kernel", "time_ms", "step", "cumulative", "grid", "block", "GB/s", "%copy"});
  for (const std::size_t n : opts.sizes) {
    const long long expected = reference_sum(std::span<const int>(host.data(), n));
    double first_ms = 0, previous_ms = 0;
    for (const auto& v : variants) {
      const LaunchShape shape = v.shape(n, opts.block, device.sm_count);
      // Checked before it is timed: a fast wrong kernel never reaches the table.
      result.fill_bytes(0xff);
      v.sum_int(input.data(), n, result.data(), shape, workspace, nullptr);
      long long got = 0;
      result.download(std::span<long long>(&got, 1));
      if (got != expected)
        throw course::CudaError(std::string(v.name) + ": sum of " + std::to_string(n) + " ints is " +
                                std::to_string(got) + ", expected " + std::to_string(expected));
      const std::string range = std::string(v.name) + " n=" + std::to_string(n);
      const course::NvtxRange nvtx(range.c_str());
      const course::Stats t = course::time_gpu(
          [&](cudaStream_t s) { v.sum_int(input.data(), n, result.data(), shape, workspace, s); }, common.timing);
      if (first_ms == 0) first_ms = t.median;
      const double step = previous_ms > 0 ? previous_ms / t.median : 1.0;
      const double cumulative = first_ms / t.median;
      previous_ms = t.median;
      const double bytes_read = static_cast<double>(n) * sizeof(int);
      const double gbs = course::gb_per_s(bytes_read, t.median);
      table.add_row({std::to_string(n), v.name, course::format_fixed(t.median, 4), course::format_ratio(step),
                     course::format_ratio(cumulative), grid_text(shape), block_text(shape),
                     course::format_fixed(gbs, 0), course::format_fixed(100.0 * gbs / copy_gbs, 1)});
      results.add_row({{"n", n},
                       {"kernel", v.name},
                       {"book_name", v.book_name},
                       {"teaches", v.teaches},
                       {"grid_formula", v.grid_formula},
                       {"time_ms", t.median},
                       {"min_ms", t.min},
                       {"max_ms", t.max},
                       {"cv", t.cv},
                       {"step_speedup", step},
                       {"cumulative_speedup", cumulative},
                       {"grid", shape.grid},
                       {"block", shape.block},
                       {"bytes_read", bytes_read},
                       {"gbs", gbs},
                       {"pct_copy", 100.0 * gbs / copy_gbs},
                       {"sum", got}});
    }
  }
  table.print(std::cout, common.csv);
  std::printf("\ntime: median of %d runs after %d warm-up runs (CUDA events); GB/s counts the bytes read "
              "(n x 4); %%copy is against the measured copy bandwidth above; every sum matched the CPU.\n",
              common.timing.reps, common.timing.warmup);
  if (!common.json_path.empty()) results.write(common.json_path);
  return course::exit_ok;
}

}  // namespace reduce
