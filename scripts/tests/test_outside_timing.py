#!/usr/bin/env python3
"""Tests of scripts/course_lib/outside_timing.py (issue 30): the grader's clock around a timed probe, and the
rounds that score it. Fake probes (small Python programs speaking the protocol of common/probe.hpp) play an
honest submission, one that says `done` before the work, one that replays a cached answer, one that dies, and
one that never answers.

    python3 scripts/tests/test_outside_timing.py [-v]
"""
from __future__ import annotations

import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from course_lib import outside_timing, probe_check, scoring  # noqa: E402

FAKE = textwrap.dedent("""
    import json, sys, time
    mode, work = sys.argv[1], float(sys.argv[2])
    print("starting up")          # anything before `ready` is skipped
    print("ready", flush=True)
    line = sys.stdin.readline()
    nonce = int(line.split()[1])
    def answer(rep):
        return [float((nonce * 31 + rep) % 1000)]
    if mode == "early":             # claims done at once, then works: its claim carries no right answer
        print(json.dumps({"done": True, "nonce": str(nonce), "checks": [[0.0]] * 3}), flush=True)
    if mode == "die":
        sys.exit(3)
    if mode == "hang":
        time.sleep(60)
    time.sleep(work)
    checks = [[123.0] for rep in range(3)] if mode == "cached" else [answer(rep) for rep in range(3)]
    print("not a done record")
    print(json.dumps({"done": True, "nonce": str(nonce), "checks": checks, "tolerance": "exact"}), flush=True)
""")


class ClockTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.fake = Path(cls.folder.name) / "fake.py"
        cls.fake.write_text(FAKE)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def run_fake(self, mode, work=0.0, nonce=4242, timeout=20.0):
        return outside_timing.timed_run([sys.executable, str(self.fake), mode, str(work)], None, self.folder.name,
                                        nonce, timeout)

    def test_the_clock_covers_the_work(self):
        seconds, done, _ = self.run_fake("honest", 0.3)
        self.assertGreaterEqual(seconds, 0.3)
        self.assertLess(seconds, 5.0)
        self.assertEqual(done["nonce"], "4242")

    def test_an_early_done_stops_the_clock_with_a_wrong_answer(self):
        _, early, _ = self.run_fake("early", 0.2)
        _, honest, _ = self.run_fake("honest", 0.0)
        self.assertTrue(probe_check.compare_checks(early, honest))

    def test_a_cached_answer_does_not_match_a_new_nonce(self):
        _, cached, _ = self.run_fake("cached", 0.0, nonce=99)
        _, honest, _ = self.run_fake("honest", 0.0, nonce=99)
        self.assertTrue(probe_check.compare_checks(cached, honest))

    def test_a_run_that_dies_or_hangs_gives_no_time(self):
        with self.assertRaises(outside_timing.TimedRunError) as died:
            self.run_fake("die")
        self.assertEqual(died.exception.status, "fail")
        with self.assertRaises(outside_timing.TimedRunError) as hung:
            self.run_fake("hang", timeout=1.0)
        self.assertEqual(hung.exception.status, "timeout")

    def test_no_gpu_is_needs_gpu(self):
        with self.assertRaises(outside_timing.TimedRunError) as raised:
            outside_timing.timed_run([sys.executable, "-c", "import sys; sys.exit(77)"], None, self.folder.name, 1, 10)
        self.assertEqual(raised.exception.status, "needs_gpu")


SERVING = textwrap.dedent("""
    import json, sys
    kept = {}
    print("ready", flush=True)
    for line in sys.stdin:              # one process, one `go` per round, until `quit`
        if line.strip() == "quit":
            break
        nonce = int(line.split()[1])
        kept.setdefault("first", nonce)  # what a cache across rounds would keep
        checks = [[float((nonce * 31 + rep) % 1000)] for rep in range(3)]
        print(json.dumps({"done": True, "nonce": str(nonce), "checks": checks}), flush=True)
""")


class SessionTests(unittest.TestCase):
    """One timed process serves every round of a grade (set up and warmed up once)."""

    def test_a_session_clocks_each_round_with_its_own_nonce(self):
        with tempfile.TemporaryDirectory() as folder:
            fake = Path(folder) / "serving.py"
            fake.write_text(SERVING)
            session = outside_timing.TimedSession([sys.executable, str(fake)], None, folder, 20.0)
            try:
                _, first = session.clock(11)
                _, second = session.clock(12)
            finally:
                session.close()
            self.assertEqual((first["nonce"], second["nonce"]), ("11", "12"))
            self.assertNotEqual(first["checks"], second["checks"])
            self.assertEqual(session.process.returncode, 0)   # `quit` ended it

    def test_a_one_round_probe_cannot_serve_a_second_round(self):
        with tempfile.TemporaryDirectory() as folder:
            fake = Path(folder) / "fake.py"
            fake.write_text(FAKE)
            session = outside_timing.TimedSession([sys.executable, str(fake), "honest", "0"], None, folder, 20.0)
            try:
                session.clock(5)
                with self.assertRaises(outside_timing.TimedRunError) as raised:
                    session.clock(6)
            finally:
                session.close(grace=0.0)
            self.assertEqual(raised.exception.status, "fail")


class RoundTests(unittest.TestCase):
    def fake_sides(self, seconds: dict, wrong_student=False):
        calls = []

        def run_side(side, nonce):
            calls.append(side)
            checks = [[float(nonce % 97)]] if not (wrong_student and side == "student") else [[-1.0]]
            return seconds[side], {"done": True, "nonce": str(nonce), "checks": checks, "tolerance": "exact"}
        return run_side, calls

    def test_times_less_none_and_the_stub_rule(self):
        # reps 10: none 0.1 s; reference 1.1 s -> 0.1 s per rep; student 1.1 s -> ratio 1.0; stub 3.1 s -> 3.0
        run_side, calls = self.fake_sides({"student": 1.1, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1})
        verdict = outside_timing.measure(run_side, 10, 30, "s")
        self.assertEqual((verdict.status, verdict.points), ("pass", 30))
        self.assertAlmostEqual(verdict.ratio, 1.0)
        self.assertAlmostEqual(verdict.stub_ratio, 3.0)
        self.assertGreaterEqual(len(verdict.rounds), scoring.MIN_ROUNDS)
        n = len(outside_timing.SIDES)
        self.assertEqual(calls[:n], list(outside_timing.SIDES))
        self.assertEqual(calls[n:2 * n], list(outside_timing.SIDES[1:] + outside_timing.SIDES[:1]))  # order rotates

    def test_doing_nothing_earns_nothing(self):
        run_side, _ = self.fake_sides({"student": 3.1, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1})
        self.assertEqual(outside_timing.measure(run_side, 10, 30, "s").points, 0)

    def test_a_wrong_timed_answer_earns_nothing(self):
        run_side, _ = self.fake_sides({"student": 0.2, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1},
                                      wrong_student=True)
        with self.assertRaises(scoring.PerfFailure) as raised:
            outside_timing.measure(run_side, 10, 30, "s")
        self.assertEqual(raised.exception.status, "fail")

    def test_plausible_speed_is_anchored_on_the_answer(self):
        # 04.3's answer is about 4x its reference (a slower rung): as fast as the answer is not flagged ...
        run_side, _ = self.fake_sides({"student": 0.35, "reference": 1.1, "stub": 3.1, "answer": 0.35, "none": 0.1})
        self.assertEqual(outside_timing.measure(run_side, 10, 30, "s").status, "pass")
        # ... and 3x faster than the answer is.
        run_side, _ = self.fake_sides({"student": 0.15, "reference": 1.1, "stub": 3.1, "answer": 0.35, "none": 0.1})
        self.assertEqual(outside_timing.measure(run_side, 10, 30, "s").status, "flagged")

    def test_implausibly_fast_is_flagged(self):
        run_side, _ = self.fake_sides({"student": 0.11, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1})
        verdict = outside_timing.measure(run_side, 10, 30, "s")
        self.assertEqual((verdict.status, verdict.points), ("flagged", 0))


if __name__ == "__main__":
    unittest.main()
