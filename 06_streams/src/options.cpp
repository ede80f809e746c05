#include "options.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <system_error>

#include "common/report.hpp"
#include "common/variants.hpp"
#include "issue_order_child.hpp"
#include "model.hpp"
#include "scenarios.hpp"

namespace streams {

namespace {

// A --trace destination is judged like --json: while parsing, before any GPU call.
CLI::Validator writable_trace_path() {
  return CLI::Validator(
      // CLI11 puts "--trace: " in front of the reason itself.
      [](std::string& path) -> std::string { return course::unwritable_because(path); },
      "FILE", "writable file");
}

int parse_chunk_count(const std::string& item) {
  // Decimal only, like every integer option ("010" is not 8); the range is check_chunk_count's.
  const std::string problem = course::decimal_integer_problem(item);
  if (!problem.empty()) throw course::UsageError("--sweep " + item + ": not a whole number of chunks: " + problem);
  if (item.size() > 10) throw course::UsageError("--sweep " + item + ": not a whole number of chunks: too large");
  const long long value = std::stoll(item);
  if (value > std::numeric_limits<int>::max())
    throw course::UsageError("--sweep " + item + ": more than " + std::to_string(max_chunks) +
                             " chunks is not a useful experiment");
  return static_cast<int>(value);
}

void check_chunk_count(int chunks, const char* option) {
  if (chunks > max_chunks)
    throw course::UsageError(std::string(option) + " " + std::to_string(chunks) + ": more than " +
                             std::to_string(max_chunks) + " chunks is not a useful experiment");
}

std::vector<std::string> chosen_scenarios(const std::vector<std::string>& names) {
  std::vector<std::string> known = course::variant_names(scenarios());
  known.emplace_back("all");  // what --scenario took for every scenario; it still means that
  course::check_variant_names(names, known);
  if (std::find(names.begin(), names.end(), "all") != names.end()) return course::variant_names(scenarios());
  return course::variant_names(std::span<const Scenario>(course::select_variants(scenarios(), names)));
}

// validate_pipeline_shape's message, behind the options that asked for the shape.
void check_shape(std::size_t elements, int chunks, int streams, const std::string& asked_by) {
  try {
    validate_pipeline_shape(elements, chunks, streams);
  } catch (const course::UsageError& e) {
    throw course::UsageError(asked_by + ": " + e.what());
  }
}

void check_pipelines(const Options& opt, Plan& plan) {
  check_chunk_count(opt.chunks, "--chunks");
  if (opt.streams > max_streams)
    throw course::UsageError("--streams above " + std::to_string(max_streams) + " is not a useful experiment");
  check_shape(plan.elements, opt.chunks, opt.streams,
              "--chunks " + std::to_string(opt.chunks) + " --streams " + std::to_string(opt.streams));
  if (opt.sweep_streams < 1 || opt.sweep_streams > max_streams)
    throw course::UsageError("--sweep-streams must be between 1 and " + std::to_string(max_streams));
  for (const auto& item : opt.sweep) {
    const int chunks = parse_chunk_count(item);
    // Said here: validate_pipeline_shape would first complain of min(chunks, streams) streams.
    if (chunks < 1) throw course::UsageError("--sweep " + item + ": the number of chunks must be at least 1");
    check_chunk_count(chunks, "--sweep");
    check_shape(plan.elements, chunks, std::min(chunks, opt.sweep_streams), "--sweep " + item);
    plan.sweep.push_back(chunks);
  }
  // issue_order_copies runs one chunk per stream, up to copies_many_streams streams.
  for (const QueueSetting& cfg : queue_settings(opt.streams, copies_many_streams))
    check_shape(plan.elements, cfg.streams, cfg.streams,
                "issue_order_copies with " + std::to_string(cfg.streams) + " streams");
}

void check_size(const Options& opt, Plan& plan) {
  plan.bytes = course::parse_count(opt.size);
  plan.elements = static_cast<std::size_t>(plan.bytes / sizeof(float));
  if (plan.elements == 0) throw course::UsageError("--size must hold at least one float (4 bytes)");
  // Both directions are pinned at once; pinned pages cannot be swapped out, so they must fit in memory.
  const std::uint64_t memory = host_memory_bytes();
  if (memory != 0 && plan.bytes > memory / 2)
    throw course::UsageError("--size " + opt.size + ": the two pinned host buffers need " +
                             course::format_bytes(2.0 * static_cast<double>(plan.bytes)) + ", this host has " +
                             course::format_bytes(static_cast<double>(memory)));
}

void check_child(const Options& opt, const Plan& plan) {
  if (opt.child_streams == 0) return;
  if (opt.child_streams < 0 || opt.child_streams > max_streams)
    throw course::UsageError("--child-streams must be between 1 and " + std::to_string(max_streams));
  if (plan.scenarios.size() != 1 || (plan.scenarios[0] != "issue_order" && plan.scenarios[0] != "issue_order_copies"))
    throw course::UsageError("--child-streams is internal to the issue_order scenarios (one of them)");
  if (plan.scenarios[0] == "issue_order_copies") {
    if (opt.kernel_iterations < 1) throw course::UsageError("--child-streams needs --kernel-iters");
    check_shape(plan.elements, opt.child_streams, opt.child_streams, "--child-streams");
  }
}

}  // namespace

void add_options(CLI::App& app, Options& opt) {
  course::add_common_options(app, opt.common);
  std::string names;
  for (const auto& sc : scenarios()) names += std::string(names.empty() ? "" : ", ") + sc.name;
  course::add_variants_option(app, opt.variants)->description("the scenarios to run (default all): " + names + "; comma-separate or repeat");
  app.add_option("--size", opt.size, "bytes per direction (float elements = size / 4), e.g. 256MiB")
      ->check(course::count_validator())->capture_default_str();
  app.add_option("--chunks", opt.chunks, "chunks of the pageable_vs_pinned and host_func pipelines")->capture_default_str();
  app.add_option("--streams", opt.streams, "streams of pageable_vs_pinned, host_func and issue_order")->capture_default_str();
  course::add_list_option(app, "--sweep", opt.sweep, "chunk counts N of the pipeline sweep");
  app.add_option("--sweep-streams", opt.sweep_streams, "the sweep uses min(N, this) streams")->capture_default_str();
  app.add_option("--kernel-iters", opt.kernel_iterations, "FMAs per element (0: calibrate so that K ~ both copies at once)")
      ->check(CLI::Range(0, 1 << 26))->capture_default_str();
  app.add_option("--small-kernels", opt.small_kernels, "small-grid kernels in kernel_concurrency")
      ->check(CLI::Range(1, 32))->capture_default_str();
  app.add_option("--gantt-width", opt.gantt_width, "columns of the ASCII timelines")->check(CLI::Range(20, 1000))->capture_default_str();
  app.add_option("--trace", opt.trace_path, "write every timeline as Chrome-trace JSON (Perfetto)")
      ->type_name("FILE")->check(writable_trace_path());
  app.add_option("--child-streams", opt.child_streams, "internal: run as an issue_order child")->group("");
}

Plan check_options(const Options& opt) {
  Plan plan;
  plan.scenarios = chosen_scenarios(opt.variants);
  check_size(opt, plan);
  check_pipelines(opt, plan);
  course::check_distinct_outputs({{"--json", opt.common.json_path}, {"--trace", opt.trace_path}});
  check_child(opt, plan);
  plan.child = opt.child_streams > 0;
  return plan;
}

std::uint64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

}  // namespace streams
