#!/usr/bin/env python3
"""The course as the kit sees it (course_lib/tree.py), on the fixture course: its exercises, regions and
handout files; the instructor-only manifest's patterns; every metadata rule of exercises.json refused with
one line naming the field.

    python3 scripts/tests/test_tree.py [-v]
"""
from __future__ import annotations

import copy
import json
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import FIXTURE, make_fixture  # noqa: E402
from course_lib import tree  # noqa: E402
from course_lib.errors import ToolError, UsageError  # noqa: E402


class CourseTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-tree-test-"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        cls.course = tree.Course(cls.repo)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_exercises_and_regions(self):
        self.assertEqual(list(self.course.exercises), ["01.1", "01.2", "02.1"])
        e = self.course.exercises["01.1"]
        self.assertEqual((e.chapter, e.kind, e.points, e.gpu), ("01_sums", "implement", 4, False))
        self.assertEqual(e.files, ["01_sums/src/sums.cpp"])
        regions = self.course.regions["01_sums/src/sums.cpp"]
        self.assertEqual(sorted({r.exercise for r in regions}), ["01.1", "01.2"])
        self.assertFalse(self.course.is_handout)

    def test_handout_files_leave_out_instructor_only_material(self):
        self.assertIn("scripts/tests/", self.course.patterns)
        self.assertTrue(any("/instructor/" in f for f in self.course.files))
        self.assertFalse(any("/instructor/" in f for f in self.course.handout_files))
        self.assertIn("scripts/course", self.course.handout_files)

    def test_not_a_git_tree_is_a_tool_error(self):
        with tempfile.TemporaryDirectory(prefix="course-tree-test-") as tmp:
            with self.assertRaises(ToolError):
                tree.Course(Path(tmp))

    def test_bad_metadata_is_a_usage_error_naming_the_file(self):
        with tempfile.TemporaryDirectory(prefix="course-tree-test-") as tmp:
            repo = make_fixture(Path(tmp) / "bad")
            (repo / "02_scale/exercises.json").write_text("[{]")
            with self.assertRaises(UsageError) as caught:
                tree.Course(repo)
            self.assertIn("02_scale/exercises.json: not valid JSON", str(caught.exception))


class ManifestTests(unittest.TestCase):
    def test_patterns(self):
        patterns = ["docs/instructors.md", ".ci/", "results/*/grading/", "[0-9][0-9]_*/instructor/"]
        only = lambda p: tree.instructor_only(p, patterns)  # noqa: E731
        self.assertTrue(only("docs/instructors.md"))
        self.assertFalse(only("docs/instructors.md.bak"))
        self.assertTrue(only(".ci/run"))
        self.assertTrue(only("results/h100/grading/key.json"))
        self.assertFalse(only("results/h100/03_reduction.json"))
        self.assertTrue(only("03_reduction/instructor/wrong/03.1-x.cu"))
        self.assertFalse(only("03_reduction/src/instructor.cu"))

    def test_sort_key(self):
        self.assertEqual(sorted(["10.1", "02.10", "02.9"], key=tree.exercise_sort_key), ["02.9", "02.10", "10.1"])


class MetadataTests(unittest.TestCase):
    GOOD = json.loads((FIXTURE / "02_scale/exercises.json").read_text())[0]

    def problems(self, **changes) -> list[str]:
        entry = copy.deepcopy(self.GOOD)
        for key, value in changes.items():
            if value is KeyError:
                del entry[key]
            else:
                entry[key] = value
        return tree.validate_entry(entry, "02_scale", FIXTURE)

    def test_the_fixture_entry_is_valid(self):
        self.assertEqual(self.problems(), [])

    def test_each_rule(self):
        perf = dict(self.GOOD["perf"])
        cases = [
            ({"hint": KeyError}, "missing keys: hint"),
            ({"colour": "red"}, "unknown keys: colour"),
            ({"id": "2.1"}, "is not NN.k"),
            ({"id": "03.1"}, "does not belong to chapter folder 02_scale"),
            ({"title": " "}, "title must be a non-empty string"),
            ({"kind": "guess"}, "kind must be one of implement, fix, optimize"),
            ({"points": True}, "points must be a positive integer"),
            ({"gpu": "no"}, "gpu must be true or false"),
            ({"difficulty": 6}, "difficulty must be an integer 1-5"),
            ({"minutes": 0}, "minutes must be a positive integer"),
            ({"tests": []}, "tests must be a non-empty list"),
            ({"files": ["src/missing.cpp"]}, "files: 02_scale/src/missing.cpp does not exist"),
            ({"sanitizer": "valgrind"}, "sanitizer must be null or one of"),
            ({"sanitizer": "racecheck"}, "needs a GPU"),
            ({"sanitizer": "racecheck", "gpu": True}, "tests must include exercise.02.1.racecheck"),
            ({"perf": None}, "an optimize exercise needs perf"),
            ({"kind": "fix"}, "perf is only for kind optimize"),
            ({"perf": [1]}, "perf must be null or an object"),
            ({"perf": {k: v for k, v in perf.items() if k != "reps"}}, "perf is missing reps"),
            ({"perf": dict(perf, speed=1)}, "perf has unknown keys speed"),
            ({"perf": dict(perf, requires=["02.1"])}, "must not name the exercise itself"),
            ({"perf": dict(perf, requires="01.1")}, "perf.requires must be a non-empty list"),
            ({"perf": dict(perf, reps=0)}, "perf.reps must be an integer in 1..100000"),
            ({"perf": dict(perf, warmup="2")}, "perf.warmup must be an integer in 0..1000"),
            # The old schema (a timing program the student's process ran) is refused, not half-read.
            ({"perf": dict(perf, program="scale_bench")}, "perf has unknown keys program"),
            # Own work (issue 40): names for fix/implement exercises, the task's forbidden techniques for any.
            ({"forbid": ["scale_reference"]}, "an optimize exercise lists the names it refuses in perf.forbid"),
            ({"forbid": ["not a name"], "kind": "fix", "perf": None}, "forbid must be a non-empty list"),
            ({"techniques": []}, "techniques must be a non-empty list"),
            ({"techniques": [{"pattern": "omp critical"}]}, "techniques: each must be"),
            ({"techniques": [{"pattern": "(", "what": "x"}]}, "is not a regular expression"),
        ]
        for changes, phrase in cases:
            problems = self.problems(**changes)
            self.assertTrue(any(phrase in p for p in problems), f"{changes}: {problems}")

    def test_own_work_fields_are_optional_and_valid_when_well_formed(self):
        self.assertEqual(self.problems(techniques=[{"pattern": r"\bomp\s+critical\b", "what": "a critical section"}]), [])
        self.assertEqual(self.problems(kind="implement", perf=None, forbid=["scale_reference", "std_*"]), [])

    def test_not_an_object(self):
        self.assertEqual(tree.validate_entry([], "02_scale", FIXTURE), ["must be a JSON object"])


if __name__ == "__main__":
    unittest.main()
