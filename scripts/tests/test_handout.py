#!/usr/bin/env python3
"""Handouts (course_lib/handout.py): on the fixture course, the stubbed files, the stamp and the single
commit, leaks of solution lines found (in files and in the history), markers left behind found, and --out
guarded; on the real course, a partial handout still passes its own checks.

    python3 scripts/tests/test_handout.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import REPO, git, make_fixture, solution_lines, tool  # noqa: E402
from course_lib import handout, tree  # noqa: E402
from course_lib.errors import UsageError  # noqa: E402


class FixtureHandoutTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-handout-test-"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        cls.course = tree.Course(cls.repo)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def make(self, name: str, stubbed: list[str]) -> Path:
        out = self.tmp / name
        handout.prepare_out(out, False, self.repo)
        handout.write_handout(self.course, out, stubbed)
        return out

    def test_a_handout_is_stubbed_stamped_and_one_commit(self):
        out = self.make("all", ["01.1", "01.2", "02.1"])
        text = (out / "01_sums/src/sums.cpp").read_text()
        for line in solution_lines(self.repo / "01_sums/src/sums.cpp"):
            self.assertNotIn(line, " ".join(text.split()))
        self.assertFalse((out / "01_sums/instructor").exists())
        self.assertFalse((out / "scripts/tests").exists())
        stamp = json.loads((out / "scripts/course_lib/handout.json").read_text())
        self.assertEqual(stamp["exercises"], ["01.1", "01.2", "02.1"])
        self.assertTrue(handout.is_made_handout(out))
        self.assertEqual(git(out, "rev-list", "--count", "HEAD").strip(), "1")
        self.assertEqual(handout.marker_remnants(out, self.course.handout_files), [])
        secrets = handout.secret_lines(self.course, {"01.1", "01.2", "02.1"})
        self.assertTrue(secrets)
        self.assertEqual(handout.find_leaks(out, secrets), [])

    def test_leaks_and_markers_are_found(self):
        out = self.make("leaky", ["01.1"])
        secrets = handout.secret_lines(self.course, {"01.1"})
        secret = next(iter(secrets))
        (out / "NOTES.md").write_text(f"the answer:\n    {secret}\n")
        problems = handout.find_leaks(out, secrets)
        self.assertTrue(any("leaks into the handout at NOTES.md:2" in p for p in problems), problems)
        git(out, "add", "NOTES.md")
        git(out, "commit", "-q", "-m", "second")
        self.assertTrue(any("2 commits" in p for p in handout.find_leaks(out, secrets)))
        (out / "01_sums/src/sums.cpp").write_text("// BEGIN SOLUTION 01.1\n")
        remnants = handout.marker_remnants(out, ["01_sums/src/sums.cpp"])
        self.assertEqual(len(remnants), 1)
        self.assertIn("01_sums/src/sums.cpp:1: marker left in the handout", remnants[0])

    def test_out_is_guarded(self):
        with self.assertRaises(UsageError):
            handout.prepare_out(self.repo / "inside", False, self.repo)  # inside the instructor's tree
        busy = self.tmp / "busy"
        busy.mkdir()
        (busy / "thesis.tex").write_text("x")
        with self.assertRaises(UsageError):
            handout.prepare_out(busy, False, self.repo)
        with self.assertRaises(UsageError) as caught:
            handout.prepare_out(busy, True, self.repo)  # --force empties only a handout this tool made
        self.assertIn("not a handout this tool made", str(caught.exception))
        self.assertTrue((busy / "thesis.tex").exists())
        out = self.make("again", ["01.1"])
        handout.prepare_out(out, True, self.repo)
        self.assertEqual(list(out.iterdir()), [])


class PartialHandoutTests(unittest.TestCase):
    """A handout of some exercises (exercises.json then lists only those, instructor/ is gone) still passes
    its own docs test: the figures scripts may not look up an exercise or answer key it lacks (05's
    figures raised StopIteration in a handout of 05.2, 06.2 and 06.3 on the GPU machine)."""

    def test_figures_check_passes_in_a_handout_of_one_exercise_per_chapter_left_out(self):
        with tempfile.TemporaryDirectory(prefix="partial-handout-") as tmp:
            out = Path(tmp) / "handout"
            result = tool(REPO, "handout", "--out", str(out), "--exercises", "01.1")
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            check = subprocess.run([sys.executable, "scripts/make_figures.py", "--check"], cwd=out,
                                   capture_output=True, text=True, timeout=300)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
            self.assertIn("tables match results", check.stdout)


if __name__ == "__main__":
    unittest.main()
