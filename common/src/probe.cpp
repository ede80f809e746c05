// The grading probes' protocol (probe.hpp): cases written raw, timed repetitions around ready/go/done.
#include "common/probe.hpp"

#include <charconv>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/report.hpp"

namespace course::probe {
namespace {

const char* const schema = "cuda-lessons/probe/v1";

nlohmann::json number(double value) {
  // JSON has no NaN or infinity; written as strings they stay visible as wrong values.
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

nlohmann::json tolerance_json(Tolerance tolerance) {
  if (tolerance.rtol == 0.0 && tolerance.atol == 0.0) return "exact";
  return {{"rtol", tolerance.rtol}, {"atol", tolerance.atol}};
}

std::string render_case(const std::string& name, nlohmann::json values, Tolerance tolerance) {
  nlohmann::json entry = {{"name", name}, {"tolerance", tolerance_json(tolerance)}, {"values", std::move(values)}};
  return entry.dump();
}

}  // namespace

Cases::Cases(std::string exercise, std::uint64_t seed) : exercise_(std::move(exercise)), seed_(seed) {}

void Cases::add(const std::string& name, const std::vector<double>& values, Tolerance tolerance) {
  nlohmann::json list = nlohmann::json::array();
  for (double v : values) list.push_back(number(v));
  rendered_.push_back(render_case(name, std::move(list), tolerance));
  count_ += values.size();
}

void Cases::add(const std::string& name, const std::vector<float>& values, Tolerance tolerance) {
  add(name, std::vector<double>(values.begin(), values.end()), tolerance);
}

void Cases::add_exact(const std::string& name, const std::vector<long long>& values) {
  rendered_.push_back(render_case(name, nlohmann::json(values), Tolerance::exact()));
  count_ += values.size();
}

void Cases::add_exact(const std::string& name, const std::vector<int>& values) {
  add_exact(name, std::vector<long long>(values.begin(), values.end()));
}

void Cases::add_exact(const std::string& name, const std::vector<std::string>& values) {
  rendered_.push_back(render_case(name, nlohmann::json(values), Tolerance::exact()));
  count_ += values.size();
}

void Cases::write(const std::string& path) const {
  std::string text = "{\"schema\": \"" + std::string(schema) + "\", \"exercise\": " +
                     nlohmann::json(exercise_).dump() + ", \"seed\": " + std::to_string(seed_) + ", \"cases\": [\n";
  for (std::size_t i = 0; i < rendered_.size(); ++i) {
    text += rendered_[i];
    text += i + 1 < rendered_.size() ? ",\n" : "\n";
  }
  text += "]}\n";
  write_file_atomically(path, text);
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t Random::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Random::uniform(double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1.0p-53);
}

std::uint64_t Random::below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }

std::vector<std::uint64_t> places(std::uint64_t nonce, int rep, std::uint64_t salt, std::uint64_t n, int count) {
  Random random(mix(mix(nonce, static_cast<std::uint64_t>(rep)), salt));
  std::vector<std::uint64_t> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) out.push_back(random.below(n));
  return out;
}

namespace {

/// The next `go <nonce>` on stdin; false at the end of input (or `quit`): the grader is done with this run.
bool read_go(std::uint64_t& nonce) {
  std::string line;
  if (!std::getline(std::cin, line) || line == "quit") return false;
  const std::string prefix = "go ";
  if (line.rfind(prefix, 0) != 0) throw UsageError("timed probe: expected `go <nonce>` on stdin");
  const std::string digits = line.substr(prefix.size());
  if (!decimal_integer_problem(digits, false).empty()) throw UsageError("timed probe: the nonce must be decimal");
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), nonce);
  if (error != std::errc() || end != digits.data() + digits.size())
    throw UsageError("timed probe: the nonce must fit 64 bits");
  return true;
}

}  // namespace

void run_timed(const Options& options, Tolerance tolerance, const Repetition& repetition,
               const std::vector<std::string>& ran) {
  const std::uint64_t warm_nonce = mix(options.seed, 0x7761726dULL);  // "warm": not a nonce the grader sends
  for (int rep = 0; rep < options.warmup; ++rep) repetition(warm_nonce, rep);
  std::cout << "ready" << std::endl;
  // One set-up, as many timed rounds as the grader asks for: each `go` gets its own nonce, so its inputs are
  // new to the code whatever it kept from the rounds before.
  std::uint64_t nonce = 0;
  bool answered = false;
  while (read_go(nonce)) {
    nlohmann::json checks = nlohmann::json::array();
    for (int rep = 0; rep < options.reps; ++rep) {
      nlohmann::json values = nlohmann::json::array();
      for (double v : repetition(nonce, rep)) values.push_back(number(v));
      checks.push_back(std::move(values));
    }
    nlohmann::json done = {{"done", true}, {"nonce", std::to_string(nonce)}, {"variant", options.time_variant},
                           {"checks", std::move(checks)}, {"tolerance", tolerance_json(tolerance)},
                           {"ran", ran}};
    std::cout << done.dump() << std::endl;
    answered = true;
  }
  if (!answered) throw UsageError("timed probe: stdin ended before `go <nonce>`");
}

Options parse(int argc, char** argv, const std::string& exercise, bool gpu) {
  Options options;
  CLI::App app{"Grading probe of exercise " + exercise +
               ": writes the exercise code's raw outputs for the grader (see common/probe.hpp)."};
  app.add_option("--seed", options.seed, "every input derives from it")->required();
  app.add_option("--out", options.out, "verdict mode: write the cases to FILE (JSON)");
  app.add_option("--time", options.time_variant, "timed mode: exercise, reference or none")
      ->check(CLI::IsMember({"exercise", "reference", "none"}));
  app.add_option("--reps", options.reps, "timed repetitions after `go`")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", options.warmup, "untimed repetitions before `ready`")->check(CLI::Range(0, 1000));
  if (gpu) app.add_option("--device", options.device, "CUDA device index")->check(CLI::NonNegativeNumber);
  parse_command_line(app, argc, argv);
  if (options.out.empty() == options.time_variant.empty())
    throw UsageError("give exactly one of --out FILE (verdict) and --time VARIANT (timed)");
  if (options.timed() && options.reps == 0) throw UsageError("--time needs --reps N");
  if (!options.timed() && app.count("--reps") > 0) throw UsageError("--reps belongs to --time");
  if (!options.out.empty()) check_writable_path(options.out, "--out");
  return options;
}

}  // namespace course::probe
