#!/usr/bin/env python3
"""Tests of scripts/course_lib/probe_check.py (issue 30): a probe's raw outputs judged against the instructor
build's, with the instructor's tolerances only; what the student's file says about tolerance, names or
verdicts counts for nothing.

    python3 scripts/tests/test_probe_check.py [-v]
"""
from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from course_lib import probe_check  # noqa: E402


def cases(*entries) -> dict:
    return {"schema": probe_check.SCHEMA, "exercise": "01.2", "seed": 7,
            "cases": [{"name": n, "tolerance": t, "values": v} for n, t, v in entries]}


TOL = {"rtol": 1e-6, "atol": 1e-9}


class CompareTests(unittest.TestCase):
    def test_equal_outputs_pass(self):
        ref = cases(("n=5", TOL, [1.0, 2.0, 3.0]), ("shape", "exact", [3, 4]))
        self.assertEqual(probe_check.compare_cases(ref, ref), [])

    def test_within_the_instructors_tolerance_passes_beyond_fails(self):
        ref = cases(("n=1", TOL, [1000.0]))
        self.assertEqual(probe_check.compare_cases(cases(("n=1", TOL, [1000.0 + 5e-4])), ref), [])
        problems = probe_check.compare_cases(cases(("n=1", TOL, [1000.01])), ref)
        self.assertEqual(len(problems), 1)
        self.assertIn("n=1", problems[0])

    def test_the_students_tolerance_is_ignored(self):
        ref = cases(("n=1", TOL, [1.0]))
        loose = cases(("n=1", {"rtol": 1e9, "atol": 1e9}, [5.0]))
        self.assertTrue(probe_check.compare_cases(loose, ref))

    def test_missing_extra_and_renamed_cases(self):
        ref = cases(("a", "exact", [1]), ("b", "exact", [2]))
        self.assertIn("missing", probe_check.compare_cases(cases(("a", "exact", [1])), ref)[0])
        self.assertTrue(probe_check.compare_cases(cases(("a", "exact", [1]), ("B", "exact", [2])), ref))
        self.assertEqual(probe_check.compare_cases(cases(("a", "exact", [1]), ("b", "exact", [2]),
                                                         ("extra", "exact", [0])), ref), [])

    def test_wrong_length_nan_strings_and_booleans_fail(self):
        ref = cases(("v", TOL, [1.0, 2.0]))
        for values in ([1.0], [1.0, 2.0, 3.0], [1.0, "nan"], [1.0, None], [True, 2.0], "1,2", [1.0, "2.0"]):
            self.assertTrue(probe_check.compare_cases(cases(("v", TOL, values)), ref), values)

    def test_poison_expected_is_matched_exactly(self):
        ref = cases(("v", TOL, ["nan", 1.0]))
        self.assertEqual(probe_check.compare_cases(cases(("v", TOL, ["nan", 1.0])), ref), [])
        self.assertTrue(probe_check.compare_cases(cases(("v", TOL, [0.0, 1.0])), ref))

    def test_a_forged_verdict_field_counts_for_nothing(self):
        ref = cases(("v", "exact", [1, 2]))
        forged = cases(("v", "exact", [9, 9]))
        forged.update(verdict="pass", passed=True, problems=[])
        self.assertTrue(probe_check.compare_cases(forged, ref))

    def test_summary_is_bounded(self):
        problems = [f"case '{i}': wrong" for i in range(50)]
        text = probe_check.summarize(problems)
        self.assertIn("47 more", text)
        self.assertLess(len(text), 200)


class LoadTests(unittest.TestCase):
    def test_missing_oversized_and_foreign_files(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "out.json"
            with self.assertRaises(probe_check.ProbeOutputError):
                probe_check.load_cases(path)
            path.write_text("not json")
            with self.assertRaises(probe_check.ProbeOutputError):
                probe_check.load_cases(path)
            path.write_text(json.dumps({"schema": "other", "cases": []}))
            with self.assertRaises(probe_check.ProbeOutputError):
                probe_check.load_cases(path)
            path.write_text("[" * 100000)
            with self.assertRaises(probe_check.ProbeOutputError):
                probe_check.load_cases(path)
            path.write_text(json.dumps(cases(("a", "exact", [1]))))
            self.assertEqual(probe_check.load_cases(path)["cases"][0]["name"], "a")


class TimedChecksTests(unittest.TestCase):
    def done(self, nonce, checks):
        return {"done": True, "nonce": nonce, "checks": checks, "tolerance": TOL}

    def test_checks_agree_or_name_the_repetition(self):
        ref = self.done("5", [[1.0, 2.0], [3.0, 4.0]])
        self.assertEqual(probe_check.compare_checks(self.done("5", [[1.0, 2.0], [3.0, 4.0]]), ref), [])
        problems = probe_check.compare_checks(self.done("5", [[1.0, 2.0], [3.0, 4.5]]), ref)
        self.assertIn("repetition 1", problems[0])

    def test_another_nonce_or_fewer_repetitions_fail(self):
        ref = self.done("5", [[1.0]])
        self.assertTrue(probe_check.compare_checks(self.done("6", [[1.0]]), ref))
        self.assertTrue(probe_check.compare_checks(self.done("5", []), ref))

    def test_parse_done_reads_ran_as_a_list_of_strings_or_nothing(self):
        done = probe_check.parse_done('{"done": true, "checks": [], "ran": ["a kernel of its own", "a copy node"]}')
        self.assertEqual(probe_check.ran(done), frozenset({"a kernel of its own", "a copy node"}))
        self.assertEqual(probe_check.ran(probe_check.parse_done('{"done": true, "checks": []}')), frozenset())

    def test_a_done_record_with_a_malformed_ran_is_refused_as_malformed(self):
        # The student's process prints it: anything but a list of strings is a malformed done record (which
        # stops the clock with a failure), never a done record whose `ran` is read as something else.
        for ran in ('"a kernel of its own"', "[1]", '[["nested"]]', '{"a": 1}', "null", "[null]", "true"):
            with self.subTest(ran), self.assertRaises(probe_check.MalformedDone) as raised:
                probe_check.parse_done('{"done": true, "checks": [], "ran": ' + ran + '}')
            self.assertIsInstance(raised.exception, probe_check.ProbeOutputError)
            self.assertIn("malformed done record", str(raised.exception))

    def test_parse_done_refuses_other_lines(self):
        for line in ("ready", "{}", '{"done": false, "checks": []}', '{"done": true}', "[1]", "{" * 5000):
            with self.assertRaises(probe_check.ProbeOutputError):
                probe_check.parse_done(line)


if __name__ == "__main__":
    unittest.main()
