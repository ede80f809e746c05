#!/usr/bin/env python3
"""`handout --check` (course_lib/handout_check.py) on the fixture course: a sound handout passes, and each
kind of unsound one (a stub that passes, a solution that fails, a leak) is reported.

    python3 scripts/tests/test_handout_check.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import sys
import contextlib
import io
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import FixtureCase, edit, git, make_fixture, tool  # noqa: E402
from course_lib import handout_check  # noqa: E402



class CheckTallyTests(unittest.TestCase):
    def test_only_bad_counts_as_a_violation(self):
        check = handout_check.Check()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            check.ok("fine")
            check.note("slow machine")
            check.bad("a stub passes")
        self.assertEqual(check.violations, 1)
        self.assertEqual([line.split("]")[0] + "]" for line in out.getvalue().splitlines()],
                         ["[ok  ]", "[note]", "[FAIL]"])

class CheckTests(FixtureCase):
    def test_check_passes_on_a_good_course(self):
        result = tool(self.repo, "handout", "--check")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # Both sides graded by the grader itself: the key full points, the untouched handout none.
        self.assertIn("exercise 01.1: the answer key scores 4/4", result.stdout)
        self.assertIn("exercise 01.1: the untouched handout scores 0 (", result.stdout)
        self.assertIn("exercise 02.1: the untouched handout scores 0 (", result.stdout)
        # The fixture's optimize exercise is timed on this CPU: on a loaded machine its key can score 4/5,
        # which --check notes as timing noise. Either is a pass.
        self.assertTrue("exercise 02.1: the answer key scores 5/5" in result.stdout
                        or "exercise 02.1: the answer key scored" in result.stdout
                        and "timing noise on a busy machine?" in result.stdout, result.stdout)
        # An optimize stub is right but slow: its tests pass in the handout, and that is no violation.
        self.assertIn("exercise 02.1: its tests pass in the handout (the stub is right but slow)", result.stdout)
        self.assertIn("exercise 01.2: not checkable without a GPU", result.stdout)
        self.assertIn("PASSED", result.stdout)

    def test_check_fails_on_a_right_stub_a_leak_and_an_empty_suite(self):
        repo = make_fixture(self.tmp / "broken-course")
        edit(repo / "01_sums/src/sums.cpp", "  (void)values;\n  return 0;",
             "  long long s = 0;\n  for (const int v : values) s += static_cast<long long>(v) * v;\n  return s;")
        edit(repo / "01_sums/src/sums.cpp", "  (void)v;\n  return 0;", "  return static_cast<long long>(v) * v;")
        (repo / "01_sums/README.md").write_text("The answer:\n\n    long long total_of_squares = 0;\n")
        edit(repo / "02_scale/tests/test_scale.cpp", 'TEST_SUITE("exercise 02.1")', 'TEST_SUITE("exercise 2.1")')
        git(repo, "add", "-A")
        result = tool(repo, "handout", "--check")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("exercise 01.1: the untouched handout scores 4/4", result.stdout)
        self.assertIn("exercise 01.1: its tests (exercise.01.1) pass in the handout", result.stdout)
        self.assertIn("solution line leaks into the handout at 01_sums/README.md:3", result.stdout)
        self.assertIn("exercise.02.1 does not pass on the answer key: exercise.02.1 ran no test case", result.stdout)
        self.assertIn("FAILED", result.stdout)


if __name__ == "__main__":
    unittest.main()
