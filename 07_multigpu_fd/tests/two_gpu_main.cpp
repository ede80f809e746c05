// main() of wave_fd_two_gpu_tests. doctest has no "skipped", and common's test main skips only when
// there is no GPU at all; a test of two GPUs that passed on one would claim what it never checked. So
// with fewer than two usable GPUs this binary runs nothing and exits 77, which ctest reports as skipped
// (SKIP_RETURN_CODE). REQUIRE_GPU=1 still turns "no GPU at all" into a failure, as everywhere.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/device.cuh"
#include "common/errors.hpp"

int main(int argc, char** argv) {
  const int devices = course::usable_device_count();
  const char* require = std::getenv("REQUIRE_GPU");
  if (devices == 0 && require && std::strcmp(require, "1") == 0) {
    std::fprintf(stderr, "FAILED: REQUIRE_GPU=1 but no usable CUDA device\n");
    return course::exit_failure;
  }
  if (devices < 2) {
    std::printf("SKIPPED: %d usable CUDA device(s); these tests need 2\n", devices);
    return course::exit_no_device;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
