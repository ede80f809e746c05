// Grading probe of exercise 01.3 (common/probe.hpp): the thread_arrays strategy of the exercise's own
// src/forces.cpp (through the chapter's library, as exercise.01.3 links it).
//
// Verdict (--out), as the suite checks, the output poisoned before every call:
//  - every atom's force, raw, within 1e-10 of the force scale (the tests' tolerance), for the tests' atom
//    counts and more (force_cases.hpp) and teams of 1, 2, 3, 5 and 7, each twice on one workspace (the
//    second call finds the private arrays of the first);
//  - the forces of a team of changing size on one workspace (7, 3, 2, 5, 1, 7, 4, 16, 1);
//  - the per-thread record the driver reports, in the form every correct answer shares: how many of a
//    thread's timestamps are out of order (0 ≤ start ≤ loop_begin ≤ compute_end ≤ section_enter ≤
//    section_exit: 0), how many threads record more rows than atoms (0), and whether the team walked at
//    least every row (the atom count, min(rows, atoms)).
//
// Timed (--time), at the perf size of exercises.json (critical_vs_triangle --cells 20 --threads 2,2:
// 32,000 atoms of the default fcc system, a team of 2): the system is built once from the seed (lattice,
// ±0.1 σ displacements, sorted by cell, half list with the default cut-off 2.5 and skin 0.3). Each
// repetition moves every atom to a new place within 0.05 σ per component of where it started (chosen from
// (nonce, repetition); no pair leaves the list's reach), then runs the variant (`exercise`: thread_arrays;
// `reference`: critical, exercises.json's reference_variant; `none`: nothing) and returns the forces on 128
// atoms chosen from (nonce, repetition), x, y and z, and the mean of every force component weighted from
// (nonce, repetition): 385 values, within 1e-10 of the force scale for both variants (different summation
// orders). No force of an earlier call, whole or in part, is of use: every atom moved.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "force_cases.hpp"

namespace {

const md::Variant& thread_arrays() { return *md::find_variant("thread_arrays"); }

void add_record(course::probe::Cases& cases, const std::string& name, const md::ForceWorkspace& ws, std::size_t atoms) {
  std::vector<long long> out_of_order;
  long long too_many = 0;
  std::size_t rows = 0;
  for (const md::ThreadTimes& t : ws.times) {
    out_of_order.push_back((0 <= t.start ? 0 : 1) + (t.start <= t.loop_begin ? 0 : 1) +
                           (t.loop_begin <= t.compute_end ? 0 : 1) + (t.compute_end <= t.section_enter ? 0 : 1) +
                           (t.section_enter <= t.section_exit ? 0 : 1));
    too_many += t.particles > atoms ? 1 : 0;
    rows += t.particles;
  }
  cases.add_exact(name + " timestamps out of order, per thread", out_of_order);
  cases.add_exact(name + " threads recording more rows than atoms; min(rows walked, atoms)",
                  std::vector<long long>{too_many, static_cast<long long>(std::min(rows, atoms))});
}

void verdict(const course::probe::Options& options) {
  course::probe::Random random(course::probe::mix(options.seed, 0x0103));
  course::probe::Cases cases("01.3", options.seed);
  const auto counts = md_grading::atom_counts(random);
  for (const std::size_t atoms : counts) {
    const md_grading::ForceCase c = md_grading::system_of(atoms, random);
    for (const int threads : {1, 2, 3, 5, 7}) {
      md::ForceWorkspace ws;
      for (int call = 1; call <= 2; ++call) {
        const std::string name = "atoms=" + std::to_string(atoms) + " threads=" + std::to_string(threads) +
                                 " call " + std::to_string(call);
        auto force = md_grading::poisoned(atoms);
        thread_arrays().compute(c.input(md::ListKind::half), force, ws, threads);
        cases.add(name + " forces", md_grading::flatten(force), md_grading::force_tolerance(c));
        if (call == 2 && threads > 1) add_record(cases, name, ws, atoms);
      }
    }
  }
  // One workspace through teams of changing size.
  for (const std::size_t atoms : {counts.back(), std::size_t{33}}) {
    const md_grading::ForceCase c = md_grading::system_of(atoms, random);
    md::ForceWorkspace ws;
    int call = 0;
    for (const int threads : {7, 3, 2, 5, 1, 7, 4, 16, 1}) {
      const std::string name = "one workspace, atoms=" + std::to_string(atoms) + ", call " + std::to_string(++call) +
                               " threads=" + std::to_string(threads);
      auto force = md_grading::poisoned(atoms);
      thread_arrays().compute(c.input(md::ListKind::half), force, ws, threads);
      cases.add(name + " forces", md_grading::flatten(force), md_grading::force_tolerance(c));
      cases.add_exact(name + " thread records", std::vector<long long>{static_cast<long long>(ws.times.size())});
    }
  }
  cases.write(options.out);
}

void timed(const course::probe::Options& options) {
  constexpr int cells = 20, threads = 2, touched = 64;  // exercises.json "perf": --cells 20 --threads 2,2
  constexpr double cutoff = 2.5, skin = 0.3, reach = cutoff + skin, move = 0.05;
  course::probe::Random lattice_random(course::probe::mix(options.seed, 0x0113));
  md::System system = md_grading::perturbed_lattice(cells, 0.1, lattice_random);
  md::wrap_and_sort_by_cell(system, reach);
  const md::NeighbourList list = md::build_neighbour_list(system, reach, md::ListKind::half, threads);
  const std::size_t n = system.size();
  const std::vector<md::Vec3> start = system.position;
  std::vector<md::Vec3> position = start, force(n);
  const md::ForceInput input{position, system.box, cutoff, &list};
  // The tests' scale: the largest pair force or serial force component of the starting system.
  md::ForceWorkspace serial_ws, ws;
  md::find_variant("serial")->compute(input, force, serial_ws, 1);
  double scale = md::pair_force_scale(input);
  for (const md::Vec3& f : force) scale = std::max({scale, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
  const course::probe::Tolerance tolerance{0.0, 1e-10 * scale};

  const std::string& variant = options.time_variant;
  const md::Variant* work = variant == "exercise" ? &thread_arrays()
                            : variant == "reference" ? md::find_variant("critical")
                                                     : nullptr;
  const auto repetition = [&](std::uint64_t nonce, int rep) -> std::vector<double> {
    // Every atom moves, from where it started (so no pair leaves the list's reach): the forces of the last
    // repetition are of no use, not even in part.
    course::probe::Random shift(course::probe::mix(course::probe::mix(nonce, static_cast<std::uint64_t>(rep)), 0x7132));
    for (std::size_t i = 0; i < n; ++i)
      position[i] = {start[i].x + shift.uniform(-move, move), start[i].y + shift.uniform(-move, move),
                     start[i].z + shift.uniform(-move, move)};
    if (work != nullptr) work->compute(input, force, ws, threads);
    std::vector<std::uint64_t> sampled = course::probe::places(nonce, rep, 0x7131, n, touched);
    const auto more = course::probe::places(nonce, rep, 0x7133, n, touched);
    sampled.insert(sampled.end(), more.begin(), more.end());
    std::vector<double> checks;
    checks.reserve(3 * sampled.size() + 1);
    for (const std::uint64_t i : sampled) {
      checks.push_back(force[i].x);
      checks.push_back(force[i].y);
      checks.push_back(force[i].z);
    }
    // Every force, weighted from (nonce, repetition) and averaged: each component within the tolerance
    // keeps the mean within it too, and a force left out or stale moves it.
    course::probe::Random weight(course::probe::mix(course::probe::mix(nonce, static_cast<std::uint64_t>(rep)), 0x7134));
    double weighted = 0;
    for (const md::Vec3& f : force)
      for (const double component : {f.x, f.y, f.z}) weighted += weight.uniform(0.5, 1.0) * component;
    checks.push_back(weighted / static_cast<double>(3 * n));
    return checks;
  };
  course::probe::run_timed(options, tolerance, repetition);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "01.3", false);
  if (options.timed()) timed(options);
  else verdict(options);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_01_3", body, argc, argv); }
