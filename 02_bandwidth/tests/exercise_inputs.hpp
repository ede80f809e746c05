// What the chapter's exercise suites share: the grader's seed, and the GPU cases of a CPU-graded exercise.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/device.cuh"

namespace bandwidth::exercise_inputs {

/// COURSE_SEED when the grader sets it (a fresh one per grading run), else `fallback`, so that a plain
/// run is reproducible.
inline std::uint64_t seed(std::uint64_t fallback) {
  const char* text = std::getenv("COURSE_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? value : fallback;
}

/// For the GPU case of a CPU-graded exercise: true when a GPU is usable. Without one the case checks
/// nothing and says so (the exercise's CPU cases grade it), unless REQUIRE_GPU=1, which makes the missing
/// GPU a failure, as for every GPU test.
inline bool gpu_present_for_cpu_exercise() {
  if (course::usable_device_count() > 0) return true;
  const char* require = std::getenv("REQUIRE_GPU");
  if (require != nullptr && std::strcmp(require, "1") == 0) {
    FAIL("REQUIRE_GPU=1 but no usable CUDA device");
    return false;
  }
  MESSAGE("no usable GPU: the copies are not run here (the CPU cases grade this exercise)");
  return false;
}

}  // namespace bandwidth::exercise_inputs
