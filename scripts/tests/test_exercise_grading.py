#!/usr/bin/env python3
"""One exercise's grade (course_lib/exercise_grading.py) on the fixture course, in process: the probe's verdict
decides, the chapter's tests only add words to a wrong verdict (and never change one), an untouched file is
"not done", and an optimize exercise whose reference runs another exercise's code is not timed while that
one fails.

    python3 scripts/tests/test_exercise_grading.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import shutil
import sys
import threading
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import FixtureCase, edit, tool  # noqa: E402
from course_lib import exercise_grading, grading  # noqa: E402
from course_lib.options import GradeOptions  # noqa: E402
from course_lib.tree import Course  # noqa: E402


class GraderTests(FixtureCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.course = Course(cls.repo)
        cls.handout = cls.tmp / "handout"
        made = tool(cls.repo, "handout", "--out", str(cls.handout))
        assert made.returncode == 0, made.stderr
        # One set of instructor builds for every grade here, as a gradebook shares one.
        cls.instructor = grading.instructor_builds(cls.course, cls.tmp / "instructor-builds", cls.options(["01.1"]))

    @staticmethod
    def options(ids: list[str]) -> GradeOptions:
        return GradeOptions(ids, 77, 120.0, 2, False, None, threading.Lock())

    def submission(self, name: str, base: Path | None = None) -> Path:
        dest = self.tmp / name
        shutil.copytree(base or self.handout, dest, ignore=shutil.ignore_patterns(".git", "build"))
        return dest

    def grade(self, repo: Path, ids: list[str], course: Course | None = None) -> dict:
        report = grading.grade_tree(course or self.course, repo, self.tmp / f"work-{repo.name}", self.options(ids),
                                    instructor=self.instructor)
        return {e["id"]: e for e in report["exercises"]}

    def test_untouched_compares_with_the_handout_form(self):
        exercise, every = self.course.exercises["01.1"], {"01.1", "01.2", "02.1"}
        self.assertTrue(exercise_grading.untouched(self.course, exercise, self.handout, every))
        self.assertFalse(exercise_grading.untouched(self.course, exercise, self.repo, every))
        self.assertFalse(exercise_grading.untouched(self.course, exercise, self.tmp / "nowhere", every))

    def test_a_wrong_verdict_is_explained_by_the_chapters_tests(self):
        repo = self.submission("positive-only")
        edit(repo / "01_sums/src/sums.cpp", "  (void)values;\n  return 0;",
             "  long long s = 0;\n  for (const int v : values) s += square(v);\n  return s;")
        edit(repo / "01_sums/src/sums.cpp", "  (void)v;\n  return 0;", "  return v > 0 ? static_cast<long long>(v) * v : 0;")
        entry = self.grade(repo, ["01.1"])["01.1"]
        self.assertEqual((entry["status"], entry["points"]), ("fail", 0))
        self.assertRegex(entry["reason"], r"^failed: wrong output for the grader's inputs \(seed 77\): case "
                                          r"'sum_of_squares n=257 negative values only'.* \[the chapter's tests say: "
                                          r"exercise\.01\.1: ")
        (probe,) = entry["tests"]
        self.assertEqual((probe["name"], probe["status"]), ("probe_01_1: outputs against the instructor's", "fail"))

    def test_the_chapters_tests_never_change_a_verdict(self):
        # Right on the chapter's test (1001 values) and wrong on the probe's 100003: the probe decides, and the
        # chapter's tests, passing, add no words.
        repo = self.submission("wrong-when-large", self.repo)
        edit(repo / "01_sums/src/sums.cpp", "  long long total_of_squares = 0;",
             "  if (values.size() > 100000) return 0;\n  long long total_of_squares = 0;")
        entry = self.grade(repo, ["01.1"])["01.1"]
        self.assertEqual((entry["status"], entry["points"]), ("fail", 0))
        self.assertIn("case 'sum_of_squares n=100003 values in [-1000, 1000]'", entry["reason"])
        self.assertNotIn("the chapter's tests say", entry["reason"])

    def test_the_untouched_handout_is_not_done(self):
        entries = self.grade(self.submission("untouched"), ["01.1", "01.2", "02.1"])
        self.assertEqual(entries["01.2"]["status"], "needs_gpu")
        self.assertEqual((entries["01.1"]["status"], entries["01.1"]["points"]), ("not_done", 0))
        self.assertTrue(entries["01.1"]["reason"].startswith("not done (01_sums/src/sums.cpp as handed out): "
                                                             "failed: wrong output"), entries["01.1"]["reason"])
        self.assertEqual((entries["02.1"]["status"], entries["02.1"]["points"]), ("not_done", 0),
                         entries["02.1"]["reason"])
        self.assertIn("no faster than the stub", entries["02.1"]["reason"])

    def test_a_required_exercise_that_fails_gates_the_timing(self):
        # 02.1 made to require 01.1 (as 06.3's reference runs 06.2's pipeline): with 01.1 left as handed out,
        # 02.1, solved, is not timed.
        course = Course(self.repo)
        course.exercises["02.1"].meta["perf"] = dict(course.exercises["02.1"].perf, requires=["01.1"])
        repo = self.submission("requires-01.1")
        shutil.copy2(self.repo / "02_scale/src/scale.cpp", repo / "02_scale/src/scale.cpp")
        entry = self.grade(repo, ["02.1"], course)["02.1"]
        self.assertEqual((entry["status"], entry["points"], entry["perf"]), ("fail", 0, None))
        self.assertIn("not timed: the reference runs exercise 01.1's code, so 01.1 must pass first", entry["reason"])
        self.assertEqual([t["name"] for t in entry["tests"]], ["probe_02_1: outputs against the instructor's"])


if __name__ == "__main__":
    unittest.main()
