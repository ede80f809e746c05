// Grading probe of exercise 00.2 (common/probe.hpp): transpose_naive of the exercise's own
// src/transpose_naive.cu, through its launcher, on matrices from the grader's seed; what it writes is in
// transpose_cases.cuh. The grader also runs it under compute-sanitizer --tool memcheck
// (COURSE_SANITIZER=memcheck), which sees reads outside `in`; the matrices are then the small ones
// (transpose_cases.cuh: every path, partial blocks on both axes included).
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "transpose_cases.cuh"

namespace {

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "00.2", true);
  course::require_device(options.device);  // NoDeviceError (exit 77) without a GPU
  course::probe::Cases cases("00.2", options.seed);
  first_kernel::grading::add_transpose_cases(cases, first_kernel::launch_transpose_naive, options.seed);
  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_00_2", body, argc, argv); }
