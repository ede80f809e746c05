// Exercise 01.3 (optimize): the thread_arrays strategy must stay exact while it gets fast. Its speed is
// graded by the program (critical_vs_triangle, against `critical` in the same run: a team that repeats
// the work is caught there); these cases guard the forces, the reuse of the workspace and the per-thread
// record the driver reports from.
#include <doctest/doctest.h>

#include <vector>

#include "forces.hpp"
#include "md_fixtures.hpp"

namespace {

const md::Variant& thread_arrays() { return *md::find_variant("thread_arrays"); }

}  // namespace

TEST_SUITE("exercise 01.3") {
  TEST_CASE("thread_arrays gives every atom the serial force, for any atom count and team size") {
    const std::uint64_t seed = md_test::course_seed();
    for (const std::size_t atoms : md_test::awkward_atom_counts(seed)) {
      const md_test::ForceCase c = md_test::force_case(atoms, seed + atoms);
      for (const int threads : {1, 2, 3, 7}) {
        CAPTURE(atoms);
        CAPTURE(threads);
        md::ForceWorkspace ws;
        for (int call = 1; call <= 2; ++call) {  // the second call finds the workspace in use
          CAPTURE(call);
          auto force = md_test::poisoned(atoms);
          thread_arrays().compute(c.input(md::ListKind::half), force, ws, threads);
          const std::size_t wrong = md_test::first_wrong_atom(c, force, 1e-10);
          CAPTURE(wrong);  // == atoms when every force is right
          CHECK(c.error(force) <= 1e-10);
        }
      }
    }
  }

  TEST_CASE("one workspace through teams of changing size: each call sums its own team's work only") {
    // The driver keeps a workspace per strategy; a team smaller than the last one must not pick up
    // what the larger team left behind, nor a larger team miss anything.
    const std::uint64_t seed = md_test::course_seed();
    const std::size_t atoms = md_test::awkward_atom_counts(seed).back();
    const md_test::ForceCase c = md_test::force_case(atoms, seed);
    md::ForceWorkspace ws;
    for (const int threads : {7, 3, 2, 5, 1, 7, 4}) {
      CAPTURE(threads);
      auto force = md_test::poisoned(atoms);
      thread_arrays().compute(c.input(md::ListKind::half), force, ws, threads);
      CHECK(c.error(force) <= 1e-10);
      REQUIRE(ws.times.size() == static_cast<std::size_t>(threads));
    }
  }

  TEST_CASE("the per-thread record the driver reads: pair loop, then the reduction, in order") {
    const std::uint64_t seed = md_test::course_seed();
    const std::size_t atoms = md_test::awkward_atom_counts(seed)[6];
    const md_test::ForceCase c = md_test::force_case(atoms, seed);
    for (const int threads : {2, 3, 7}) {
      CAPTURE(threads);
      md::ForceWorkspace ws;
      auto force = md_test::poisoned(atoms);
      thread_arrays().compute(c.input(md::ListKind::half), force, ws, threads);
      REQUIRE(ws.times.size() == static_cast<std::size_t>(threads));
      std::size_t rows = 0;
      for (const md::ThreadTimes& t : ws.times) {
        rows += t.particles;
        CHECK(t.particles <= atoms);
        CHECK(0 <= t.start);
        CHECK(t.start <= t.loop_begin);
        CHECK(t.loop_begin <= t.compute_end);
        CHECK(t.compute_end <= t.section_enter);  // the reduction ("section") follows the pair loop
        CHECK(t.section_enter <= t.section_exit);
      }
      CHECK(rows >= atoms);  // every row walked by some thread
    }
  }
}
