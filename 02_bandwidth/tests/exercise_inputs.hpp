// What the chapter's exercise suites share: the grader's seed, and the GPU cases of a CPU-graded exercise.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>

#include "course_test_env.hpp"

namespace bandwidth::exercise_inputs {

/// COURSE_SEED when the grader sets it, else `fallback` (common/testing/course_test_env.hpp).
inline std::uint64_t seed(std::uint64_t fallback) { return course::testing::seed_from_env(fallback); }

/// For the GPU case of a CPU-graded exercise: true when a GPU is usable (REQUIRE_GPU=1 makes a missing
/// one a failure; common/testing/course_test_env.hpp).
inline bool gpu_present_for_cpu_exercise() { return course::testing::gpu_present_for_cpu_exercise("the copies are"); }

}  // namespace bandwidth::exercise_inputs
