"""Verdicts from outside the student's process (issue 30): the raw outputs a grading probe wrote
(common/include/common/probe.hpp) compared with the instructor's build's outputs for the same seed, in the
grader's own process. Tolerances come from the instructor's file only; the student's file is data.

Also a small CLI for the course's own tests (`ctest -L probe`):
    probe_check.py self-test PROBE [--timed] [--gpu]
runs a probe of the instructor's tree twice with one seed (its cases must be identical: the grader relies on
the same inputs and names in both builds) and, with --timed, runs the timed protocol for `exercise` and
`reference` with the same nonce: their checks must agree by the probe's own tolerance."""
from __future__ import annotations

import json
import math
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

SCHEMA = "cuda-lessons/probe/v1"
MAX_FILE_BYTES = 64 << 20      # a verdict file larger than this is not read (a probe writes a few MB)
MAX_PROBLEMS = 3               # mismatches named in a reason; the rest are counted


class ProbeOutputError(Exception):
    """A probe's output is missing, too large, or not the probe schema."""


def read_untrusted(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file a sandboxed process wrote, read here, outside the sandbox: a regular file only,
    opened without following a link and without waiting, at most `limit` bytes. A probe that swaps its output
    for a link (to the instructor's answers beside it, to any file the grader can read), a FIFO (the grader
    would wait for ever) or a device gets a refusal."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ProbeOutputError("the probe wrote no output file")
    except OSError:
        raise ProbeOutputError("the probe's output is not a plain file (a link, or not readable): refused")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ProbeOutputError("the probe's output is not a plain file (a FIFO, device or folder): refused")
        if info.st_size > limit:
            raise ProbeOutputError(f"the probe's output is {info.st_size} bytes (more than {limit})")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise ProbeOutputError(f"the probe's output is more than {limit} bytes")
    return data


def load_cases(path: Path) -> dict:
    raw = read_untrusted(path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ProbeOutputError(f"the probe's output is not JSON ({type(error).__name__})")
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("cases"), list):
        raise ProbeOutputError(f"the probe's output is not {SCHEMA}")
    return data


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _show(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def value_problem(got, want, tolerance) -> str | None:
    """Why `got` is not `want` under `tolerance` ("exact" or {"rtol", "atol"} from the instructor's file)."""
    if tolerance == "exact" or not _is_number(want):
        if _is_number(got) and _is_number(want):
            return None if got == want else f"got {_show(got)}, want {_show(want)}"
        return None if got == want and type(got) is type(want) else f"got {_show(got)}, want {_show(want)}"
    if not _is_number(got) or not math.isfinite(got):
        return f"got {_show(got)}, want {_show(want)}"
    bound = float(tolerance.get("atol", 0.0)) + float(tolerance.get("rtol", 0.0)) * abs(want)
    if abs(got - want) <= bound:
        return None
    return f"got {_show(got)}, want {_show(want)} (allowed difference {bound:.3g})"


def _tolerance(case: dict):
    tolerance = case.get("tolerance", "exact")
    if tolerance == "exact":
        return tolerance
    if isinstance(tolerance, dict) and all(_is_number(tolerance.get(k, 0.0)) for k in ("rtol", "atol")):
        return tolerance
    raise ProbeOutputError(f"case {case.get('name')!r}: the instructor's tolerance is malformed")


def compare_values(got: list, want: list, tolerance) -> tuple[int, str | None]:
    """(number of mismatching values, a description of the first)."""
    if not isinstance(got, list):
        return len(want) or 1, "not a list of values"
    if len(got) != len(want):
        return max(len(want), 1), f"{len(got)} values, want {len(want)}"
    wrong, first = 0, None
    for index, (g, w) in enumerate(zip(got, want)):
        problem = value_problem(g, w, tolerance)
        if problem:
            wrong += 1
            if first is None:
                first = f"value {index}: {problem}"
    return wrong, first


def compare_cases(student: dict, reference: dict) -> list[str]:
    """Every way the student's cases differ from the reference's (empty: they agree)."""
    problems: list[str] = []
    theirs = {}
    for case in student.get("cases", []):
        if isinstance(case, dict) and isinstance(case.get("name"), str):
            theirs.setdefault(case["name"], case)
    for case in reference["cases"]:
        name = case["name"]
        mine = theirs.get(name)
        if mine is None:
            problems.append(f"case '{name}': missing")
            continue
        wrong, first = compare_values(mine.get("values"), case["values"], _tolerance(case))
        if wrong:
            problems.append(f"case '{name}': {wrong} of {len(case['values'])} values wrong; {first}")
    return problems


def summarize(problems: list[str]) -> str:
    shown = "; ".join(problems[:MAX_PROBLEMS])
    more = len(problems) - MAX_PROBLEMS
    return shown + (f"; and {more} more case(s)" if more > 0 else "")


def compare_checks(student: dict, reference: dict) -> list[str]:
    """A timed run's per-repetition checks against the reference run's for the same nonce."""
    want = reference.get("checks")
    got = student.get("checks")
    if student.get("nonce") != reference.get("nonce"):
        return ["the timed run answered another nonce"]
    if not isinstance(got, list) or len(got) != len(want):
        return [f"{len(got) if isinstance(got, list) else 0} repetitions checked, want {len(want)}"]
    tolerance = _tolerance({"name": "timed checks", "tolerance": reference.get("tolerance", "exact")})
    problems = []
    for rep, (g, w) in enumerate(zip(got, want)):
        wrong, first = compare_values(g, w, tolerance)
        if wrong:
            problems.append(f"repetition {rep}: {first}")
    return problems


class MalformedDone(ProbeOutputError):
    """A `done` record (it stops the grader's clock) whose fields are not the protocol's."""


def parse_done(line: str) -> dict:
    """A `done` record: {"done": true, "checks": [...], "ran": [strings] (absent: none observed), ...}.
    ProbeOutputError for a line that is not one; MalformedDone for one whose `ran` is not a list of strings."""
    try:
        done = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        raise ProbeOutputError("the timed run's last line is not its `done` record")
    if not isinstance(done, dict) or done.get("done") is not True or not isinstance(done.get("checks"), list):
        raise ProbeOutputError("the timed run's last line is not its `done` record")
    ran = done.get("ran", [])
    if not isinstance(ran, list) or not all(isinstance(item, str) for item in ran):
        raise MalformedDone("malformed done record: its `ran` is not a list of strings")
    return done


def ran(done: dict) -> frozenset[str]:
    """What the probe observed of the exercise's own call (the done record's `ran`; absent: nothing)."""
    return frozenset(done.get("ran", []))


# ---------------------------------------------------------------------------------------------------------
# self-test (ctest -L probe): the instructor's probe agrees with itself
# ---------------------------------------------------------------------------------------------------------

def _verdict_run(probe: str, seed: int, folder: Path, name: str) -> dict:
    out = folder / name
    result = subprocess.run([probe, "--seed", str(seed), "--out", str(out)], capture_output=True, text=True,
                            timeout=600)
    if result.returncode == 77:
        raise SystemExit(77)
    if result.returncode != 0:
        raise SystemExit(f"{probe}: exit {result.returncode}: {result.stderr.strip()[-400:]}")
    return load_cases(out)


def _timed_run(probe: str, seed: int, variant: str, nonce: int) -> dict:
    process = subprocess.Popen([probe, "--seed", str(seed), "--time", variant, "--reps", "3", "--warmup", "1"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ready = process.stdout.readline().strip()
    if ready != "ready":
        process.kill()
        code = process.wait()
        if code == 77:
            raise SystemExit(77)
        raise SystemExit(f"{probe} --time {variant}: said {ready!r} instead of ready (exit {code})")
    out, _ = process.communicate(f"go {nonce}\n", timeout=600)
    if process.returncode != 0:
        raise SystemExit(f"{probe} --time {variant}: exit {process.returncode}")
    return parse_done(out.strip().splitlines()[-1] if out.strip() else "")


def self_test(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print("usage: probe_check.py self-test PROBE [--timed]", file=sys.stderr)
        return 2
    probe, timed = argv[0], "--timed" in argv[1:]
    seed = int.from_bytes(os.urandom(4), "little")
    with tempfile.TemporaryDirectory() as folder:
        first = _verdict_run(probe, seed, Path(folder), "a.json")
        second = _verdict_run(probe, seed, Path(folder), "b.json")
    if not first["cases"]:
        print(f"{probe}: wrote no cases", file=sys.stderr)
        return 1
    problems = compare_cases(second, first)
    if problems:
        print(f"{probe} --seed {seed}: two runs disagree: {summarize(problems)}", file=sys.stderr)
        return 1
    print(f"{probe} --seed {seed}: {len(first['cases'])} cases, identical in two runs")
    if timed:
        nonce = int.from_bytes(os.urandom(8), "little")
        exercise = _timed_run(probe, seed, "exercise", nonce)
        reference = _timed_run(probe, seed, "reference", nonce)
        problems = compare_checks(exercise, reference)
        if problems:
            print(f"{probe}: timed checks of exercise vs reference disagree: {summarize(problems)}", file=sys.stderr)
            return 1
        print(f"{probe}: timed checks of exercise and reference agree ({len(reference['checks'])} repetitions)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "self-test":
        sys.exit(self_test(sys.argv[2:]))
    print("usage: probe_check.py self-test PROBE [--timed]", file=sys.stderr)
    sys.exit(2)
