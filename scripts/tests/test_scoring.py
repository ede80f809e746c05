#!/usr/bin/env python3
"""Tests of scripts/course_lib/scoring.py and report_excerpt.py (issue 30): nothing for doing nothing,
an implausible speed-up flagged, rounds repeated until stable; reports carry a bounded, escaped excerpt
and a failed program's own error line.

    python3 scripts/tests/test_scoring.py [-v]
"""
from __future__ import annotations

import itertools
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from course_lib import report_excerpt, scoring  # noqa: E402


class RuleTests(unittest.TestCase):
    def test_the_stub_earns_nothing_and_1_2x_earns_everything(self):
        # Issue 30: under the CS149 rule alone, an untouched 01.3 stub 1.92x slower than the reference
        # earned 16/30. Scaled from the stub's own time it earns 0.
        self.assertEqual(scoring.points_for(30, 1.92, 1.92), 0)
        self.assertEqual(scoring.points_for(30, 1.80, 1.92), 0)      # within the noise band of the stub
        self.assertEqual(scoring.points_for(30, 1.2, 1.92), 30)
        self.assertEqual(scoring.points_for(30, 0.5, 1.92), 30)
        self.assertEqual(scoring.points_for(25, 1.32, 1.32), 0)      # 05.3's stub on the H100

    def test_monotone_in_the_time(self):
        for stub in (1.5, 1.92, 4.0, 30.0):
            ratios = [1.0 + i * 0.01 for i in range(0, 4000)]
            scores = [scoring.points_for(30, r, stub) for r in ratios]
            self.assertTrue(all(a >= b for a, b in zip(scores, scores[1:])), stub)
            self.assertEqual(scores[0], 30)
            self.assertEqual(scores[-1], 0)

    def test_halfway_in_log_time_is_half_the_points(self):
        zero = 4.8 / 1.1
        middle = (1.2 * zero) ** 0.5
        self.assertIn(scoring.points_for(30, middle, 4.8), (14, 15))


def runs(*pairs):
    """A perf run that returns the given (T, T_ref) in turn."""
    it = itertools.cycle(pairs)
    return lambda: next(it)


class MeasureTests(unittest.TestCase):
    def test_untouched_stub_against_itself_scores_zero(self):
        v = scoring.measure(runs((1.9, 1.0), (2.0, 1.0)), runs((1.95, 1.0)), 30, "ms")
        self.assertEqual((v.status, v.points), ("slow", 0), v.reason)
        self.assertIn("slower than the reference", v.reason)
        self.assertIn("untouched stub", v.reason)
        self.assertEqual(len(v.rounds), 3)

    def test_the_key_scores_full(self):
        v = scoring.measure(runs((1.0, 1.0)), runs((2.0, 1.0)), 30, "ms")
        self.assertEqual((v.status, v.points), ("pass", 30))

    def test_beyond_3x_is_flagged_not_full_points(self):
        # Issue 30: a stub that cached its result between timed calls scored 30/30, "201.79x faster".
        v = scoring.measure(runs((0.005, 1.0)), runs((2.0, 1.0)), 30, "ms")
        self.assertEqual((v.status, v.points), ("flagged", 0))
        self.assertIn("flagged for review", v.reason)

    def test_disagreeing_rounds_take_more_rounds_and_the_median(self):
        # A loaded machine: one round in three makes the student look 3x slower.
        v = scoring.measure(runs((1.0, 1.0), (1.0, 1.0), (3.0, 1.0)), runs((2.0, 1.0)), 30, "ms")
        self.assertGreater(len(v.rounds), 3)
        self.assertEqual(v.points, 30)

    def test_rounds_are_interleaved(self):
        order = []
        scoring.measure(lambda: order.append("student") or (1.0, 1.0),
                        lambda: order.append("stub") or (2.0, 1.0), 10, "ms")
        self.assertEqual(order[:6], ["student", "stub", "stub", "student", "student", "stub"])

    def test_a_stub_close_to_1_2x_is_all_or_nothing(self):
        # 05.3's stub was 1.32x slower than CUB on the H100: inside the band of 1.2x, so no partial points.
        self.assertEqual(scoring.measure(runs((1.0, 1.0)), runs((1.32, 1.0)), 30, "ms").points, 30)
        untouched = scoring.measure(runs((1.31, 1.0)), runs((1.32, 1.0)), 30, "ms")
        self.assertEqual((untouched.status, untouched.points), ("slow", 0), untouched.reason)

    def test_a_stub_as_fast_as_the_reference_cannot_be_graded_by_time(self):
        v = scoring.measure(runs((1.0, 1.0)), runs((1.1, 1.0)), 30, "ms")
        self.assertEqual((v.status, v.points), ("error", 0))

    def test_a_failed_run_is_its_failure(self):
        def fails():
            raise scoring.PerfFailure("fail", "perf run failed (exit 1): x: wrong result: sum 3 != 4")
        with self.assertRaises(scoring.PerfFailure):
            scoring.measure(fails, runs((2.0, 1.0)), 30, "ms")


class ExcerptTests(unittest.TestCase):
    def test_bounded_to_the_last_lines_and_characters(self):
        text = "\n".join(f"line {i}" for i in range(1000))
        out = report_excerpt.excerpt(text)
        self.assertTrue(out.startswith(report_excerpt.TRUNCATED))
        self.assertEqual(len(out.splitlines()), report_excerpt.EXCERPT_LINES + 1)
        self.assertTrue(out.endswith("line 999"))
        self.assertLessEqual(len(report_excerpt.excerpt("x" * 100000)), report_excerpt.EXCERPT_CHARS + 40)

    def test_control_characters_are_escaped(self):
        out = report_excerpt.excerpt("red \x1b[31mtext\x1b[0m\tand a bell \x07 and NUL \x00\n")
        self.assertNotRegex(out, r"[\x00-\x08\x0b-\x1f]")
        self.assertIn("\\x1b[31m", out)
        self.assertIn("\t", out)

    def test_short_output_is_kept_whole(self):
        self.assertEqual(report_excerpt.excerpt("one\ntwo"), "one\ntwo")

    def test_a_failed_programs_own_error_line_not_its_last_line(self):
        # Issue 30: the reason quoted "measured copy bandwidth ... 2989 GB/s", the program's last line.
        output = ("copy_bandwidth: wrong result: the sum of the copy is 12 (expected 16)\n"
                  "measured copy bandwidth (device to device): 2989 GB/s\n")
        self.assertEqual(report_excerpt.error_line(output),
                         "copy_bandwidth: wrong result: the sum of the copy is 12 (expected 16)")
        self.assertEqual(report_excerpt.error_line("just a line\n"), "just a line")
        self.assertEqual(report_excerpt.error_line(""), "(no output)")

    def test_a_missing_source_file_is_named(self):
        # Issue 30: "configure failed: ... Cannot find source file:" with the name cut off.
        log = ("-- Configuring done\n"
               "CMake Error at 01_critical_vs_triangle/CMakeLists.txt:5 (add_library):\n"
               "  Cannot find source file:\n\n    src/forces.cpp\n\n"
               "  Tried extensions .c .C .c++ .cc .cpp .cxx .cu\n\n\n"
               "CMake Error at 01_critical_vs_triangle/CMakeLists.txt:5 (add_library):\n  No SOURCES given\n")
        reason = report_excerpt.cmake_error(log)
        self.assertTrue(reason.startswith("CMake Error at 01_critical_vs_triangle/CMakeLists.txt:5 (add_library): "
                                          "Cannot find source file: src/forces.cpp"), reason)
        self.assertNotIn("No SOURCES", reason)
        self.assertIsNone(report_excerpt.cmake_error("all fine\n"))


if __name__ == "__main__":
    unittest.main()
