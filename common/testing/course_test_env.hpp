/// \file course_test_env.hpp
/// \brief What the tests of every chapter read from their environment: the grader's seed
/// (COURSE_SEED), the sanitizer a test runs under (COURSE_SANITIZER), and whether a GPU is there for
/// the GPU case of an exercise graded on the CPU (REQUIRE_GPU=1 turns a missing GPU into a failure).
/// Header-only, for test binaries (it uses doctest): course::test_main and course::test_main_cpu put
/// this folder on their include path. gpu_present_for_cpu_exercise needs course::common (the device
/// query), which every binary with GPU tests links; a CPU-only test binary may use the rest.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/device.cuh"

namespace course::testing {

/// The seed of an exercise's inputs: COURSE_SEED when the grader sets it (a fresh one per grading run),
/// else `fallback`, so that a plain run is reproducible. A value that is not a whole decimal number is
/// ignored (the fallback is used), never half-read.
inline std::uint64_t seed_from_env(std::uint64_t fallback) {
  const char* text = std::getenv("COURSE_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? seed : fallback;
}

/// True when the case runs under compute-sanitizer (an exercise's sanitizer test sets
/// COURSE_SANITIZER): a case may then keep its launches small, since a racing kernel is reported on
/// every block and the tool's cost grows with each hazard it records.
inline bool under_sanitizer() {
  const char* tool = std::getenv("COURSE_SANITIZER");
  return tool != nullptr && *tool != '\0';
}

/// For the GPU case of an exercise graded by its CPU cases: true when a GPU is usable. Without one the
/// case checks nothing and says so (`skipped` names what is not checked), unless REQUIRE_GPU=1, which
/// makes the missing GPU a failure, as for every GPU test.
inline bool gpu_present_for_cpu_exercise(const char* skipped) {
  if (course::usable_device_count() > 0) return true;
  const char* require = std::getenv("REQUIRE_GPU");
  if (require != nullptr && std::strcmp(require, "1") == 0) {
    FAIL("REQUIRE_GPU=1 but no usable CUDA device");
    return false;
  }
  const std::string message = std::string("no usable GPU: ") + skipped + " not checked here (the CPU cases grade this exercise)";
  MESSAGE(message);
  return false;
}

}  // namespace course::testing
