/// \file probe.hpp
/// \brief The grading probes' side of the grader's protocol: outputs for grader-chosen inputs, written raw,
/// and timed repetitions the grader clocks from outside (issue 30: nothing the submission's code writes or
/// runs decides its score).
///
/// Every exercise NN.k has a probe program `probe_NN_k` (`<chapter>/grading/probe_NN_k.cpp|.cu`): instructor
/// code linked with the exercise's file. It never judges anything itself. The grader runs the same probe in
/// two builds, the student's and the instructor's (the answer), in separate sandboxes, with the same seed
/// (drawn per grade, unknown before it), and compares the raw outputs in its own process, by the tolerance the
/// *instructor's* build wrote. Whatever the student's process prints, writes or exits with, it cannot produce
/// the instructor's outputs for inputs it had never seen without computing them.
///
/// Two modes:
///  - **verdict** `probe_NN_k --seed S --out FILE`: run the exercise's code on inputs derived from S (awkward
///    sizes, random data, poisoned outputs) and write every output, raw, as cases (Cases::write).
///  - **timed** (optimize exercises) `probe_NN_k --seed S --time exercise|reference|none --reps R [--warmup W]`:
///    set up from S, warm up W times, print `ready`; then, for every `go <nonce>` line on stdin (one per round of
///    the grader's, until `quit` or the end of input), run R repetitions, each on inputs perturbed from (nonce,
///    repetition) (so no repetition's result can be cached or precomputed), collect a few check values per
///    repetition (values the output must have, sampled at nonce-chosen places, and sums), and print one line
///    `{"done": true, "nonce": "...", "checks": [[...], ...], "tolerance": {...}}`. The grader clocks `go` to
///    `done` from outside; `none` does everything but the exercise's work (the grader subtracts it);
///    `reference` runs the course's reference (timed from the instructor's build only).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace course::probe {

/// How the grader compares one case's values with the instructor's: equal, or within atol + rtol·|want|.
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
  static Tolerance exact() { return {}; }
};

/// The parsed command line of a probe.
struct Options {
  std::uint64_t seed = 0;     ///< --seed: every input derives from it (and, timed, from the nonce)
  std::string out;            ///< --out FILE: verdict mode
  std::string time_variant;   ///< --time exercise|reference|none: timed mode
  int reps = 0;               ///< --reps: timed repetitions (the grader's choice)
  int warmup = 2;             ///< --warmup: untimed repetitions before `ready`
  int device = 0;             ///< --device (GPU probes)
  bool timed() const { return !time_variant.empty(); }
};

/// The cases a verdict run writes: named lists of values, each with the tolerance the instructor's build
/// states for it (the grader ignores the student's). Names must be the same in every build: make them from
/// the inputs (e.g. "n=1000003 random"), never from results.
class Cases {
 public:
  Cases(std::string exercise, std::uint64_t seed);
  void add(const std::string& name, const std::vector<double>& values, Tolerance tolerance);
  void add(const std::string& name, const std::vector<float>& values, Tolerance tolerance);
  void add_exact(const std::string& name, const std::vector<long long>& values);
  void add_exact(const std::string& name, const std::vector<int>& values);
  void add_exact(const std::string& name, const std::vector<std::string>& values);
  /// Writes the cases as JSON (schema cuda-lessons/probe/v1), atomically. NaN and infinities are written as
  /// strings ("nan", "inf", "-inf"): a value that should be a number is then a mismatch, not a parse error.
  void write(const std::string& path) const;
  std::size_t values() const { return count_; }

 private:
  std::string exercise_;
  std::uint64_t seed_;
  std::vector<std::string> rendered_;
  std::size_t count_ = 0;
};

/// One timed repetition: given the nonce and the repetition's index, perturb the inputs, run the variant
/// (`none`: skip only the exercise's work), wait for it to finish, and return the check values.
using Repetition = std::function<std::vector<double>(std::uint64_t nonce, int rep)>;

/// The timed protocol around `repetition`: `warmup` calls with a warm-up nonce derived from the seed, then
/// `ready` on stdout; then per `go <nonce>` line from stdin, `reps` calls and the `done` line carrying every
/// repetition's checks and `tolerance`, until `quit` or the end of stdin. Throws UsageError on any other line,
/// or when stdin ends before the first `go`.
///
/// `ran`: what the probe observed of the exercise's own call at the timed size before the warm-up (the kinds of
/// work a stream capture of it records, what it allocated: see probe_record.cuh), carried in every `done`
/// record. The grader compares the student's with the instructor's answer's: a timed call that hands its work
/// to the reference, another rung or a library earns no time points, however fast. Empty for `reference` and
/// `none`, and where the probe observes nothing.
void run_timed(const Options& options, Tolerance tolerance, const Repetition& repetition,
               const std::vector<std::string>& ran = {});

/// Parses a probe's command line (one of --out or --time; --reps required with --time). `gpu` adds --device.
/// Bad input: UsageError (exit 2) before any work.
Options parse(int argc, char** argv, const std::string& exercise, bool gpu);

/// Deterministic mixing (splitmix64's finaliser): the same (a, b) gives the same value in every build.
std::uint64_t mix(std::uint64_t a, std::uint64_t b);

/// A small deterministic generator (splitmix64) for inputs: identical streams in the student's and the
/// instructor's build for the same seed.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi);
  /// Uniform integer in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n);

 private:
  std::uint64_t state_;
};

/// `count` distinct-ish places in [0, n) chosen from (nonce, rep, salt): where a timed repetition perturbs its
/// input or samples its output.
std::vector<std::uint64_t> places(std::uint64_t nonce, int rep, std::uint64_t salt, std::uint64_t n, int count);

}  // namespace course::probe
