// Exercise 01.1 (fix): the full-list strategy, every atom's force against the serial one, on atom counts
// that no team size divides, with the output poisoned first.
#include <doctest/doctest.h>

#include <vector>

#include "forces.hpp"
#include "md_fixtures.hpp"

TEST_SUITE("exercise 01.1") {
  TEST_CASE("full_list gives every atom the serial force, for any atom count and team size") {
    const md::Variant& full_list = *md::find_variant("full_list");
    const std::uint64_t seed = md_test::course_seed();
    for (const std::size_t atoms : md_test::awkward_atom_counts(seed)) {
      const md_test::ForceCase c = md_test::force_case(atoms, seed + atoms);
      for (const int threads : {1, 2, 3, 7}) {
        CAPTURE(atoms);
        CAPTURE(threads);
        md::ForceWorkspace ws;
        auto force = md_test::poisoned(atoms);
        full_list.compute(c.input(md::ListKind::full), force, ws, threads);
        const std::size_t wrong = md_test::first_wrong_atom(c, force, 1e-10);
        CAPTURE(wrong);  // == atoms when every force is right
        CHECK(c.error(force) <= 1e-10);
      }
    }
  }

  TEST_CASE("full_list walks every row exactly once: the threads' rows add up to the atom count") {
    const md::Variant& full_list = *md::find_variant("full_list");
    const std::uint64_t seed = md_test::course_seed();
    for (const std::size_t atoms : md_test::awkward_atom_counts(seed)) {
      const md_test::ForceCase c = md_test::force_case(atoms, seed + atoms);
      for (const int threads : {2, 3, 7}) {
        CAPTURE(atoms);
        CAPTURE(threads);
        md::ForceWorkspace ws;
        auto force = md_test::poisoned(atoms);
        full_list.compute(c.input(md::ListKind::full), force, ws, threads);
        REQUIRE(ws.times.size() == static_cast<std::size_t>(threads));
        std::size_t rows = 0;
        for (const md::ThreadTimes& t : ws.times) {
          rows += t.particles;
          // Balanced blocks: no thread walks more than one row above an equal share.
          CHECK(static_cast<double>(t.particles) <= static_cast<double>(atoms) / threads + 1.0);
        }
        CHECK(rows == atoms);
      }
    }
  }
}
