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

Two more layers (issue 30): every `done` record carries `ran`, what the probe observed of the exercise's own
call before the warm-up (the kinds of work a capture of it records); the student's must be the instructor's
answer's, or the timed call was not the exercise's own work (it handed it to the reference, a library or a
copy) and earns no time points. And a side is frozen whenever it is not the one being clocked: a student's
process cannot load the CPU while the reference, the stub or `none` run. Freezing (issue 40) stops every
process of the side's PID namespace, pass after pass, until one pass finds them all stopped (a stopped
process can neither signal nor fork, so helpers that resume each other with SIGCONT are caught by the pass
that stops the last of them), and is checked again right before every other side's clock.
"""
from __future__ import annotations

import os
import queue
import secrets
import signal
import subprocess
import threading
import time

from . import probe_check, scoring

READY_TIMEOUT_S = 300.0   # set-up and warm-up before `ready` (a 1 GiB buffer, CUDA's start-up)
MAX_LINE = 16 << 20       # a `done` record longer than this is not read
STOP_WAIT_S = 1.0         # how long pause() waits for one process to be stopped (one in the driver: until it returns)
REASON_LIMIT = 400        # characters of a reason in the report (verdicts.grade_time's one_line)


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


def _task_files(pid: int, name: str) -> list[str]:
    """/proc/PID/task/*/NAME of every thread of `pid` (the kernel's view from here, inside sandboxes too);
    empty when the process is gone, a thread that ends meanwhile left out."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    texts = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/{name}") as listing:
                texts.append(listing.read())
        except OSError:
            pass
    return texts


def _children(pid: int) -> list[int]:
    """The children of every thread of `pid`."""
    return [int(child) for text in _task_files(pid, "children") for child in text.split() if child.isdigit()]


def _is_stopped(pid: int) -> bool:
    """Every thread of `pid` stopped (or gone)."""
    for stat in _task_files(pid, "stat"):
        fields = stat.rsplit(")", 1)
        if len(fields) == 2 and fields[1].split() and fields[1].split()[0] not in ("T", "t", "Z", "X"):
            return False
    return True


def _tree(root: int) -> list[int]:
    """`root` and its descendants, parents before their children."""
    order, seen, queue_ = [], set(), [root]
    while queue_:
        pid = queue_.pop(0)
        if pid in seen:
            continue
        seen.add(pid)
        order.append(pid)
        queue_ += _children(pid)
    return order


FREEZE_PASSES = 2000  # passes of freeze() before a side that keeps waking is given up on (its run fails)


def _pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def side_processes(root: int) -> list[int]:
    """Every process of the side started as `root`: where it runs in a PID namespace of its own (bubblewrap's
    --unshare-pid), every process of that namespace, found by the namespace itself, not by parentage (a
    double-forked helper has no parent in the side's tree); otherwise `root` and its descendants."""
    mine = _pid_namespace(os.getpid())
    namespace = next((ns for ns in map(_pid_namespace, _tree(root)) if ns and ns != mine), None)
    if namespace is None:
        return _tree(root)
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _pid_namespace(int(entry)) == namespace:
            members.append(int(entry))
    return members


def freeze(root: int) -> bool:
    """SIGSTOP to every process of the side until one full pass finds every one of them stopped: a stopped
    process sends no signal and forks nothing, so once a pass sees them all stopped nothing of the side can
    run again until the grader continues it. Helpers that keep sending each other SIGCONT (issue 40) wake
    one another only until the pass that stops both. False when the side could not be frozen within
    FREEZE_PASSES passes (the grader then gives it no time)."""
    for _ in range(FREEZE_PASSES):
        running = [pid for pid in side_processes(root) if not _is_stopped(pid)]
        if not running:
            return True
        for pid in running:
            try:
                os.kill(pid, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + STOP_WAIT_S
        while time.monotonic() < deadline and not all(_is_stopped(pid) for pid in running):
            time.sleep(0.0005)
    return False


def thaw(root: int) -> None:
    """SIGCONT to every process of the side."""
    for pid in side_processes(root):
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass


class TimedSession:
    """One timed probe process kept for every round of a grade: set up and warmed up once (before `ready`),
    then clocked once per `go <nonce>` (`clock`). Between its clocks it is frozen (`pause`, `resume`): the
    other sides are clocked meanwhile. `close` sends `quit` and ends its process group."""

    def __init__(self, cmd: list[str], env: dict | None, cwd: str, timeout: float):
        self.timeout = timeout
        self.paused: bool | None = None
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

    def pause(self) -> None:
        """Freezes the probe and every process of its sandbox (freeze), until `resume`. Raises TimedRunError
        when they cannot be kept stopped."""
        self.paused = True
        if not freeze(self.process.pid):
            raise TimedRunError("fail", "the timed run's processes could not be kept stopped while the other "
                                "sides were clocked (they keep waking each other): not timed")

    def frozen(self) -> bool:
        """Whether every process of a paused session is still stopped (checked before each other side's clock;
        a process that woke up is stopped again)."""
        return self.paused is None or freeze(self.process.pid)

    def resume(self) -> None:
        if self.paused is not None:
            thaw(self.process.pid)
            self.paused = None

    def clock(self, nonce: int) -> tuple[float, dict]:
        """Sends `go <nonce>`; returns (seconds to the first `done` record, that record). Raises TimedRunError.
        A paused session is resumed first."""
        self.resume()
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
                except probe_check.MalformedDone as error:
                    raise TimedRunError("fail", str(error))
                except probe_check.ProbeOutputError:
                    continue  # not a done record: the first one stops the clock
        except TimeoutError:
            raise TimedRunError("timeout", f"the timed run did not finish within {self.timeout:g} s")

    def close(self, grace: float = 10.0) -> None:
        """The run's whole process group ends with it, after `grace` seconds to exit on its own (the sandbox's
        PID namespace ends the rest). A paused session is resumed first, so that it can read `quit`."""
        self.resume()
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


class NotOwnWork(scoring.PerfFailure):
    """The timed call did other work than the instructor's answer's (its `ran` differs): a fail that is not
    about correctness."""

    def __init__(self, reason: str):
        super().__init__("fail", reason, correctness=False)


def _shown(items: frozenset[str], limit: int) -> str:
    text = "[" + ", ".join(sorted(items)) + "]"
    return text if len(text) <= limit else text[:max(limit - 4, 1)] + "...]"


OWN_KERNEL = "a kernel of its own"  # the probes' kind of a kernel that is none of the known ones (probe_record.cuh)


def compare_ran(student: dict, answer: dict) -> str | None:
    """Why the student's timed call is not the exercise's own work, or None. It is when it records nothing the
    instructor's answer does not (no reference kernel, copy node, library kernel or device allocation the
    answer's call has not) and every kind of kernel of its own that the answer's records. Less is fine
    otherwise: a call that skips a given helper the answer uses (the ladders' shared finish) or launches two
    kernels of its own where the answer launches one is its own business. At most REASON_LIMIT characters."""
    theirs, wanted = probe_check.ran(student), probe_check.ran(answer)
    extra = theirs - wanted
    missing = frozenset(kind for kind in wanted - theirs if kind.startswith(OWN_KERNEL))
    if not extra and not missing:
        return None
    words = ("the timed call is not the exercise's own work: a capture of it at the timed size recorded {}, the "
             "instructor's answer records {}; the task wants this file's own code (its own kernels: no reference "
             "rung, library, copy or other chapter's code)")
    room = (REASON_LIMIT - len(words) + 4) // 2
    return words.format(_shown(theirs, room), _shown(wanted, room))


def measure(run_side, reps: int, points: int, metric: str):
    """Interleaved rounds by scoring's rule. `run_side(side, nonce)` -> (seconds, done record) for side in
    SIDES (`answer`: the instructor's own answer, the anchor of what speed is plausible). In every round (same
    nonce) the student's checks must match the reference's (a wrong answer in any timed repetition means no
    time and no points) and what the probe observed of the student's call (`ran`) must be what it observed of
    the answer's (NotOwnWork otherwise). Returns scoring.Verdict; raises scoring.PerfFailure."""
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
        delegated = compare_ran(clocked["student"][1], clocked["answer"][1])
        if delegated:
            raise NotOwnWork(delegated)
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
