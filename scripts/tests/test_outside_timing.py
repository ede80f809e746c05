#!/usr/bin/env python3
"""Tests of scripts/course_lib/outside_timing.py (issue 30): the grader's clock around a timed probe, and the
rounds that score it. Fake probes (small Python programs speaking the protocol of common/probe.hpp) play an
honest submission, one that says `done` before the work, one that replays a cached answer, one that dies, one
that never answers, one whose `done` record is malformed, and one whose grandchild (in a session of its own,
as bubblewrap's are) keeps working while its side should be frozen. The rounds refuse a timed call whose
observed work (`ran`) is not the instructor's answer's.

    python3 scripts/tests/test_outside_timing.py [-v]
"""
from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from course_lib import outside_timing, probe_check, sandbox, scoring  # noqa: E402

BWRAP = sandbox.find_bwrap(Path(__file__).resolve().parent.parent.parent)

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


MALFORMED = textwrap.dedent("""
    import sys
    print("ready", flush=True)
    sys.stdin.readline()
    print('{"done": true, "checks": [[1.0]], "ran": "a kernel of its own"}', flush=True)
    sys.stdin.readline()
""")

# A probe whose grandchild, in a session of its own (bubblewrap's --new-session: a signal to the probe's process
# group does not reach it), appends a tick to a file every 10 ms, as a student's helper thread or process
# slowing the other sides would. It ends when the probe has gone.
TICKING = textwrap.dedent("""
    import json, os, subprocess, sys, time
    ticks, orphan, probe = sys.argv[1], sys.argv[2] == "orphan", os.getpid()
    ticker = os.path.join(os.path.dirname(sys.argv[0]), "ticker.py")
    # The middle process starts the ticker in a session of its own, then waits for it, or (orphan) exits: in
    # a PID namespace the orphan is adopted by the namespace's init, still below the probe's process.
    middle = ("import subprocess, sys; ticker = subprocess.Popen(sys.argv[2:], start_new_session=True); "
              "sys.argv[1] == 'orphan' or ticker.wait()")
    subprocess.Popen([sys.executable, "-c", middle, sys.argv[2], sys.executable, ticker, ticks, str(probe)])
    deadline = time.monotonic() + 10
    while not os.path.exists(ticks) and time.monotonic() < deadline:
        time.sleep(0.01)
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "quit":
            break
        nonce = int(line.split()[1])
        print(json.dumps({"done": True, "nonce": str(nonce), "checks": [[1.0]]}), flush=True)
""")
TICKER = textwrap.dedent("""
    import os, sys, time
    ticks, probe = sys.argv[1], int(sys.argv[2])
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            os.kill(probe, 0)
        except OSError:
            break
        with open(ticks, "a") as f:
            f.write(".")
        time.sleep(0.01)
""")


# Issue 40's third attempt: two helpers, forked by the probe, that keep sending SIGCONT to the probe and to
# each other (and burn CPU): the grader of issue 30 stopped each process once, parents first, and gave up on
# one after two tries, so whatever it stopped ran again within microseconds.
STORM = textwrap.dedent("""
    import json, os, signal, sys, time
    pids_file = sys.argv[1]
    probe = os.getpid()
    read_end, write_end = os.pipe()
    first = os.fork()
    if first == 0:
        os.close(write_end)
        other = int(os.read(read_end, 32))
        while True:                       # wake the probe and the other helper, without end
            for pid in (probe, other):
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass
    second = os.fork()
    if second == 0:
        while True:
            for pid in (probe, first):
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass
    os.write(write_end, str(second).encode())
    with open(pids_file, "w") as f:
        f.write(f"{first} {second}")
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "quit":
            break
        nonce = int(line.split()[1])
        print(json.dumps({"done": True, "nonce": str(nonce), "checks": [[1.0]]}), flush=True)
    for pid in (first, second):
        os.kill(pid, signal.SIGKILL)
""")


def cpu_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks (from the machine's /proc: the pid seen from outside)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class FreezeTests(unittest.TestCase):
    """A side is frozen while the others are clocked: its whole process tree, sessions of its own included."""

    def test_a_malformed_done_record_fails_the_run(self):
        with tempfile.TemporaryDirectory() as folder:
            fake = Path(folder) / "malformed.py"
            fake.write_text(MALFORMED)
            session = outside_timing.TimedSession([sys.executable, str(fake)], None, folder, 20.0)
            try:
                with self.assertRaises(outside_timing.TimedRunError) as raised:
                    session.clock(3)
            finally:
                session.close(grace=0.0)
            self.assertEqual(raised.exception.status, "fail")
            self.assertIn("malformed done record", raised.exception.reason)

    def test_a_paused_session_does_no_work_not_even_in_a_grandchild_of_another_session(self):
        self.frozen_while_paused(lambda cmd, folder: cmd, "parent", 3)  # the probe, the middle, the ticker

    @unittest.skipIf(sandbox.probe(BWRAP), f"no sandbox here: {sandbox.probe(BWRAP)}")
    def test_a_paused_sandbox_does_no_work_not_even_in_an_orphan_of_another_session(self):
        # As the grader runs a probe: bubblewrap with a session and a PID namespace of its own; the orphan is
        # adopted by the namespace's init, which the walk reaches (a signal to the process group would not).
        def wrap(cmd, folder):
            return [BWRAP, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--proc",
                    "/proc", "--dev", "/dev", "--bind", folder, folder, "--", *cmd]
        self.frozen_while_paused(wrap, "orphan", 3)  # bubblewrap, its init, the probe, the orphan: 3 or more

    def frozen_while_paused(self, wrap, mode: str, at_least: int):
        with tempfile.TemporaryDirectory() as folder:
            fake, ticks = Path(folder) / "ticking.py", Path(folder) / "ticks"
            fake.write_text(TICKING)
            (Path(folder) / "ticker.py").write_text(TICKER)
            cmd = wrap([sys.executable, str(fake), str(ticks), mode], folder)
            session = outside_timing.TimedSession(cmd, None, folder, 20.0)
            try:
                self.assertEqual(session.clock(7)[1]["nonce"], "7")
                session.pause()
                time.sleep(0.05)                    # a tick being written when the stop came lands
                before = ticks.stat().st_size
                time.sleep(0.4)
                self.assertEqual(ticks.stat().st_size, before, "the grandchild ticked while its side was paused")
                self.assertGreaterEqual(len(outside_timing.side_processes(session.process.pid)), at_least)
                session.resume()
                time.sleep(0.3)
                self.assertGreater(ticks.stat().st_size, before, "the grandchild did not go on after resume")
                session.pause()
                _, done = session.clock(8)           # a paused session is resumed for its clock
                self.assertEqual(done["nonce"], "8")
                session.pause()
            finally:
                session.close()                      # paused: resumed first, then it reads `quit`
            self.assertEqual(session.process.returncode, 0)

    @unittest.skipIf(sandbox.probe(BWRAP), f"no sandbox here: {sandbox.probe(BWRAP)}")
    def test_helpers_that_send_each_other_sigcont_cannot_unfreeze_their_side(self):
        with tempfile.TemporaryDirectory() as folder:
            fake, pids = Path(folder) / "storm.py", Path(folder) / "pids"
            fake.write_text(STORM)
            box = sandbox.Sandbox(BWRAP, hidden=[], public=[Path(sys.executable).resolve().parent.parent])
            cmd = box.wrap([sys.executable, str(fake), str(pids)], Path(folder), [Path(folder)])
            session = outside_timing.TimedSession(cmd, None, folder, 20.0)
            try:
                session.clock(5)
                time.sleep(0.3)                     # the helpers storm meanwhile (and burn CPU)
                session.pause()
                helpers = [p for p in outside_timing.side_processes(session.process.pid)
                           if p != session.process.pid and cpu_ticks(p) > 0]
                self.assertGreaterEqual(len(helpers), 2, "the helpers should have burnt CPU before the pause")
                before = {p: cpu_ticks(p) for p in helpers}
                time.sleep(0.5)
                self.assertEqual({p: cpu_ticks(p) for p in helpers}, before, "a helper ran while its side was frozen")
                self.assertTrue(session.frozen())
                _, done = session.clock(6)
                self.assertEqual(done["nonce"], "6")
            finally:
                session.close(grace=2.0)

    def test_stopping_a_tree_that_has_gone_is_harmless(self):
        with tempfile.TemporaryDirectory() as folder:
            fake = Path(folder) / "serving.py"
            fake.write_text(SERVING)
            session = outside_timing.TimedSession([sys.executable, str(fake)], None, folder, 20.0)
            session.close()
            pid = session.process.pid
            self.assertFalse(os.path.exists(f"/proc/{pid}/task"))
            session.pause()
            session.resume()


class RoundTests(unittest.TestCase):
    def fake_sides(self, seconds: dict, wrong_student=False, ran: dict | None = None):
        calls = []

        def run_side(side, nonce):
            calls.append(side)
            checks = [[float(nonce % 97)]] if not (wrong_student and side == "student") else [[-1.0]]
            done = {"done": True, "nonce": str(nonce), "checks": checks, "tolerance": "exact"}
            if ran and side in ran:
                done["ran"] = ran[side]
            return seconds[side], done
        return run_side, calls

    def test_a_timed_call_that_does_other_work_than_the_answer_earns_nothing(self):
        # As fast as the reference and right, but what the probe saw of its call is the reference's kernel.
        seconds = {"student": 1.1, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1}
        run_side, _ = self.fake_sides(seconds, ran={"student": ["a kernel of the reference (naive_global)"],
                                                    "answer": ["a kernel of its own, with shared memory"]})
        with self.assertRaises(outside_timing.NotOwnWork) as raised:
            outside_timing.measure(run_side, 10, 30, "s")
        failure = raised.exception
        self.assertEqual((failure.status, failure.correctness), ("fail", False))
        self.assertIn("not the exercise's own work", failure.reason)
        self.assertIn("[a kernel of the reference (naive_global)]", failure.reason)
        self.assertIn("the instructor's answer records [a kernel of its own, with shared memory]", failure.reason)

    def test_the_same_observed_work_in_any_order_is_the_answers(self):
        seconds = {"student": 1.1, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1}
        run_side, _ = self.fake_sides(seconds, ran={"student": ["b", "a"], "answer": ["a", "b"], "reference": []})
        self.assertEqual(outside_timing.measure(run_side, 10, 30, "s").status, "pass")
        # Absent (an old probe) is nothing observed: a student's extra work is still refused.
        run_side, _ = self.fake_sides(seconds, ran={"student": ["a copy node (memcpy)"]})
        with self.assertRaises(outside_timing.NotOwnWork):
            outside_timing.measure(run_side, 10, 30, "s")

    def test_less_than_the_answer_is_fine_but_not_without_its_own_kernel(self):
        seconds = {"student": 1.1, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1}
        answer = ["a kernel of its own", "a kernel of the reference (neighbored_less)"]
        # Its own kernel without the given finish the answer shares with the reference: its own business.
        run_side, _ = self.fake_sides(seconds, ran={"student": ["a kernel of its own"], "answer": answer})
        self.assertEqual(outside_timing.measure(run_side, 10, 30, "s").status, "pass")
        # The reference's kernels alone: the answer's own kernel is missing.
        run_side, _ = self.fake_sides(seconds, ran={"student": ["a kernel of the reference (neighbored_less)"],
                                                    "answer": answer})
        with self.assertRaises(outside_timing.NotOwnWork):
            outside_timing.measure(run_side, 10, 30, "s")
        # Its own kernel, but without the shared memory the task prescribes.
        run_side, _ = self.fake_sides(seconds, ran={"student": ["a kernel of its own, without shared memory"],
                                                    "answer": ["a kernel of its own, with shared memory"]})
        with self.assertRaises(outside_timing.NotOwnWork):
            outside_timing.measure(run_side, 10, 30, "s")

    def test_long_observations_are_shortened_in_the_reason(self):
        many = [f"a kernel of the reference rung number {i} with a long descriptive name" for i in range(40)]
        seconds = {"student": 1.1, "reference": 1.1, "stub": 3.1, "answer": 1.1, "none": 0.1}
        run_side, _ = self.fake_sides(seconds, ran={"student": many, "answer": ["a kernel of its own"]})
        with self.assertRaises(outside_timing.NotOwnWork) as raised:
            outside_timing.measure(run_side, 10, 30, "s")
        self.assertLessEqual(len(raised.exception.reason), 400)
        self.assertIn("...]", raised.exception.reason)

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
