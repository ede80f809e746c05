// Grading probe of exercise 01.1 (common/probe.hpp): the full_list strategy of the exercise's own
// src/forces.cpp (through the chapter's library, as exercise.01.1 links it).
//
// Writes, for the tests' atom counts and more (force_cases.hpp) and teams of 1, 2, 3, 5, 7 and 16 threads
// (more threads than atoms included), the output poisoned first:
//  - every atom's force, raw, with the tests' tolerance (1e-10 of the force scale): an atom no thread
//    walks keeps its poison, a row walked twice is still right but shows below;
//  - the rows the team walked in all (the ThreadTimes `particles` the strategy records): exactly the atom
//    count when every row is walked exactly once;
//  - per thread, how many rows it walked beyond an equal share plus one (n / threads + 1): 0 for every
//    balanced split, whichever thread takes the remainder (a balanced partition is not unique: only what
//    they all share is written).
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "force_cases.hpp"

namespace {

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "01.1", false);
  course::probe::Random random(course::probe::mix(options.seed, 0x0101));
  course::probe::Cases cases("01.1", options.seed);
  const md::Variant& full_list = *md::find_variant("full_list");
  for (const std::size_t atoms : md_grading::atom_counts(random)) {
    const md_grading::ForceCase c = md_grading::system_of(atoms, random);
    for (const int threads : {1, 2, 3, 5, 7, 16}) {
      const std::string name = "atoms=" + std::to_string(atoms) + " threads=" + std::to_string(threads);
      md::ForceWorkspace ws;
      auto force = md_grading::poisoned(atoms);
      full_list.compute(c.input(md::ListKind::full), force, ws, threads);
      cases.add(name + " forces", md_grading::flatten(force), md_grading::force_tolerance(c));
      long long rows = 0;
      std::vector<double> excess;
      for (const md::ThreadTimes& t : ws.times) {
        rows += static_cast<long long>(t.particles);
        const double share_bound = static_cast<double>(atoms) / threads + 1.0;
        excess.push_back(std::max(0.0, static_cast<double>(t.particles) - share_bound));
      }
      cases.add_exact(name + " rows walked in all", std::vector<long long>{rows});
      cases.add(name + " rows per thread beyond n/threads + 1", excess, course::probe::Tolerance::exact());
    }
  }
  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_01_1", body, argc, argv); }
