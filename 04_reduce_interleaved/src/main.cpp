// Chapter 04 · interleaved: sequential addressing after the two neighbored rungs of chapter 03.
#include "common/errors.hpp"
#include "reduce_divergence.hpp"
#include "reduce_interleaved.hpp"

namespace {
int run(int argc, char** argv) {
  const reduce::LadderProgram program{
      "04_reduce_interleaved",
      "Chapter 04: parallel reduction, interleaved pairs (sequential addressing) after chapter 03's rungs",
      {reduce::divergence_variants(), reduce::interleaved_variants()}};
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_interleaved", run, argc, argv); }
