// Chapter 03's exercise program: the lesson's two rungs and exercise 03.3's neighbored_less_x2, each
// checked against the CPU sum, then timed. `scripts/course grade` runs it to time exercise 03.3
// against neighbored_less in the same process (exercises.json, "perf").
#include "common/errors.hpp"
#include "reduce_divergence.hpp"
#include "reduce_ladder/program.hpp"

namespace {
int run(int argc, char** argv) {
  const reduce::LadderProgram program{
      "03_reduce_divergence_exercise",
      "Chapter 03's exercises: neighbored, neighbored_less and exercise 03.3's neighbored_less_x2",
      {reduce::divergence_variants(), reduce::divergence_exercise_variants()}};
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_divergence_exercise", run, argc, argv); }
