// The program every chapter of the reduction ladder runs: CLI → validation (before any GPU call) →
// device → for each size, each rung checked against the CPU sum, then timed → one table and the JSON.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "common/report.hpp"
#include "common/timing.cuh"
#include "common/variants.hpp"
#include "reduce_ladder/program.hpp"

namespace reduce {

LadderOptions validate_ladder_options(const std::vector<std::string>& sizes, long long block,
                                      const std::vector<std::string>& names,
                                      std::span<const Variant> variants) {
  LadderOptions opts;
  if (sizes.empty()) throw course::UsageError("--n: give at least one size");
  for (const auto& text : sizes) {
    std::uint64_t n = 0;
    try {
      n = course::parse_count(text);  // rejects 0, junk and overflow
    } catch (const course::UsageError& e) {
      throw course::UsageError("--n " + text + ": " + e.what());
    }
    if (n > max_elements)
      throw course::UsageError("--n " + text + ": too large, at most 2^32 elements (16 GiB of ints)");
    opts.sizes.push_back(static_cast<std::size_t>(n));
  }
  validate_block(block);
  opts.block = static_cast<unsigned>(block);
  course::check_variant_names(names, course::variant_names(variants));
  opts.variants = names;
  return opts;
}

namespace {

std::vector<Variant> flatten(const LadderProgram& program) {
  std::vector<Variant> all;
  for (const auto table : program.tables) all.insert(all.end(), table.begin(), table.end());
  return all;
}

// A launch-shape cell: the number in the JSON (0 for the library row, as the figures read it), the
// word "library" in the table where CUB picks its own grid and block.
void shape_cell(course::Row& row, const char* key, unsigned value) {
  if (value == 0)
    row.text(key, "library").json(key, 0);
  else
    row.integer(key, value);
}

}  // namespace

void record_rung(course::Row& row, const Variant& variant, const RungResult& r) {
  const double bytes_read = static_cast<double>(r.n) * sizeof(int);
  const double gbs = course::gb_per_s(bytes_read, r.time.median);
  row.integer("n", static_cast<long long>(r.n))
      .text("kernel", variant.name)
      .json("book_name", variant.book_name)
      .json("teaches", variant.teaches)
      .json("grid_formula", variant.grid_formula)
      .fixed("time_ms", r.time.median, 4)
      .json("min_ms", r.time.min)
      .json("max_ms", r.time.max)
      .json("cv", r.time.cv)
      .ratio({"step", "step_speedup"}, r.step)
      .ratio({"cumulative", "cumulative_speedup"}, r.cumulative);
  shape_cell(row, "grid", r.shape.grid);
  shape_cell(row, "block", r.shape.block);
  row.json("bytes_read", bytes_read)
      .fixed({"GB/s", "gbs"}, gbs, 0)
      .fixed({"%copy", "pct_copy"}, 100.0 * gbs / r.copy_gbs, 1)
      .json("sum", r.sum);
}

int run_ladder_program(const LadderProgram& program, int argc, char** argv) {
  const std::vector<Variant> all = flatten(program);
  CLI::App app{program.description};
  course::CommonOptions common;
  std::vector<std::string> size_texts{"2^24", "2^28"};
  long long block = 512;
  std::vector<std::string> names;
  course::add_list_option(app, "--n", size_texts, "element counts (ints), e.g. 2^24 or 16M, at most 2^32");
  app.add_option("--block", block, "threads per block: a power of two from 64 to 1024")->capture_default_str();
  course::add_variants_option(app, names);
  course::add_common_options(app, common);
  course::parse_command_line(app, argc, argv);
  const LadderOptions opts = validate_ladder_options(size_texts, block, names, all);
  const std::vector<Variant> variants = course::select_variants(std::span<const Variant>(all), opts.variants);

  course::RunReport report(program.chapter, argc, argv, common);
  std::ostream& info = report.info();
  const course::DeviceInfo device = course::require_device(common.device);
  course::print_device_header(info, device);
  const double copy_gbs = course::measure_copy_bandwidth_gbs();
  info << "measured copy bandwidth (cudaMemcpy D2D, read + write): " << course::format_fixed(copy_gbs, 0)
       << " GB/s\n\n";

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

  course::ResultsFile& results = report.results();
  results.set_device(device);
  results.config()["block"] = opts.block;
  results.config()["sizes"] = opts.sizes;
  results.config()["reps"] = common.timing.reps;
  results.config()["warmup"] = common.timing.warmup;
  results.config()["copy_gbs"] = copy_gbs;
  results.config()["element"] = "int32, summed in int64";

  course::RowTable& table = report.table();
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
        throw course::WrongResultError(std::string(v.name) + ": sum of " + std::to_string(n) + " ints is " +
                                std::to_string(got) + ", expected " + std::to_string(expected));
      const std::string range = std::string(v.name) + " n=" + std::to_string(n);
      const course::NvtxRange nvtx(range.c_str());
      const course::Stats t = course::time_gpu(
          [&](cudaStream_t s) { v.sum_int(input.data(), n, result.data(), shape, workspace, s); }, common.timing);
      if (first_ms == 0) first_ms = t.median;
      const double step = previous_ms > 0 ? previous_ms / t.median : 1.0;
      previous_ms = t.median;
      record_rung(table.add_row(), v, {n, shape, t, step, first_ms / t.median, copy_gbs, got});
    }
  }
  report.finish(std::cout);
  info << "\ntime: median of " << common.timing.reps << " runs after " << common.timing.warmup
       << " warm-up runs (CUDA events); GB/s counts the bytes read (n x 4); %copy is against the measured "
          "copy bandwidth above; every sum matched the CPU.\n";
  return course::exit_ok;
}

}  // namespace reduce
