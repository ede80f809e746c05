// When an MD run stops being physics: the bounds refused up front, and blow-ups driven through the
// library (too large a time step, overlapping atoms, a list without skin) that must end in one
// SimulationFailure naming the step and the likely cause, never in a crash.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "forces.hpp"
#include "md.hpp"
#include "md_fixtures.hpp"
#include "simulation.hpp"
#include "stability.hpp"

namespace {

md::Config small_config() {
  md::Config c;
  c.cells = 6;  // 864 atoms: a blow-up shows within the first list window
  c.variants = {"serial"};
  return c;
}

/// Runs `steps` steps of the configured lattice (no validate_config: the library must defend itself)
/// and returns the failure, or an empty message if the run passed every check.
std::string failure_of(md::System system, const md::Config& config, int steps, int* step = nullptr,
                       const char* variant = "serial", int threads = 2) {
  md::ForceWorkspace ws;
  std::vector<md::Vec3> force;
  try {
    md::run_md(system, config, *md::find_variant(variant), threads, steps, ws, force);
  } catch (const md::SimulationFailure& e) {
    if (step) *step = e.step;
    return e.what();
  }
  return {};
}

bool says(const std::string& message, const std::string& phrase) { return message.find(phrase) != std::string::npos; }

}  // namespace

TEST_CASE("velocity Verlet's limit: 2/omega of a pair at the bottom of the well is 0.187 tau") {
  CHECK(md::pair_stiffness(md::potential_minimum) == doctest::Approx(57.146).epsilon(1e-4));
  CHECK(md::verlet_step_limit(md::potential_minimum) == doctest::Approx(0.18708).epsilon(1e-4));
  CHECK(std::isinf(md::verlet_step_limit(2.0)));  // beyond the inflection point: nothing to vibrate
  CHECK(md::fcc_neighbour_distance(0.8442) == doctest::Approx(1.18765).epsilon(1e-5));
  CHECK(md::fcc_neighbour_distance(std::sqrt(2.0)) == doctest::Approx(1.0));  // close-packed spheres of diameter sigma
}

TEST_CASE("check_time_step accepts in.lj and refuses a time step, a density or a temperature no run survives") {
  CHECK_NOTHROW(md::check_time_step(0.8442, 1.44, 0.005));
  CHECK_NOTHROW(md::check_time_step(1.2, 1.44, 0.005));
  CHECK_NOTHROW(md::check_time_step(0.8442, 0.0, 0.15));  // at rest the lattice vibrates slowly
  const auto refuses = [](double density, double temperature, double dt, const char* phrase) {
    CAPTURE(density);
    CAPTURE(temperature);
    CAPTURE(dt);
    CHECK_THROWS_WITH_AS(md::check_time_step(density, temperature, dt), doctest::Contains(phrase), course::UsageError);
  };
  refuses(0.8442, 1.44, 1.0, "--dt 1");
  refuses(0.8442, 0.0, 0.19, "stability limit");
  refuses(5.0, 1.44, 0.005, "--density 5");
  refuses(5.0, 1.44, 0.005, "overlapping atoms");
  refuses(0.8442, 1.44, 0.1, "time step is too large");
  refuses(0.8442, 1e300, 0.005, "--temperature 1e+300");
  CHECK_NOTHROW(md::check_time_step(5.0, 1.44, 0.001));  // dense, but a step short enough to follow it
}

TEST_CASE("in.lj passes every check; its unchecked every-20 list is within the missing-pair bound") {
  md::Config config = small_config();
  CHECK(failure_of(md::make_system(config), config, 100).empty());
  config.skin = 0.0;  // no skin, but rebuilt every step: the list is exact whenever it is used
  config.rebuild_every = 1;
  CHECK(failure_of(md::make_system(config), config, 30, nullptr, "serial", 1).empty());
}

TEST_CASE("a time step too large blows the run up: SimulationFailure names the step and the time step") {
  md::Config config = small_config();
  config.dt = 0.04;  // below the pair limit, so validate_config's first bound lets it through
  int step = -1;
  const std::string message = failure_of(md::make_system(config), config, 100, &step);
  CAPTURE(message);
  CHECK(step == config.rebuild_every - 1);  // found where the first list ends its service
  CHECK(says(message, "step " + std::to_string(step) + ":"));
  CHECK(says(message, "likely cause: time step too large"));
  CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("the same blow-up is caught by every variant outside the exercises, on any team") {
  md::Config config = small_config();
  config.temperature = 100;  // hot atoms hit the wall too hard for dt 0.005
  for (const md::Variant& v : md::variants()) {
    if (!md_test::exercise_of(v.name).empty()) continue;  // in a handout, their stubs are in place
    CAPTURE(v.name);
    const std::string message = failure_of(md::make_system(config), config, 50, nullptr, std::string(v.name).c_str(), 3);
    CHECK(says(message, "time step too large"));
  }
}

TEST_CASE("overlapping atoms stop the run at step 0") {
  md::Config config = small_config();
  md::System system = md::make_system(config);
  system.position[1] = {system.position[0].x + 0.3, system.position[0].y, system.position[0].z};
  int step = -1;
  const std::string message = failure_of(system, config, 10, &step);
  CAPTURE(message);
  CHECK(step == 0);
  CHECK(says(message, "step 0: two atoms start 0.3 sigma apart: overlapping atoms"));
}

TEST_CASE("a list without skin misses pairs between rebuilds: the stale list is named, with the count") {
  md::Config config = small_config();
  config.skin = 0.0;
  config.temperature = 5.0;
  int step = -1;
  const std::string message = failure_of(md::make_system(config), config, 20, &step);
  CAPTURE(message);
  CHECK(step == 19);
  CHECK(says(message, "are missing from the neighbour list built at step 0"));
  CHECK(says(message, "likely cause: neighbour list too stale"));
  config.skin = 0.3;  // a list never rebuilt while the atoms stream through it
  config.rebuild_every = 1000;
  config.temperature = 10.0;
  CHECK(says(failure_of(md::make_system(config), config, 200, &step), "neighbour list too stale"));
  CHECK(step == 200);  // checked after the last step though no rebuild came
}

TEST_CASE("a non-finite velocity is reported as a blow-up, not sorted into a cell") {
  md::Config config = small_config();
  md::System system = md::make_system(config);
  system.velocity[7].y = std::numeric_limits<double>::quiet_NaN();
  const std::string message = failure_of(system, config, 40);
  CAPTURE(message);
  CHECK(says(message, "step 19: non-finite positions or velocities"));
  md::System broken = md::make_fcc_lattice(4, 0.8442);
  broken.position[3].z = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(md::wrap_and_sort_by_cell(broken, 2.8), std::invalid_argument);
  CHECK_THROWS_AS(md::build_neighbour_list(broken, 2.8, md::ListKind::half, 2), std::invalid_argument);
}

TEST_CASE("energy drift beyond 5% of |E_pair| + KE is named; within it, or NaN, as it should be") {
  CHECK_NOTHROW(md::check_energy_drift(-4.61, -4.63, 8.9, 100, 0.005));
  CHECK_THROWS_WITH_AS(md::check_energy_drift(-4.61, -3.0, 8.9, 100, 0.005),
                       doctest::Contains("step 100: total energy per atom drifted"), md::SimulationFailure);
  CHECK_THROWS_AS(md::check_energy_drift(-4.61, std::nan(""), 8.9, 100, 0.005), md::SimulationFailure);
  CHECK_NOTHROW(md::check_energy_drift(0.0, 0.04, 0.0, 10, 0.005));  // at rest: the floor of 1 epsilon
}

TEST_CASE("atoms far outside the box wrap into it; a dilute system needs no more cells than atoms") {
  md::System far = md::make_fcc_lattice(4, 0.8442);
  // Values where x - box*floor(x/box) rounds to -2 and -2048: a cell index below zero.
  far.position[0].x = 1.5706612556454455e19;
  far.position[1].y = -1.6702490715425752e16;
  far.position[2].x = 1e300;
  md::wrap_and_sort_by_cell(far, 2.8);
  for (const md::Vec3& p : far.position) {
    CHECK(p.x >= 0);
    CHECK(p.x < far.box);
    CHECK(p.y >= 0);
    CHECK(p.y < far.box);
  }
  md::System dilute = md::make_fcc_lattice(4, 1e-9);  // a box of 6,350 sigma: 10^10 cells of 2.8 sigma
  md::wrap_and_sort_by_cell(dilute, 2.8);
  CHECK(md::build_neighbour_list(dilute, 2.8, md::ListKind::full, 2).neighbours.empty());
}

TEST_CASE("pair sums agree on half and full lists; the closest pair of the lattice is its spacing") {
  md::System lattice = md::make_fcc_lattice(5, 0.8442);
  md::wrap_and_sort_by_cell(lattice, 2.8);
  const auto half = md::build_neighbour_list(lattice, 2.8, md::ListKind::half, 2);
  const auto full = md::build_neighbour_list(lattice, 2.8, md::ListKind::full, 2);
  const md::PairSums h = md::pair_sums(lattice, half, 2.5, 1), f = md::pair_sums(lattice, full, 2.5, 3);
  CHECK(f.potential == doctest::Approx(h.potential).epsilon(1e-12));
  CHECK(f.virial == doctest::Approx(h.virial).epsilon(1e-12));
  CHECK(f.interacting == h.interacting);
  CHECK(h.interacting == lattice.size() * 54 / 2);  // fcc shells within 2.5: 12 + 6 + 24 + 12 neighbours
  CHECK(h.closest == doctest::Approx(md::fcc_neighbour_distance(0.8442)));
}

TEST_CASE("the force check on the perfect lattice: forces cancel to round-off, which is not a failure") {
  // Every net force is a sum of 12+ pair forces of about 2 epsilon/sigma that cancel: the serial ones
  // come out near 1e-15, and another summation order differs from them by as much.
  md::System lattice = md::make_fcc_lattice(6, 0.8442);
  md::wrap_and_sort_by_cell(lattice, 2.8);
  const auto half = md::build_neighbour_list(lattice, 2.8, md::ListKind::half, 2);
  const auto full = md::build_neighbour_list(lattice, 2.8, md::ListKind::full, 2);
  const md::ForceInput half_input{lattice.position, lattice.box, 2.5, &half};
  const md::ForceInput full_input{lattice.position, lattice.box, 2.5, &full};
  std::vector<md::Vec3> reference(lattice.size());
  md::ForceWorkspace ws;
  md::find_variant("serial")->compute(half_input, reference, ws, 1);
  const double scale = md::pair_force_scale(half_input);
  CHECK(scale == doctest::Approx(md::pair_force_scale(full_input)));
  CHECK(scale > 1.0);
  for (const md::Variant& v : md::variants()) {
    if (!md_test::exercise_of(v.name).empty()) continue;  // tested by their exercise suites
    CAPTURE(v.name);
    md::ForceWorkspace fresh;
    std::vector<md::Vec3> force(lattice.size());
    v.compute(v.list == md::ListKind::full ? full_input : half_input, force, fresh, 3);
    CHECK(md::force_error(force, reference, scale) <= 1e-10);
  }
  std::vector<md::Vec3> poisoned = reference;
  poisoned[5].y = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isinf(md::force_error(poisoned, reference, scale)));  // a NaN is never "close"
  poisoned[5].y = reference[5].y + 1e-6 * scale;
  CHECK(md::force_error(poisoned, reference, scale) == doctest::Approx(1e-6).epsilon(1e-6));
}
