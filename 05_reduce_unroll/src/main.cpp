// Chapter 05 · unrolling and beyond: the whole ladder in one table, from chapter 03's divergent tree
// to a single-pass reduction, with CUB as the library baseline.
#include "common/errors.hpp"
#include "reduce_divergence.hpp"
#include "reduce_interleaved.hpp"
#include "reduce_unroll.hpp"

namespace {
int run(int argc, char** argv) {
  const reduce::LadderProgram program{
      "05_reduce_unroll",
      "Chapter 05: parallel reduction, the whole ladder (03 and 04's rungs, unrolling, shuffles, "
      "16-byte loads, persistent and single-pass kernels) against cub::DeviceReduce::Sum",
      {reduce::divergence_variants(), reduce::interleaved_variants(), reduce::unroll_variants(),
       reduce::beyond_book_variants(), reduce::library_variants()}};
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_unroll", run, argc, argv); }
