// Grading probe of exercise 01.2 (common/probe.hpp): md::triangle_partition of the exercise's own
// src/triangle_partition.cpp (through the chapter's library, as exercise.01.2 links it).
//
// The contract (partition.hpp) admits more than one answer: shares within one particle of n0 + kΔ may
// round either way. So what is written is what every correct answer shares, and, for proof of work, the
// shares themselves with a tolerance that every correct answer meets:
//  - coverage (every case of the suite's sweep: n 0 … 300, teams 1 … 40, twelve steps from 0 to 1e300,
//    negative, NaN, ±infinity; and n up to 2^31 with teams up to 1024): per team, the number of
//    boundaries minus (threads + 1), bounds[0], bounds[threads] and how many boundaries decrease: exactly
//    0, 0, n, 0 for every correct answer;
//  - staircases (the suite's fixed ones, 2,000 drawn from the seed, zero steps, clamped, negative, NaN and
//    infinite steps, large n): each thread's share, within 1 particle of the instructor's share (shares of
//    a non-integer ideal can only be its floor or its ceiling), and each share's distance from the ideal
//    n0 + kΔ (Δ clamped as the contract says) beyond 1 particle: 0 for every correct answer, so a share
//    two particles off is a mismatch even where it is close to the instructor's rounding;
//  - that the steps the contract equates give the same boundaries (+inf and 10 × the steepest; NaN,
//    −40 and 0): the element-wise differences, 0 for every correct answer;
//  - std::invalid_argument for teams of 0 and −3;
//  - the model clock: the idle time of the critical section with Δ = Tc / t_p, over Nth(Nth − 1)Tc (0.5:
//    halved), within 0.01 as the suite's 2 %;
//  - applying the answer: the triangle strategy with a forced, too steep staircase sums every force once
//    (forces within 1e-10 of the force scale), its threads walk the atom count in all, the first none.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "force_cases.hpp"
#include "partition.hpp"

namespace {

using course::probe::Cases;
using course::probe::Tolerance;

constexpr double inf = std::numeric_limits<double>::infinity();
const double nan_step = std::numeric_limits<double>::quiet_NaN();

std::string step_name(double step) {
  if (std::isnan(step)) return "nan";
  if (std::isinf(step)) return step > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", step);
  return text;
}

std::string case_name(std::size_t n, int threads, double step) {
  return "n=" + std::to_string(n) + " threads=" + std::to_string(threads) + " step=" + step_name(step);
}

/// Δ as the contract clamps it: NaN and negative steps count as 0, +infinity as the maximum, one thread no staircase.
double clamped_step(std::size_t n, int threads, double step) {
  if (threads < 2 || std::isnan(step) || step <= 0) return 0.0;
  return std::min(step, md::max_triangle_step(n, threads));
}

/// Coverage of one partition: [size − (threads + 1), bounds[0], bounds[threads], decreasing pairs].
std::vector<long long> coverage(const std::vector<std::size_t>& bounds, int threads) {
  const auto want = static_cast<std::size_t>(threads) + 1;
  if (bounds.size() != want) return {static_cast<long long>(bounds.size()) - static_cast<long long>(want), -1, -1, -1};
  long long decreasing = 0;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) decreasing += bounds[k] > bounds[k + 1] ? 1 : 0;
  return {0, static_cast<long long>(bounds.front()), static_cast<long long>(bounds.back()), decreasing};
}

/// The shares (within 1 of the instructor's) and their distance from the ideal beyond 1 (0).
void add_staircase(Cases& cases, std::size_t n, int threads, double step) {
  const std::string name = case_name(n, threads, step);
  const auto bounds = md::triangle_partition(n, threads, step);
  cases.add_exact(name + " coverage", coverage(bounds, threads));
  if (bounds.size() != static_cast<std::size_t>(threads) + 1) return;  // the coverage case names it
  const double delta = clamped_step(n, threads, step);
  const double first = static_cast<double>(n) / threads - delta * (threads - 1) / 2.0;
  std::vector<double> shares, beyond;
  for (int k = 0; k < threads; ++k) {
    const double share = static_cast<double>(static_cast<long long>(bounds[static_cast<std::size_t>(k) + 1]) -
                                             static_cast<long long>(bounds[static_cast<std::size_t>(k)]));
    shares.push_back(share);
    beyond.push_back(std::max(0.0, std::abs(share - (first + k * delta)) - 1.0));
  }
  cases.add(name + " shares", shares, Tolerance{0.0, 1.0});
  cases.add(name + " shares' distance from n0 + k*delta beyond 1", beyond, Tolerance{0.0, 1e-6});
}

void add_same_bounds(Cases& cases, std::size_t n, int threads, double step, double same_as) {
  const auto a = md::triangle_partition(n, threads, step), b = md::triangle_partition(n, threads, same_as);
  std::vector<long long> difference;
  if (a.size() != b.size()) difference.push_back(static_cast<long long>(a.size()) - static_cast<long long>(b.size()));
  else
    for (std::size_t k = 0; k < a.size(); ++k) difference.push_back(static_cast<long long>(a[k]) - static_cast<long long>(b[k]));
  cases.add_exact(case_name(n, threads, step) + " boundaries minus step=" + step_name(same_as) + "'s", difference);
}

std::string throws_for(std::size_t n, int threads, double step) {
  try {
    md::triangle_partition(n, threads, step);
    return "returned";
  } catch (const std::invalid_argument&) {
    return "std::invalid_argument";
  } catch (...) {
    return "another exception";
  }
}

/// The suite's model clock: thread k arrives after share_k · t_p, passes take Tc each, one at a time, in
/// order of arrival. The team's total idle time.
double simulated_idle(const std::vector<std::size_t>& bounds, double particle_time, double section_time) {
  std::vector<double> arrival;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k)
    arrival.push_back((static_cast<double>(bounds[k + 1]) - static_cast<double>(bounds[k])) * particle_time);
  std::vector<std::size_t> order(arrival.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return arrival[a] < arrival[b]; });
  double free_at = 0, idle = 0;
  std::vector<double> exit(arrival.size());
  for (std::size_t k : order) {
    const double enter = std::max(arrival[k], free_at);
    idle += enter - arrival[k];
    exit[k] = free_at = enter + section_time;
  }
  for (double e : exit) idle += free_at - e;
  return idle;
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "01.2", false);
  course::probe::Random random(course::probe::mix(options.seed, 0x0102));
  Cases cases("01.2", options.seed);

  // The suite's coverage sweep, one case per n (every team and step in it).
  const double sweep_steps[] = {0.0, 0.4, 1.0, 3.7, 17.0, 250.0, 1e6, 1e300, -5.0, nan_step, inf, -inf};
  for (std::size_t n = 0; n <= 300; n += (n < 70 ? 1 : 23)) {
    std::vector<long long> values;
    for (int threads = 1; threads <= 40; ++threads)
      for (double step : sweep_steps) {
        const auto c = coverage(md::triangle_partition(n, threads, step), threads);
        values.insert(values.end(), c.begin(), c.end());
      }
    cases.add_exact("coverage n=" + std::to_string(n) + " threads 1..40 x 12 steps", values);
  }
  // Large n: up to 2^31 particles, teams up to 1024.
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{665'500}, std::size_t{2'147'483'000}, std::size_t{1} << 31})
    for (int threads : {2, 7, 16, 1024})
      for (double step : {0.0, 123.4, 1e12}) add_staircase(cases, n, threads, step);

  // The suite's fixed staircases.
  for (int threads : {2, 3, 8, 11, 16})
    for (double step : {1.0, 37.5, 250.0, 1000.0})
      if (step <= md::max_triangle_step(100'000, threads)) add_staircase(cases, 100'000, threads, step);
  // Staircases from the seed (the suite draws 2,000 the same way), and a few with few particles.
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t n = random.below(5'000'001);
    const int threads = 1 + static_cast<int>(random.below(64));
    const double limit = threads > 1 ? md::max_triangle_step(n, threads) : 0.0;
    add_staircase(cases, n, threads, random.uniform(0.0, 1.0) * limit);
  }
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = random.below(400);
    const int threads = 1 + static_cast<int>(random.below(40));
    add_staircase(cases, n, threads, random.uniform(0.0, 1.2) * (threads > 1 ? md::max_triangle_step(n, threads) : 1.0));
  }
  // Zero steps: equal shares; one thread: everything.
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{1000}, std::size_t{32'000}})
    for (int threads : {1, 3, 16}) add_staircase(cases, n, threads, 0.0);
  add_staircase(cases, 777, 1, 50.0);
  // The clamp: too steep, infinite, negative, NaN.
  const double steepest = md::max_triangle_step(32'000, 16);
  for (double step : {10 * steepest, inf, 1e300, -40.0, -inf, nan_step}) add_staircase(cases, 32'000, 16, step);
  add_same_bounds(cases, 32'000, 16, inf, 10 * steepest);
  add_same_bounds(cases, 32'000, 16, -40.0, 0.0);
  add_same_bounds(cases, 32'000, 16, nan_step, 0.0);
  add_same_bounds(cases, 32'000, 16, -inf, 0.0);
  cases.add_exact("threads=0 and threads=-3", {throws_for(10, 0, 1.0), throws_for(10, -3, 1.0)});

  // The model clock: Δ = Tc / t_p halves the idle time of the section.
  std::vector<double> halved;
  for (int threads : {2, 4, 8, 11}) {
    const double section_time = 400.0, particle_time = 1.0;
    const auto bounds = md::triangle_partition(200'000, threads, section_time / particle_time);
    halved.push_back(simulated_idle(bounds, particle_time, section_time) / (threads * (threads - 1.0) * section_time));
  }
  cases.add("model clock n=200000 Tc/t_p=400 threads 2,4,8,11: idle / Nth(Nth-1)Tc", halved, Tolerance{0.0, 0.01});

  // Applying the answer: the triangle strategy on a forced, too steep staircase sums every force once.
  const std::size_t atoms = md_grading::atom_counts(random)[6];
  const md_grading::ForceCase c = md_grading::system_of(atoms, random);
  for (const int threads : {2, 3, 7}) {
    const std::string name = "triangle strategy, step 1e9, atoms=" + std::to_string(atoms) + " threads=" + std::to_string(threads);
    md::ForceWorkspace steep;
    steep.triangle_threads = threads;  // as if calibrated: no calibration run
    steep.triangle_step = 1e9;
    auto force = md_grading::poisoned(atoms);
    md::find_variant("triangle")->compute(c.input(md::ListKind::half), force, steep, threads);
    cases.add(name + " forces", md_grading::flatten(force), md_grading::force_tolerance(c));
    long long rows = 0;
    for (const md::ThreadTimes& t : steep.times) rows += static_cast<long long>(t.particles);
    cases.add_exact(name + " rows in all, rows of thread 0",
                    std::vector<long long>{rows, static_cast<long long>(steep.times.front().particles)});
  }
  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_01_2", body, argc, argv); }
