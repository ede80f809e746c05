// Chapter 04 · interleaved: sequential addressing, after chapter 03's two neighbored rungs when that
// chapter is part of the build (CMake links it and defines the macro; see reduce_ladder_earlier_rungs).
#include "common/errors.hpp"
#include "reduce_interleaved.hpp"
#include "reduce_ladder/program.hpp"
#ifdef REDUCE_LADDER_HAS_REDUCE_DIVERGENCE_CORE
#include "reduce_divergence.hpp"
#endif

namespace {
int run(int argc, char** argv) {
  reduce::LadderProgram program{
      "04_reduce_interleaved",
      "Chapter 04: parallel reduction, interleaved pairs (sequential addressing) after chapter 03's rungs",
      {}};
#ifdef REDUCE_LADDER_HAS_REDUCE_DIVERGENCE_CORE
  program.tables.push_back(reduce::divergence_variants());
#endif
  program.tables.push_back(reduce::interleaved_variants());
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_interleaved", run, argc, argv); }
