// The main() of every test binary. One binary per chapter, registered twice with ctest:
//   <binary>        runs every test case outside the doctest suite "gpu" (label cpu);
//   <binary> --gpu  runs the suite "gpu" (label gpu). Without a usable GPU it prints one line and exits
//                   77, which ctest reports as skipped; with REQUIRE_GPU=1 in the environment a missing
//                   GPU is a failure instead (exit 1), so a GPU machine cannot pass by skipping.
//   <binary> --two-gpus  runs the suite "two gpus" (course_add_tests(... TWO_GPUS)): with fewer than two
//                   usable GPUs it exits 77 too (skipped), since a case that needs two GPUs and returned
//                   early on one would be reported as passed for what it never checked.
// Exercise suites ("exercise NN.k") run only when named (-ts="exercise 03.1", the ctest exercise.03.1),
// so that a handout's stubs fail their exercise tests without failing the chapter's own runs.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef COURSE_CPU_ONLY_TESTS
#include "common/device.cuh"
#endif
#include "common/errors.hpp"

int main(int argc, char** argv) {
  bool gpu_suite = false;
  bool two_gpu_suite = false;
  bool suite_named = false;  // the caller chose the suites: no default filter may widen that choice
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--gpu") == 0) gpu_suite = true;
    else if (std::strcmp(argv[i], "--two-gpus") == 0) gpu_suite = two_gpu_suite = true;
    else args.push_back(argv[i]);
    if (std::strncmp(argv[i], "-ts=", 4) == 0 || std::strncmp(argv[i], "--test-suite=", 13) == 0)
      suite_named = true;
  }
#ifdef COURSE_CPU_ONLY_TESTS
  const int devices = 0;  // a CPU-only chapter has no GPU suite to run
#else
  const int devices = course::usable_device_count();
#endif
  if (gpu_suite && devices == 0) {
    const char* require = std::getenv("REQUIRE_GPU");
    if (require && std::strcmp(require, "1") == 0) {
      std::fprintf(stderr, "FAILED: REQUIRE_GPU=1 but no usable CUDA device\n");
      return course::exit_failure;
    }
    std::printf("SKIPPED: no usable CUDA device (set REQUIRE_GPU=1 to make this a failure)\n");
    return course::exit_no_device;
  }
  if (two_gpu_suite && devices < 2) {
    std::printf("SKIPPED: %d usable CUDA device(s); these tests need 2\n", devices);
    return course::exit_no_device;
  }
  doctest::Context context;
  if (!suite_named) {
    if (two_gpu_suite) context.addFilter("test-suite", "two gpus");
    else if (gpu_suite) context.addFilter("test-suite", "gpu");
    else context.addFilter("test-suite-exclude", "gpu");
    context.addFilter("test-suite-exclude", "exercise*");
    if (!two_gpu_suite) context.addFilter("test-suite-exclude", "two gpus");
  }
  context.applyCommandLine(static_cast<int>(args.size()), args.data());
  const int rc = context.run();
  if (context.shouldExit()) return rc;
  return rc;
}
