// Grading probe of exercise 04.3 (issue 30; common/include/common/probe.hpp): interleaved_grid_stride, the
// rung of the student's src/interleaved_grid_stride.cu, linked exactly as the exercise's tests link it.
//
// Verdict (--seed S --out FILE): the rung's exact int64 sums on the tests' awkward sizes (1, 2, 31, 33,
// block ± 1, 1000003, 2^24 + 3 …) and 8 sizes drawn from the seed, every block of 64 … 1024 threads, starts
// 0 … 3 ints past a 16-byte boundary, each run twice, result and partials poisoned first; and its float sums
// (starts +0, +3) within twice the tests' rounding bound. Each value is the student's sum itself.
//
// Timed (--time exercise|reference|none --reps R): the perf rule's run, `--n 2^24 --block 512`: exercise =
// interleaved_grid_stride, reference = interleaved (exercises.json "reference_variant"), none = everything
// but the sum. Each repetition restores the previous repetition's places and sets 64 new ones chosen from
// (nonce, rep) (one small kernel), runs the variant, synchronises and copies the sum back: the check is the
// sum itself, exact (every perturbed place lands in it). Before the warm-up, the exercise's side records what
// one sum of the timed input enqueues (grading::recorded_rung: the reference's kernels and every other rung's
// named as theirs), carried as `ran` in the done records for the grader to compare with the answer's.
#include <span>
#include <string>
#include <vector>

#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "reduce_ladder/probe_cases.cuh"
#include "reduce_interleaved.hpp"

namespace {

using namespace reduce;

constexpr std::size_t timed_n = std::size_t{1} << 24;  // exercises.json "perf": --n 2^24
constexpr unsigned timed_block = 512;                  // --block 512

void verdict(const course::probe::Options& options, int sm_count) {
  course::probe::Cases cases("04.3", options.seed);
  const std::vector<std::size_t> drawn = grading::drawn_sizes(options.seed, 8, grading::big);
  std::vector<std::vector<std::size_t>> int_sizes, float_sizes;
  for (const unsigned block : grading::all_blocks) {
    int_sizes.push_back(grading::awkward_sizes(block, true));
    int_sizes.back().insert(int_sizes.back().end(), drawn.begin(), drawn.end());
    float_sizes.push_back(grading::awkward_sizes(block, true));
  }
  const std::span<const Variant> rung = interleaved_exercise_variants();
  grading::add_int_sums(cases, rung, grading::all_blocks, int_sizes, course::probe::mix(options.seed, 1), sm_count);
  grading::add_float_sums(cases, rung, grading::all_blocks, float_sizes, course::probe::mix(options.seed, 2), sm_count);
  cases.write(options.out);
}

void timed(const course::probe::Options& options, int sm_count) {
  const std::span<const Variant> tables[] = {interleaved_variants(), interleaved_exercise_variants()};
  grading::run_timed_sum(options, interleaved_exercise_variants()[0], interleaved_variants()[0], tables, timed_n,
                         timed_block, sm_count);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "04.3", true);
  const course::DeviceInfo device = course::require_device(options.device);
  if (options.timed())
    timed(options, device.sm_count);
  else
    verdict(options, device.sm_count);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_04_3", body, argc, argv); }
