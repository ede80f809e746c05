// Chapter 03 · divergence: the neighbored tree with and without warp divergence.
#include "common/errors.hpp"
#include "reduce_divergence.hpp"
#include "reduce_ladder/program.hpp"

namespace {
int run(int argc, char** argv) {
  const reduce::LadderProgram program{
      "03_reduce_divergence",
      "Chapter 03: parallel reduction, neighbored pairs with and without warp divergence",
      {reduce::divergence_variants()}};
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_divergence", run, argc, argv); }
