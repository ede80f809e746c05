#!/usr/bin/env python3
"""A grade's reports (course_lib/reports.py) from one report: the terminal table, Markdown (cells escaped),
JUnit XML (well formed whatever the output holds, a failure per failed exercise, GPU exercises skipped),
JSON; and the checks that refuse, before any work, a report path that could not be written.

    python3 scripts/tests/test_reports.py [-v]
"""
from __future__ import annotations

import json
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]
from course_lib import reports  # noqa: E402
from course_lib.errors import UsageError  # noqa: E402


def sample_report() -> dict:
    def exercise(id_, kind, points, max_points, status, reason, output=""):
        return {"id": id_, "title": f"Title {id_}", "kind": kind, "gpu": False, "points": points,
                "max_points": max_points, "status": status, "reason": reason, "perf": None, "wall_s": 1.25,
                "tests": [{"name": f"exercise.{id_}", "status": status, "output": output, "seconds": 1.0}]}
    return {
        "schema": "cuda-lessons/grade/v1", "submission": "/s", "commit": "0123456789abcdef", "date": "2026-11-25T20:00:00+00:00",
        "seed": 42, "timeout_s": 120, "gpu": None, "sandbox": "bubblewrap (test)",
        "rules": {"score": "an exercise scores its points when every one of its tests passes, else 0",
                  "perf": "the perf rule"},
        "points": 10, "max_points": 45,
        "timing": {"total_s": 12.5, "prepare_s": 0.5, "configure_s": 2.0, "build_s": 8.0, "exercises_s": 2.0},
        "exercises": [exercise("01.1", "fix", 10, 10, "pass", ""),
                      exercise("01.2", "implement", 0, 15, "fail", "wrong sum | at index 3",
                               "bad byte \x01 and <tag> & more"),
                      exercise("01.3", "optimize", 0, 20, "needs_gpu", "not graded: needs a GPU")],
    }


class FormatTests(unittest.TestCase):
    def test_terminal_table(self):
        text = reports.terminal_table(sample_report())
        lines = text.splitlines()
        self.assertTrue(lines[0].startswith("exercise"))
        self.assertIn("01.2", lines[2])
        self.assertIn("wrong sum | at index 3", lines[2])
        self.assertIn("total 10 / 45", text)
        self.assertIn("perf rule: the perf rule", text)  # an optimize exercise is graded
        self.assertIn("time: 12.5 s wall (prepare 0.5 s, configure 2.0 s, build 8.0 s, exercises 2.0 s)", text)
        self.assertIn("sandbox: bubblewrap (test)", text)

    def test_markdown_escapes_table_cells(self):
        text = reports.markdown_report(sample_report())
        self.assertTrue(text.startswith("# Grade: 10 / 45"))
        self.assertIn("commit 0123456789ab", text)
        self.assertIn("wrong sum \\| at index 3", text)
        self.assertIn("| 01.3 Title 01.3 | 0 / 20 | needs_gpu |", text)

    def test_junit_is_well_formed_and_counts(self):
        root = ET.fromstring(reports.junit_report(sample_report()))
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")), ("3", "1", "1"))
        cases = root.findall(".//testcase")
        self.assertEqual([c.get("classname") for c in cases], ["exercise.01.1", "exercise.01.2", "exercise.01.3"])
        self.assertIsNone(cases[0].find("failure"))
        self.assertEqual(cases[1].find("failure").get("type"), "fail")
        self.assertIsNotNone(cases[2].find("skipped"))
        self.assertIn("bad byte ? and <tag> & more", cases[1].find("system-out").text)

    def test_write_reports_writes_each_asked_for(self):
        with tempfile.TemporaryDirectory(prefix="reports-test-") as tmp:
            json_path, md_path = Path(tmp) / "a/grade.json", Path(tmp) / "grade.md"
            reports.write_reports(sample_report(), str(json_path), None, str(md_path))
            self.assertEqual(json.loads(json_path.read_text())["points"], 10)
            self.assertTrue(md_path.read_text().startswith("# Grade"))
            self.assertEqual(sorted(p.name for p in Path(tmp).rglob("*") if p.is_file()), ["grade.json", "grade.md"])


class OutputPathTests(unittest.TestCase):
    def assert_refused(self, call, phrase: str):
        with self.assertRaises(UsageError) as caught:
            call()
        self.assertIn(phrase, str(caught.exception))

    def test_bad_report_paths_are_refused(self):
        with tempfile.TemporaryDirectory(prefix="reports-test-") as tmp:
            a_file = Path(tmp) / "file"
            a_file.write_text("x")
            self.assert_refused(lambda: reports.check_output_file("--json", ""), "empty file name")
            self.assert_refused(lambda: reports.check_output_file("--json", tmp), "is a folder")
            self.assert_refused(lambda: reports.check_output_file("--json", str(a_file / "under")), "not a folder")
            self.assert_refused(lambda: reports.check_output_file("--json", "/dev/null"), "not a regular file")
            self.assert_refused(lambda: reports.check_output_file("--json", tmp + "/" + "n" * 300), "too long")
            self.assert_refused(lambda: reports.check_output_folder("--out", str(a_file)), "not a folder")
            reports.check_output_file("--json", str(Path(tmp) / "new/sub/grade.json"))  # made at the end: fine
            reports.check_output_file("--json", None)

    def test_two_reports_in_one_file_are_refused(self):
        with tempfile.TemporaryDirectory(prefix="reports-test-") as tmp:
            same = str(Path(tmp) / "r")
            self.assert_refused(lambda: reports.check_distinct_files([("--json", same), ("--junit", None),
                                                                      ("--markdown", same)]),
                                "--json and --markdown name the same file")


if __name__ == "__main__":
    unittest.main()
