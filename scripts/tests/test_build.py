#!/usr/bin/env python3
"""Building and running tests (course_lib/build.py): how a ctest run becomes a status and a one-line
reason, and the build environment and the CourseExercises.cmake pieces on the fixture course.

    python3 scripts/tests/test_build.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import FixtureCase, tool  # noqa: E402
from course_lib import build  # noqa: E402


class ClassifyTests(unittest.TestCase):
    """How a ctest -V run becomes a status and a one-line reason (the outputs as ctest prints them)."""

    @staticmethod
    def run_of(name: str, verdict: str, *lines: str) -> str:
        own = "\n".join(f"1: {l}" for l in lines)
        return f"test 1\n    Start 1: {name}\n\n1: Test command: /b/t\n{own}\n1/1 Test #1: {name} " \
               f"..........{verdict}   0.02 sec\n"

    def classify(self, raw: str, name: str = "exercise.03.1"):
        return build.classify(name, raw, 0.02, 60)

    def test_segfault(self):
        r = self.classify(self.run_of("exercise.03.1", "***Exception: SegFault"))
        self.assertEqual((r.status, r.reason), ("crash", "crashed: SegFault"))

    def test_doctest_catches_the_signal(self):
        r = self.classify(self.run_of("exercise.03.1", "***Failed", "TEST CASE:  sums",
                                      "t.cu:9: FATAL ERROR: test case CRASHED: SIGSEGV - Segmentation violation signal"))
        self.assertEqual(r.status, "crash")
        self.assertIn("SIGSEGV", r.reason)

    def test_illegal_address(self):
        r = self.classify(self.run_of("exercise.03.1", "***Failed", "TEST CASE:  sums",
                                      "CUDA error: an illegal memory access was encountered (t.cu:40)"))
        self.assertEqual(r.status, "crash")
        self.assertIn("illegal memory access", r.reason)

    def test_sanitizer_report(self):
        r = self.classify(self.run_of("exercise.03.1.racecheck", "***Failed",
                                      "========= COMPUTE-SANITIZER",
                                      "========= Error: Race reported between Write access at reduce+0x90",
                                      "=========     and Read access at reduce+0x120 [16 hazards]",
                                      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)",
                                      "========= ERROR SUMMARY: 1 error"), "exercise.03.1.racecheck")
        self.assertEqual(r.status, "sanitizer")
        self.assertEqual(r.reason, "compute-sanitizer reported 1 error(s): Error: Race reported between "
                                   "Write access at reduce+0x90")

    def test_missing_sanitizer_is_an_error_not_a_pass(self):
        r = self.classify(self.run_of("exercise.03.1.racecheck", "***Failed  Error regular expression found in output.",
                                      "FAILED: compute-sanitizer not found: exercise 03.1 is graded by racecheck"),
                          "exercise.03.1.racecheck")
        self.assertEqual(r.status, "error")
        self.assertTrue(r.reason.startswith("compute-sanitizer not found"))

    def test_a_pass_needs_doctest_to_have_run_a_case(self):
        r = self.classify(self.run_of("exercise.03.1", " Passed", "hello"))
        self.assertEqual(r.status, "fail")
        ok = self.run_of("exercise.03.1", " Passed", "[doctest] test cases: 1 | 1 passed | 0 failed | 4 skipped")
        self.assertEqual(self.classify(ok).status, "pass")

    def test_output_is_truncated(self):
        r = self.classify(self.run_of("exercise.03.1", "***Failed", *["x" * 100] * 200))
        self.assertLessEqual(len(r.output), build.OUTPUT_KEEP + 40)
        self.assertTrue(r.output.startswith("[... output truncated ...]"))


class BuildTests(FixtureCase):
    """The CMake side, built directly: chapter runs leave exercise suites out; exercise tests fail on
    stubs; a sanitizer exercise never silently vanishes."""

    def test_handout_build(self):
        out = self.tmp / "handout"
        self.assertEqual(tool(self.repo, "handout", "--out", str(out)).returncode, 0)
        env = build.build_env(self.tmp)
        workflow = subprocess.run(["cmake", "--workflow", "--preset", "test"], cwd=out, env=env,
                                  capture_output=True, text=True)
        self.assertEqual(workflow.returncode, 0, workflow.stdout + workflow.stderr)
        self.assertIn("sums_tests.cpu", workflow.stdout)
        self.assertNotIn("exercise.01.1", workflow.stdout)
        exercise = subprocess.run(["ctest", "--test-dir", "build", "-R", r"^exercise\.01\.1$", "-V"], cwd=out,
                                  env=env, capture_output=True, text=True)
        self.assertNotEqual(exercise.returncode, 0)
        self.assertIn('-ts=exercise 01.1', exercise.stdout)
        gpu_exercise = subprocess.run(["ctest", "--test-dir", "build", "-R", r"^exercise\.01\.2$"], cwd=out,
                                      env=env, capture_output=True, text=True)
        self.assertIn("Skipped", gpu_exercise.stdout)   # --gpu without a GPU: exit 77
        labels = subprocess.run(["ctest", "--test-dir", "build", "-N", "-L", "exercise.01.2"], cwd=out, env=env,
                                capture_output=True, text=True).stdout
        self.assertIn("exercise.01.2.racecheck", labels)
        sanitizer = subprocess.run(["ctest", "--test-dir", "build", "-R", r"racecheck", "--output-on-failure"],
                                   cwd=out, env=env, capture_output=True, text=True)
        if shutil.which("compute-sanitizer") or Path("/usr/local/cuda/bin/compute-sanitizer").exists():
            # No GPU for the fixture's CPU-only test binary: skipped; where a GPU is present,
            # compute-sanitizer itself refuses a program that never touches CUDA.
            self.assertTrue("Skipped" in sanitizer.stdout or "before first instrumented API call" in sanitizer.stdout,
                            sanitizer.stdout)
        else:
            self.assertNotEqual(sanitizer.returncode, 0)
            self.assertIn("compute-sanitizer not found", sanitizer.stdout)

    def test_course_exercises_builds_stubs_in_the_instructor_tree(self):
        stub_build = self.tmp / "stub-build"
        env = build.build_env(self.tmp)
        bad = subprocess.run(["cmake", "-S", str(self.repo), "-B", str(stub_build), "-G", "Ninja",
                              "-DCOURSE_EXERCISES=01.1;09.9"], env=env, capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("unknown exercise '09.9' (declared: 01.1, 01.2, 02.1)", " ".join(bad.stderr.split()))
        configure = subprocess.run(["cmake", "-S", str(self.repo), "-B", str(stub_build), "-G", "Ninja",
                                    "-DCOURSE_EXERCISES=01.1,02.1"], env=env, capture_output=True, text=True)
        self.assertEqual(configure.returncode, 0, configure.stdout + configure.stderr)
        subprocess.run(["cmake", "--build", str(stub_build)], env=env, check=True, capture_output=True)
        tests = subprocess.run(["ctest", "--test-dir", str(stub_build), "-L", "exercise", "-LE", "gpu"], env=env,
                               capture_output=True, text=True)
        self.assertRegex(tests.stdout, r"exercise\.01\.1 \.+\*\*\*Failed")
        self.assertRegex(tests.stdout, r"exercise\.02\.1 \.+ +Passed")   # optimize: slow, not wrong


if __name__ == "__main__":
    unittest.main()
