// Chapter 04's exercise program: the lesson's interleaved rung and exercise 04.3's
// interleaved_grid_stride, each checked against the CPU sum, then timed. `scripts/course grade` runs it
// to time exercise 04.3 against interleaved in the same process (exercises.json, "perf").
#include "common/errors.hpp"
#include "reduce_interleaved.hpp"
#include "reduce_ladder/program.hpp"

namespace {
int run(int argc, char** argv) {
  const reduce::LadderProgram program{
      "04_reduce_interleaved_exercise",
      "Chapter 04's exercises: interleaved and exercise 04.3's interleaved_grid_stride",
      {reduce::interleaved_variants(), reduce::interleaved_exercise_variants()}};
  return reduce::run_ladder_program(program, argc, argv);
}
}  // namespace

int main(int argc, char** argv) { return course::run_main("reduce_interleaved_exercise", run, argc, argv); }
