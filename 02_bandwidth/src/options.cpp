#include "options.hpp"

#include <charconv>
#include <system_error>

#include "common/errors.hpp"
#include "common/variants.hpp"

namespace bandwidth {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Any unsigned 64-bit number. CLI11 alone reads "-1" as 2^64 - 1 and lets 2^64 through, and
// CLI::NonNegativeNumber words its refusal with a 300-digit range.
CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc::result_out_of_range) return "'" + text + "' is too large (at most 2^64 - 1)";
        if (error != std::errc() || end != text.data() + text.size())
          return "'" + text + "' is not a non-negative integer";
        return "";
      },
      "UINT64");
}

}  // namespace

void add_options(CLI::App& app, Options& o, const std::vector<std::string>& beyond_names) {
  course::add_common_options(app, o.common);
  course::add_variants_option(app, o.variants)
      ->description("run only these rows (default: all). Host memory kinds: " +
                    joined(course::variant_names(host_memory_variants())) +
                    " (wc = write-combined); device copies: " +
                    joined(course::variant_names(device_copy_variants())) +
                    " (cudaMemcpy always runs in the duel: it is the baseline); beyond the lesson: " +
                    joined(beyond_names) + "; comma-separate or repeat");
  app.add_option("--min-size", o.min_size, "smallest transfer of the sweep")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--max-size", o.max_size, "largest transfer of the sweep (and the size of the device-to-device duel)")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--step", o.step, "size factor between sweep points")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  app.add_option("--size", o.source_size, "the book's transfer size (compared with its K80 figures)")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--p2p", o.p2p, "peer-to-peer matrix when 2 or more GPUs are present")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  app.add_option("--p2p-size", o.p2p_size, "transfer size of the peer-to-peer matrix")
      ->check(course::count_validator())
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the random data every copy carries")
      ->check(seed_validator())
      ->capture_default_str();
}

Plan make_plan(const Options& o, const std::vector<std::string>& beyond_names) {
  Plan plan;
  plan.sweep.min_bytes = course::parse_count(o.min_size);
  plan.sweep.max_bytes = course::parse_count(o.max_size);
  plan.sweep.step = o.step;
  plan.sweep.source_bytes = course::parse_count(o.source_size);
  validate_sweep(plan.sweep);
  plan.sizes = sweep_sizes(plan.sweep.min_bytes, plan.sweep.max_bytes, plan.sweep.step, plan.sweep.source_bytes);
  plan.call_return_sizes = call_return_sizes(plan.sweep);
  plan.selection = Selection(o.variants, beyond_names);
  if (o.p2p != "auto" && o.p2p != "off") throw course::UsageError("--p2p " + o.p2p + ": use auto or off");
  plan.p2p = o.p2p == "auto";
  plan.p2p_bytes = course::parse_count(o.p2p_size);
  plan.seed = o.seed;
  plan.timing = o.common.timing;
  return plan;
}

nlohmann::json config_json(const Plan& plan, bool run_p2p) {
  // "kinds": the host memory kinds that ran, as the old --kinds said it ("all" for all four).
  const auto kinds = plan.selection.pick(host_memory_variants());
  std::string kinds_text;
  for (const auto& k : kinds) kinds_text += (kinds_text.empty() ? "" : ",") + std::string(k.name);
  if (kinds.size() == host_memory_variants().size()) kinds_text = "all";
  return {{"kinds", kinds_text},
          {"variants", plan.selection.names()},
          {"min_bytes", plan.sweep.min_bytes},
          {"max_bytes", plan.sweep.max_bytes},
          {"step", plan.sweep.step},
          {"source_bytes", plan.sweep.source_bytes},
          {"sizes", plan.sizes},
          {"call_return_sizes", plan.call_return_sizes},
          {"reps", plan.timing.reps},
          {"warmup", plan.timing.warmup},
          {"seed", plan.seed},
          {"p2p", run_p2p},
          {"p2p_bytes", plan.p2p_bytes}};
}

}  // namespace bandwidth
