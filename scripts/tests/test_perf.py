#!/usr/bin/env python3
"""The optimize exercises' timing (course_lib/perf.py) on the fixture course: an exercise timed only once
the exercises it requires pass.

    python3 scripts/tests/test_perf.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import json
import shutil
import sys
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import FixtureCase, edit, git, make_fixture, tool  # noqa: E402
from course_lib import perf, scoring  # noqa: E402
from course_lib.tree import Exercise  # noqa: E402



class GradePerfUnitTests(unittest.TestCase):
    """grade_perf without a build: what it records, and no points when the stub could not be built."""

    def test_no_stub_build_is_an_error_and_no_points(self):
        exercise = Exercise("02.1", "02_scale", {"perf": {"program": "scale_bench", "args": "--n 2000000",
                                                           "metric": "time_ms", "reference_variant": "reference"},
                                                 "points": 5})
        for stub, why in ((None, "no stub build"), ("configure failed: x", "configure failed: x")):
            entry = {"points": 5, "status": "", "reason": "", "perf": None}
            perf.grade_perf(exercise, entry, build=None, env={}, options=None, stub=stub)
            self.assertEqual((entry["status"], entry["points"]), ("error", 0))
            self.assertIn(f"the untouched stub could not be built to time against: {why}", entry["reason"])
            self.assertEqual(entry["perf"], {"program": "scale_bench", "args": ["--n", "2000000"],
                                             "metric": "time_ms", "rule": scoring.RULE})
        self.assertEqual(perf.PERF_RULE, scoring.RULE)

class PerfRequiresTests(FixtureCase):
    """perf.requires: an optimize exercise whose reference runs another exercise's code (06.3 is timed
    against the pipeline 06.2 fixes) is timed only once that exercise passes."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        edit(cls.repo / "02_scale/exercises.json", '"reference_variant": "reference"',
             '"reference_variant": "reference", "requires": ["01.1"]')
        git(cls.repo, "commit", "-q", "-am", "02.1 is timed only once 01.1 passes")

    def grade(self, repo: Path) -> dict:
        report = self.tmp / f"{repo.name}.json"
        result = tool(self.repo, "grade", "--repo", str(repo), "--json", str(report), "--exercises", "02.1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        (entry,) = json.loads(report.read_text())["exercises"]
        return entry

    def test_timed_when_the_required_exercise_passes_and_not_before(self):
        entry = self.grade(self.repo)
        # Timed: full points, or partial on a loaded machine (the CPU timing is the fixture's, not ours).
        self.assertIn(entry["status"], ("pass", "partial"), entry["reason"])
        self.assertIsNotNone(entry["perf"])
        self.assertTrue(entry["reason"].startswith("perf: "), entry["reason"])
        broken = self.tmp / "01.1-broken"
        shutil.copytree(self.repo, broken, ignore=shutil.ignore_patterns(".git", "build"))
        edit(broken / "01_sums/src/sums.cpp", "total_of_squares += square(v);", "total_of_squares += v;")
        entry = self.grade(broken)
        self.assertEqual((entry["status"], entry["points"], entry["perf"]), ("fail", 0, None), entry["reason"])
        self.assertTrue(entry["reason"].startswith("not timed: the reference runs exercise 01.1's code, so 01.1 "
                                                   "must pass first (exercise.01.1: fail"), entry["reason"])

    def test_a_required_exercise_graded_in_the_same_run_keeps_its_verdict(self):
        # Graded together, 02.1 goes by 01.1's entry of this grade (its tests are not run a second time,
        # which for a timing test could give a second, different answer); the reason quotes that entry.
        broken = self.tmp / "01.1-broken-both"
        shutil.copytree(self.repo, broken, ignore=shutil.ignore_patterns(".git", "build"))
        edit(broken / "01_sums/src/sums.cpp", "total_of_squares += square(v);", "total_of_squares += v;")
        report = self.tmp / "both.json"
        result = tool(self.repo, "grade", "--repo", str(broken), "--json", str(report), "--exercises", "01.1,02.1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        entries = {e["id"]: e for e in json.loads(report.read_text())["exercises"]}
        self.assertEqual(entries["01.1"]["status"], "fail", entries["01.1"]["reason"])
        entry = entries["02.1"]
        self.assertEqual((entry["status"], entry["points"], entry["perf"]), ("fail", 0, None), entry["reason"])
        self.assertTrue(entry["reason"].startswith("not timed: the reference runs exercise 01.1's code, so 01.1 "
                                                   "must pass first (it scored fail in this grade: failed:"),
                        entry["reason"])

    def test_handout_check_times_it_with_the_required_exercise_solved(self):
        # Both stubbed, the grader does not time 02.1 (its reference runs 01.1's stub); --check says so, and
        # times 02.1's stub on a side where 01.1 keeps its solution, as after a student has done 01.1.
        result = tool(self.repo, "handout", "--check")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("exercise 02.1: with 01.1 stubbed too, not timed (not timed: the reference runs exercise "
                      "01.1's code", result.stdout)
        self.assertTrue("exercise 02.1: stub correct but slow" in result.stdout
                        or "exercise 02.1: the solution scored" in result.stdout, result.stdout)
        self.assertIn("exercise 01.1: fails on its stub", result.stdout)

    def test_requires_must_name_other_exercises(self):
        for value, phrase in (('["09.9"]', "perf.requires names 09.9, which is not an exercise"),
                              ('["02.1"]', "perf.requires must not name the exercise itself"),
                              ('"01.1"', "perf.requires must be a non-empty list of exercise ids")):
            repo = make_fixture(self.tmp / f"requires-{len(value)}-{value.count('9')}")
            edit(repo / "02_scale/exercises.json", '"reference_variant": "reference"',
                 f'"reference_variant": "reference", "requires": {value}')
            self.assert_usage_error(tool(repo, "list"), phrase)


if __name__ == "__main__":
    unittest.main()
