// Chapter 05 · unrolling and beyond: the whole ladder in one table, from chapter 03's divergent tree
// to a single-pass reduction, with CUB as the library baseline. The earlier chapters' rungs come in
// when those chapters are part of the build (CMake links them and defines the macros; see
// reduce_ladder_earlier_rungs).
#include "common/errors.hpp"
#include "reduce_ladder/program.hpp"
#include "reduce_unroll.hpp"
#ifdef REDUCE_LADDER_HAS_REDUCE_DIVERGENCE_CORE
#include "reduce_divergence.hpp"
#endif
#ifdef REDUCE_LADDER_HAS_REDUCE_INTERLEAVED_CORE
#include "reduce_interleaved.hpp"
#endif

namespace {
int run(int argc, char** argv) {
  reduce::LadderProgram program{
      "05_reduce_unroll",
      "Chapter 05: parallel reduction, the whole ladder (03 and 04's rungs, unrolling, shuffles, "
      "16-byte loads, persistent and single-pass kernels) against cub::DeviceReduce::Sum",
      {}};
#ifdef REDUCE_LADDER_HAS_REDUCE_DIVERGENCE_CORE
  program.tables.push_back(reduce::divergence_variants());
#endif
#ifdef REDUCE_LADDER_HAS_REDUCE_INTERLEAVED_CORE
  program.tables.push_back(reduce::interleaved_variants());
#endif
  program.tables.insert(program.tables.end(),
                        {reduce::unroll_variants(), reduce::beyond_book_variants(), reduce::library_variants()});
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_unroll", run, argc, argv); }
