// The MD engine and the force strategies: known values, the neighbour list, every strategy against
// the serial forces, energy conservation, and the driver's input validation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "forces.hpp"
#include "md.hpp"
#include "md_fixtures.hpp"
#include "partition.hpp"
#include "simulation.hpp"
#include "sweep.hpp"

namespace {

using md_test::perturbed_lattice;

std::set<std::pair<int, int>> pairs_of(const md::NeighbourList& list) {
  std::set<std::pair<int, int>> pairs;
  for (std::size_t i = 0; i < list.size(); ++i)
    for (std::size_t k = list.offsets[i]; k < list.offsets[i + 1]; ++k) {
      const int a = static_cast<int>(i), b = list.neighbours[k];
      const bool fresh = pairs.insert({std::min(a, b), std::max(a, b)}).second;
      if (list.kind == md::ListKind::half) REQUIRE(fresh);  // each pair once
    }
  return pairs;
}

std::vector<std::vector<int>> sorted_rows(const md::NeighbourList& list) {
  std::vector<std::vector<int>> rows(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    rows[i].assign(list.neighbours.begin() + static_cast<std::ptrdiff_t>(list.offsets[i]),
                   list.neighbours.begin() + static_cast<std::ptrdiff_t>(list.offsets[i + 1]));
    std::sort(rows[i].begin(), rows[i].end());
  }
  return rows;
}

/// max |f − ref| over max |ref|: the error relative to the scale of the forces (a per-component ratio
/// would blow up on components that are nearly zero).
double max_relative_error(const std::vector<md::Vec3>& f, const std::vector<md::Vec3>& ref) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    diff = std::max({diff, std::abs(f[i].x - ref[i].x), std::abs(f[i].y - ref[i].y), std::abs(f[i].z - ref[i].z)});
    scale = std::max({scale, std::abs(ref[i].x), std::abs(ref[i].y), std::abs(ref[i].z)});
  }
  return diff / scale;
}

double total_energy(const md::System& s, double cutoff, double reach) {
  md::System copy = s;
  md::wrap_and_sort_by_cell(copy, reach);
  const auto list = md::build_neighbour_list(copy, reach, md::ListKind::half, 1);
  return md::pair_sums(copy, list, cutoff).potential + md::kinetic_energy(copy);
}

md::Config small_config(int cells) {
  md::Config c;
  c.cells = cells;
  c.variants = {"serial"};
  return c;
}

}  // namespace

TEST_CASE("step 0 of the default lattice matches LAMMPS in.lj: E_pair -6.7733681, pressure -5.0197073") {
  md::Config config;  // 20 cells: 32,000 atoms, density 0.8442, T 1.44, Rc 2.5
  md::System system = md::make_system(config);
  REQUIRE(system.size() == 32'000);
  CHECK(md::temperature(system) == doctest::Approx(1.44).epsilon(1e-12));
  const double reach = config.cutoff + config.skin;
  md::wrap_and_sort_by_cell(system, reach);
  const auto list = md::build_neighbour_list(system, reach, md::ListKind::half, 2);
  const md::Thermo thermo = md::measure_thermo(system, list, config.cutoff);
  // LAMMPS prints 8 significant digits: agreement to ~1e-7 relative is all that can be asked.
  CHECK(std::abs(thermo.potential_per_atom / -6.7733681 - 1) < 1e-7);
  CHECK(std::abs(thermo.pressure / -5.0197073 - 1) < 1e-7);
  CHECK(std::abs(thermo.total_per_atom / -4.6134356 - 1) < 1e-7);
}

TEST_CASE("velocities: zero total momentum, exactly the requested temperature") {
  md::System s = md::make_fcc_lattice(3, 0.8442);
  md::assign_velocities(s, 2.5, 42);
  md::Vec3 p{};
  for (const auto& v : s.velocity) p.x += v.x, p.y += v.y, p.z += v.z;
  CHECK(std::abs(p.x) < 1e-12);
  CHECK(std::abs(p.y) < 1e-12);
  CHECK(std::abs(p.z) < 1e-12);
  CHECK(md::temperature(s) == doctest::Approx(2.5).epsilon(1e-12));
}

TEST_CASE("the cell-binned neighbour list equals a brute-force O(N^2) list on a perturbed system") {
  // 4 cells: 2 list cells a side (the stencil repeats cells); 5 and 7: the half stencil.
  for (int cells : {4, 5, 7}) {
    const md::System system = perturbed_lattice(cells, 0.35, static_cast<unsigned>(cells));
    for (const double reach : {2.8, 3.3}) {
      if (reach > system.box / 2) continue;
      for (const auto kind : {md::ListKind::half, md::ListKind::full}) {
        const auto brute = md::brute_force_neighbour_list(system, reach, kind);
        for (int threads : {1, 2, 3}) {
          CAPTURE(cells);
          CAPTURE(reach);
          CAPTURE(threads);
          const auto cell = md::build_neighbour_list(system, reach, kind, threads);
          REQUIRE(cell.size() == system.size());
          CHECK(pairs_of(cell) == pairs_of(brute));
          if (kind == md::ListKind::full) CHECK(sorted_rows(cell) == sorted_rows(brute));
          else CHECK(cell.neighbours.size() * 2 == brute.neighbours.size() * 2);
        }
      }
    }
  }
  md::System tiny = md::make_fcc_lattice(4, 0.8442);
  CHECK_THROWS_AS(md::build_neighbour_list(tiny, tiny.box * 0.6, md::ListKind::half, 1), std::invalid_argument);
}

TEST_CASE("the build's distance pass gives the same list at the baseline width as vectorized") {
  // --list-build baseline only times the lesson step: it must not change a single pair or its place.
  for (int cells : {4, 7}) {
    md::System system = perturbed_lattice(cells, 0.35, static_cast<unsigned>(cells) + 5u);
    md::wrap_and_sort_by_cell(system, 2.8);
    for (const auto kind : {md::ListKind::half, md::ListKind::full}) {
      CAPTURE(cells);
      const auto vectorized = md::build_neighbour_list(system, 2.8, kind, 2, nullptr, md::ListBuildPass::vectorized);
      const auto baseline = md::build_neighbour_list(system, 2.8, kind, 2, nullptr, md::ListBuildPass::baseline);
      CHECK(vectorized.neighbours.size() > 0);
      CHECK(vectorized.offsets == baseline.offsets);
      CHECK(vectorized.neighbours == baseline.neighbours);
      CHECK(vectorized.image_from == baseline.image_from);
    }
  }
}

TEST_CASE("a rebuild that reuses the last list's memory gives the same list as a fresh build") {
  md::System system = perturbed_lattice(7, 0.35, 9);
  md::wrap_and_sort_by_cell(system, 2.8);
  md::NeighbourScratch scratch;
  for (const auto kind : {md::ListKind::full, md::ListKind::half, md::ListKind::full}) {  // kinds in turn
    for (int threads : {3, 2}) {  // more row buffers than threads the second time
      CAPTURE(threads);
      const auto fresh = md::build_neighbour_list(system, 2.8, kind, threads);
      scratch.recycled = md::build_neighbour_list(system, 2.8, kind, threads, &scratch);
      const auto& reused = scratch.recycled;
      CHECK(reused.kind == fresh.kind);
      CHECK(reused.offsets == fresh.offsets);
      CHECK(reused.neighbours == fresh.neighbours);
      CHECK(reused.image_from == fresh.image_from);
    }
  }
}

TEST_CASE("each list row holds the pairs found inside the box first, then those found across it") {
  // Periodic images once per list: a pair before image_from[i] must have its plain difference as its minimum
  // image (the force loop takes it plain), and one after it must not (else it would pay for nothing).
  for (const int cells : {4, 6, 9}) {
    md::System s = perturbed_lattice(cells, 0.2, static_cast<unsigned>(cells));
    md::wrap_and_sort_by_cell(s, 2.8);
    const double half_box = 0.5 * s.box;
    for (const auto kind : {md::ListKind::half, md::ListKind::full}) {
      const md::NeighbourList list = md::build_neighbour_list(s, 2.8, kind, 2);
      if (cells == 4) {  // 6.7 sigma: 2 cells a side, a cell may be reached both ways
        CHECK(list.image_from.empty());
        continue;
      }
      REQUIRE(list.image_from.size() == s.size());
      std::size_t plain = 0, across = 0;
      for (std::size_t i = 0; i < s.size(); ++i) {
        REQUIRE(list.offsets[i] <= list.image_from[i]);
        REQUIRE(list.image_from[i] <= list.offsets[i + 1]);
        for (std::size_t k = list.offsets[i]; k < list.offsets[i + 1]; ++k) {
          const md::Vec3 a = s.position[i], b = s.position[static_cast<std::size_t>(list.neighbours[k])];
          const bool crosses = std::abs(a.x - b.x) > half_box || std::abs(a.y - b.y) > half_box || std::abs(a.z - b.z) > half_box;
          if (crosses != (k >= list.image_from[i])) FAIL("row " << i << ", entry " << k << " on the wrong side");
          (crosses ? across : plain) += 1;
        }
      }
      CHECK(across > 0);
      CHECK(plain > across);  // most pairs need no image: the step's gain
    }
  }
  // Positions outside the box as given (a caller that did not wrap): no split, every pair takes the image.
  md::System raw = perturbed_lattice(6, 0.2, 3);
  CHECK(md::build_neighbour_list(raw, 2.8, md::ListKind::half, 1).image_from.empty());
}

TEST_CASE("sorting atoms by cell keeps each atom's position and velocity together") {
  md::System s = perturbed_lattice(5, 0.3);
  std::multiset<std::pair<double, double>> before, after;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double x = s.position[i].x - s.box * std::floor(s.position[i].x / s.box);
    before.insert({std::round(x * 1e9), s.velocity[i].x});
  }
  md::wrap_and_sort_by_cell(s, 2.8);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s.position[i].x >= 0);
    CHECK(s.position[i].x < s.box);
    after.insert({std::round(s.position[i].x * 1e9), s.velocity[i].x});
  }
  CHECK(before == after);
}

TEST_CASE("every strategy outside the exercises matches the serial forces to 1e-10 on many team sizes") {
  // full_list, triangle and thread_arrays are exercises (md_test::exercise_of): their suites test them.
  // 6 cells: 864 atoms, not a multiple of most team sizes; 13 > cores here, which tests correctness only.
  md::System system = perturbed_lattice(6, 0.25);
  const double cutoff = 2.5, reach = 2.8;
  md::wrap_and_sort_by_cell(system, reach);
  const auto half = md::build_neighbour_list(system, reach, md::ListKind::half, 2);
  const auto full = md::build_neighbour_list(system, reach, md::ListKind::full, 2);
  const md::ForceInput half_input{system.position, system.box, cutoff, &half};
  const md::ForceInput full_input{system.position, system.box, cutoff, &full};
  std::vector<md::Vec3> reference(system.size());
  md::ForceWorkspace ws;
  md::find_variant("serial")->compute(half_input, reference, ws, 1);
  double scale = 0;
  for (const auto& f : reference) scale = std::max({scale, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
  REQUIRE(scale > 1.0);  // a real test: the perturbed lattice has large forces

  for (const md::Variant& strategy : md::variants()) {
    if (!md_test::exercise_of(strategy.name).empty()) continue;
    for (int threads : {1, 2, 3, 5, 8, 13}) {
      CAPTURE(strategy.name);
      CAPTURE(threads);
      md::ForceWorkspace fresh;
      std::vector<md::Vec3> force(system.size(), md::Vec3{1e300, -1e300, 1e300});  // poisoned
      const auto& input = strategy.list == md::ListKind::full ? full_input : half_input;
      strategy.compute(input, force, fresh, threads);
      CHECK(max_relative_error(force, reference) <= 1e-10);
      strategy.compute(input, force, fresh, threads);  // again, with the workspace already in use
      CHECK(max_relative_error(force, reference) <= 1e-10);
      REQUIRE(fresh.times.size() == static_cast<std::size_t>(strategy.name == "serial" ? 1 : threads));
      std::size_t rows = 0;
      for (const auto& t : fresh.times) rows += t.particles;
      CHECK(rows == system.size());
    }
  }
}

TEST_CASE("full_list_vectorized gives every atom the serial force: awkward atom counts, split rows or not") {
  // Its two loops (plain pairs, then the image tail) and its lanes' remainders: atom counts and rows of
  // every length, lists with the split (image_from) and without (every pair takes the minimum image).
  const md::Variant& vectorized = *md::find_variant("full_list_vectorized");
  const std::uint64_t seed = md_test::course_seed();
  for (const std::size_t atoms : md_test::awkward_atom_counts(seed)) {
    md_test::ForceCase c = md_test::force_case(atoms, seed + atoms);
    for (const bool split : {true, false}) {
      if (!split) c.full.image_from.clear();
      for (const int threads : {1, 2, 3, 7}) {
        CAPTURE(atoms);
        CAPTURE(split);
        CAPTURE(threads);
        md::ForceWorkspace ws;
        auto force = md_test::poisoned(atoms);
        vectorized.compute(c.input(md::ListKind::full), force, ws, threads);
        CHECK(c.error(force) <= 1e-10);
      }
    }
  }
}

namespace {

/// The serial forces for every atom but the last, whose entry it never writes: the shape of a dropped tail.
void forces_but_the_last(const md::ForceInput& in, std::span<md::Vec3> f, md::ForceWorkspace& ws, int) {
  std::vector<md::Vec3> all(f.size());
  md::find_variant("serial")->compute(in, all, ws, 1);
  std::copy(all.begin(), all.end() - 1, f.begin());
}

}  // namespace

TEST_CASE("the driver's force check catches an entry a strategy never writes, even after a right one") {
  // In the sweep every strategy writes into one array, each right after another: an entry left
  // untouched would hold the previous strategy's correct force if the array were not poisoned first.
  md::Config config = small_config(4);
  config.steps = 5;
  config.threads = {2};
  const course::TimingOptions timing{1, 2};
  const md::Reference reference = md::measure_reference(config, timing, 2);
  const md::Variant right = *md::find_variant("serial");
  const md::Variant tail_dropped{"tail_dropped", "", forces_but_the_last, md::ListKind::half, false};
  CHECK_NOTHROW(md::sweep(config, timing, reference, {&right}));
  try {
    md::sweep(config, timing, reference, {&right, &tail_dropped});
    FAIL("the sweep accepted forces with one entry never written");
  } catch (const std::runtime_error& error) {
    CHECK(std::string(error.what()).find("tail_dropped on 2 threads: forces differ") != std::string::npos);
  }
}

TEST_CASE("the idle-time summary reproduces the model on an ideal critical-section timeline") {
  // 4 threads finish their loops together at t = 1 and pass the section (Tc = 0.5) one after another.
  std::vector<md::ThreadTimes> times(4);
  for (int k = 0; k < 4; ++k) times[static_cast<std::size_t>(k)] = {0, 0, 1.0, 1.0 + 0.5 * k, 1.5 + 0.5 * k, 10};
  const md::IdleSummary s = md::summarize(times);
  CHECK(s.idle_before_s == doctest::Approx(0.5 * 6));  // 0 + 1 + 2 + 3 passes
  CHECK(s.idle_after_s == doctest::Approx(0.5 * 6));
  CHECK(s.section_mean_s == doctest::Approx(0.5));
  CHECK(s.particle_s == doctest::Approx(0.1));
  CHECK(s.idle_s() == doctest::Approx(md::model_idle_s(*md::find_variant("critical"), 4, 0.5)));
  CHECK(md::model_idle_s(*md::find_variant("triangle"), 4, 0.5) == doctest::Approx(0.5 * 6));
  CHECK(md::model_idle_s(*md::find_variant("thread_arrays"), 4, 0.5) == 0.0);
}

TEST_CASE("energy stays bounded and momentum stays zero over 100 NVE steps") {
  for (const char* name : {"serial", "critical", "atomic"}) {  // the strategies that are no exercise
    CAPTURE(name);
    md::Config config = small_config(6);
    md::System system = md::make_system(config);
    const double reach = config.cutoff + config.skin;
    const double e0 = total_energy(system, config.cutoff, reach);
    md::ForceWorkspace ws;
    std::vector<md::Vec3> force;
    const auto loop = md::run_md(system, config, *md::find_variant(name), 3, 100, ws, force);
    CHECK(loop.rebuilds == 5);
    const double e1 = total_energy(system, config.cutoff, reach);
    // The unshifted cut-off makes the energy jump a little whenever a pair crosses Rc, and the lattice
    // melts: LAMMPS' own in.lj drifts by 2e-3 over these 100 steps. A broken integrator or force is off by far more.
    CHECK(std::abs(e1 / e0 - 1) < 5e-3);
    md::Vec3 p{};
    for (const auto& v : system.velocity) p.x += v.x, p.y += v.y, p.z += v.z;
    CHECK(std::abs(p.x) + std::abs(p.y) + std::abs(p.z) < 1e-9);
  }
}

TEST_CASE("validate_config accepts the defaults and rejects what cannot run") {
  md::Config ok;
  ok.variants = {"serial", "triangle"};
  CHECK_NOTHROW(md::validate_config(ok));
  int case_number = 0;
  const auto rejects = [&](auto change) {
    md::Config c = ok;
    change(c);
    ++case_number;
    CAPTURE(case_number);
    CHECK_THROWS_AS(md::validate_config(c), course::UsageError);
  };
  rejects([](md::Config& c) { c.cells = 3; });  // box 5.04: Rc + skin = 2.8 > 2.52
  rejects([](md::Config& c) { c.cells = 0; });
  rejects([](md::Config& c) { c.cells = -4; });
  rejects([](md::Config& c) { c.cutoff = 16.6; });  // + skin 0.3 > 16.8, half the box
  rejects([](md::Config& c) { c.cutoff = 0.0; });
  rejects([](md::Config& c) { c.skin = -0.1; });
  rejects([](md::Config& c) { c.density = 0.0; });
  rejects([](md::Config& c) { c.dt = 0.0; });
  rejects([](md::Config& c) { c.dt = -0.005; });
  rejects([](md::Config& c) { c.steps = -1; });
  rejects([](md::Config& c) { c.reference_steps = 0; });  // the forces would be checked on the lattice
  rejects([](md::Config& c) { c.rebuild_every = 0; });
  rejects([](md::Config& c) { c.threads = {0}; });
  rejects([](md::Config& c) { c.threads = {}; });
  rejects([](md::Config& c) { c.variants = {"fastest"}; });
  rejects([](md::Config& c) { c.variants = {}; });
  rejects([](md::Config& c) { c.threads = {md::max_team_size() + 1}; });
  rejects([](md::Config& c) { c.temperature = -1.0; });
  rejects([](md::Config& c) { c.dt = 1.0; });             // beyond velocity Verlet's stability limit
  rejects([](md::Config& c) { c.density = 5.0; });        // overlapping atoms for dt 0.005
  rejects([](md::Config& c) { c.temperature = 1e300; });  // atoms would cross the box in a step
  rejects([](md::Config& c) { c.cutoff = 40.0, c.cells = 100, c.density = 3.0; });  // terabytes of list
  md::Config four = ok;
  four.cells = 4;  // box 6.72: 2.8 <= 3.36 fits
  CHECK_NOTHROW(md::validate_config(four));
}

TEST_CASE("--threads: one count is a sweep up to 4 x the cores, several are exact teams, junk is refused") {
  using items = std::vector<std::string>;
  CHECK(md::parse_thread_list(items{"4"}, 8, 2) == std::vector<int>{1, 2, 3, 4});
  CHECK(md::parse_thread_list(items{"1"}, 8, 2) == std::vector<int>{1});
  CHECK(md::parse_thread_list(items{"8", "1", "4", "4"}, 8, 2) == std::vector<int>{1, 4, 8});
  for (const items& bad : {items{}, items{""}, items{"0"}, items{"-2"}, items{"abc"}, items{"1", "0"},
                           items{"99999999"}, items{"3.5"}, items{"9"}, items{"1", "9"}, items{"1000"},
                           items{"powers", "4"}, items{"Powers"}, items{"power"}})
    CHECK_THROWS_AS(md::parse_thread_list(bad, 8, 2), course::UsageError);
  CHECK(md::max_team_size() >= 4);
}

TEST_CASE("--threads powers: the tour's short sweep, 1, 2, 4, ... up to the cores, the core count last") {
  using items = std::vector<std::string>;
  using teams = std::vector<int>;
  CHECK(md::parse_thread_list(items{"powers"}, 256, 64) == teams{1, 2, 4, 8, 16, 32, 64});
  CHECK(md::parse_thread_list(items{"powers"}, 64, 16) == teams{1, 2, 4, 8, 16});
  CHECK(md::parse_thread_list(items{"powers"}, 48, 12) == teams{1, 2, 4, 8, 12});
  CHECK(md::parse_thread_list(items{"powers"}, 8, 2) == teams{1, 2});
  CHECK(md::parse_thread_list(items{"powers"}, 4, 1) == teams{1});
  CHECK(md::powers_up_to(3) == teams{1, 2, 3});
  // A few sizes even on a very large machine: the tour's table stays short (6 strategies a team).
  CHECK(md::powers_up_to(256).size() == 9);
}
