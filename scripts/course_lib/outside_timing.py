"""Times measured from outside the student's process (issue 30).

A timed probe (common/include/common/probe.hpp) sets up, warms up and prints `ready`; for each round the grader
then writes `go <nonce>` and starts its own clock; the probe runs the grader's count of repetitions, each on
inputs perturbed from the nonce, and prints one `done` record with every repetition's check values; the grader
stops its clock at the first `done` record it reads. One process per side serves every round of a grade. The check values must match the instructor's build's for the
same nonce (probe_check.compare_checks), so a `done` printed before the work was done, a cached result, or a
clock, file or exit handler inside the process changes nothing: the time is the grader's, the answer is
checked.

Per repetition: (T(variant) - T(none)) / reps, where `none` is the instructor's build doing everything but
the work (perturbation, synchronisation, read-back of the checks). Each side runs in its own sandbox: the
student's probe in the student's build; the reference and `none` in the instructor's build; the untouched
stub in a build of the instructor's tree with only that exercise as handed out. No student code runs in the
processes timed for the reference, the stub or `none`.
"""
from __future__ import annotations

import os
import queue
import secrets
import subprocess
import threading
import time

from . import probe_check

READY_TIMEOUT_S = 300.0   # set-up and warm-up before `ready` (a 1 GiB buffer, CUDA's start-up)
MAX_LINE = 16 << 20       # a `done` record longer than this is not read


class TimedRunError(Exception):
    """A timed run that gave no time: status (fail, timeout, needs_gpu, error) and one line why."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


def new_nonce() -> int:
    return secrets.randbits(63)


def _reader(stream, lines: "queue.Queue[bytes | None]") -> None:
    try:
        while True:
            line = stream.readline(MAX_LINE)
            if not line:
                break
            lines.put(line)
    finally:
        lines.put(None)


def _drain(stream, keep: list[bytes], limit: int = 64 << 10) -> None:
    size = 0
    while True:
        chunk = stream.read(4096)
        if not chunk:
            return
        if size < limit:
            keep.append(chunk[: limit - size])
            size += len(chunk)


def _next_line(lines: "queue.Queue[bytes | None]", deadline: float) -> bytes | None:
    wait = deadline - time.monotonic()
    if wait <= 0:
        raise TimeoutError
    try:
        return lines.get(timeout=wait)
    except queue.Empty:
        raise TimeoutError


class TimedSession:
    """One timed probe process kept for every round of a grade: set up and warmed up once (before `ready`),
    then clocked once per `go <nonce>` (`clock`). `close` sends `quit` and ends its process group."""

    def __init__(self, cmd: list[str], env: dict | None, cwd: str, timeout: float):
        self.timeout = timeout
        self.process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env, cwd=cwd, start_new_session=True)
        self.lines: "queue.Queue[bytes | None]" = queue.Queue()
        self.errors: list[bytes] = []
        threading.Thread(target=_reader, args=(self.process.stdout, self.lines), daemon=True).start()
        threading.Thread(target=_drain, args=(self.process.stderr, self.errors), daemon=True).start()
        try:
            self._wait_ready()
        except BaseException:
            self.close(grace=0.0)
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + min(READY_TIMEOUT_S, self.timeout)
        try:
            while True:  # anything before `ready` (a warning) is skipped
                line = _next_line(self.lines, deadline)
                if line is None:
                    raise _ended(self.process.wait(), self.errors, "before it was ready")
                if line.strip() == b"ready":
                    return
        except TimeoutError:
            raise TimedRunError("timeout", f"the timed run was not ready within {min(READY_TIMEOUT_S, self.timeout):g} s")

    def clock(self, nonce: int) -> tuple[float, dict]:
        """Sends `go <nonce>`; returns (seconds to the first `done` record, that record). Raises TimedRunError."""
        try:
            self.process.stdin.write(f"go {nonce}\n".encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _ended(self.process.wait(), self.errors, "before it read `go`")
        started = time.perf_counter()
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                line = _next_line(self.lines, deadline)
                stopped = time.perf_counter()
                if line is None:
                    raise _ended(self.process.wait(), self.errors, "before its done record")
                try:
                    return stopped - started, probe_check.parse_done(line.decode("utf-8", "replace"))
                except probe_check.ProbeOutputError:
                    continue  # not a done record: the first one stops the clock
        except TimeoutError:
            raise TimedRunError("timeout", f"the timed run did not finish within {self.timeout:g} s")

    def close(self, grace: float = 10.0) -> None:
        """The run's whole process group ends with it, after `grace` seconds to exit on its own (the sandbox's
        PID namespace ends the rest)."""
        try:
            self.process.stdin.write(b"quit\n")
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.process.pid, 9)
            except OSError:
                pass
            self.process.wait()


def timed_run(cmd: list[str], env: dict | None, cwd: str, nonce: int, timeout: float) -> tuple[float, dict, str]:
    """One round in a process of its own: (seconds, the done record, stderr's last line)."""
    session = TimedSession(cmd, env, cwd, timeout)
    try:
        seconds, done = session.clock(nonce)
    except BaseException:
        session.close(grace=0.0)
        raise
    session.close()
    return seconds, done, _last(session.errors)


def _ended(code: int, errors: list[bytes], when: str) -> TimedRunError:
    if code == 77:
        return TimedRunError("needs_gpu", "not graded: the timed run needs a GPU")
    return TimedRunError("fail", f"the timed run ended (exit {code}) {when}: {_last(errors) or 'no message'}")


def _last(errors: list[bytes]) -> str:
    text = b"".join(errors).decode("utf-8", "replace").strip()
    return text.splitlines()[-1][:300] if text else ""


# ---------------------------------------------------------------------------------------------------------
# rounds: student, reference, stub and none, interleaved, one nonce per round
# ---------------------------------------------------------------------------------------------------------

SIDES = ("student", "reference", "stub", "answer", "none")


def per_rep(seconds: float, none_seconds: float, reps: int) -> float:
    """A side's time per repetition: its clocked time less `none`'s (the same run without the work). Never
    below a microsecond per repetition: a side faster than doing nothing is noise, and flagged by the ratio."""
    return max((seconds - none_seconds) / reps, 1e-6)


def measure(run_side, reps: int, points: int, metric: str):
    """Interleaved rounds by scoring's rule. `run_side(side, nonce)` -> (seconds, done record) for side in
    SIDES (`answer`: the instructor's own answer, the anchor of what speed is plausible). The student's checks must match the reference's in every round (same nonce): a wrong answer in any
    timed repetition means no time and no points. Returns scoring.Verdict; raises scoring.PerfFailure."""
    from . import scoring  # the rule of the points

    rounds: list[dict] = []
    while len(rounds) < scoring.MAX_ROUNDS:
        nonce = new_nonce()
        shift = len(rounds) % len(SIDES)
        order = SIDES[shift:] + SIDES[:shift]  # each side takes each place in turn
        clocked: dict[str, tuple[float, dict]] = {}
        for side in order:
            try:
                clocked[side] = run_side(side, nonce)
            except TimedRunError as error:
                if side == "student":
                    raise scoring.PerfFailure(error.status, f"timed run: {error.reason}")
                raise scoring.PerfFailure("error", f"the {side} side's timed run failed: {error.reason}")
        problems = probe_check.compare_checks(clocked["student"][1], clocked["reference"][1])
        if problems:
            raise scoring.PerfFailure("fail", "a timed repetition gave a wrong answer (inputs change every "
                                      f"repetition): {probe_check.summarize(problems)}")
        none = clocked["none"][0]
        t = per_rep(clocked["student"][0], none, reps)
        t_ref = per_rep(clocked["reference"][0], none, reps)
        t_stub = per_rep(clocked["stub"][0], none, reps)
        t_answer = per_rep(clocked["answer"][0], none, reps)
        rounds.append({"student": (t, t_ref), "stub": (t_stub, t_ref), "answer": t_answer,
                       "points": scoring.points_for(points, t / t_ref, t_stub / t_ref),
                       "clocked_s": {side: round(clocked[side][0], 6) for side in SIDES}})
        spread = max(r["points"] for r in rounds) - min(r["points"] for r in rounds)
        if len(rounds) >= scoring.MIN_ROUNDS and spread <= max(1, points // 10):
            break
    verdict = scoring.verdict(rounds, points, metric)
    for row, source in zip(verdict.rounds, rounds):
        row["clocked_s"] = source["clocked_s"]
    return verdict
