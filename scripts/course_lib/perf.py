"""The optimize exercises' performance points: time the submission against the untouched stub and the
reference, by the rule of course_lib/scoring.py."""
from __future__ import annotations

import json
import math

from . import report_excerpt
from . import scoring
from .build import Build, one_line
from .options import GradeOptions
from .proc import run
from .tree import Exercise


PERF_RULE = scoring.RULE  # course_lib/scoring.py: the rule, and why, in docs/instructors.md
NO_PERF_POINTS = "no performance points without correctness"


def grade_perf(exercise: Exercise, entry: dict, build: Build, env: dict, options: GradeOptions,
               stub: "Build | str | None" = None) -> None:
    """Times the student's build against the untouched stub's (`stub`: its Build, or why it could not be
    built), interleaved, by the rule of course_lib/scoring.py: nothing for doing nothing."""
    perf = exercise.perf
    args = perf["args"] if isinstance(perf["args"], list) else perf["args"].split()
    record = {"program": perf["program"], "args": args, "metric": perf["metric"], "rule": PERF_RULE}
    entry["perf"] = record
    if not isinstance(stub, Build):
        entry.update(status="error", points=0, reason=one_line(f"the untouched stub could not be built to time "
                     f"against: {stub or 'no stub build'}"))
        return

    def on_stub():
        try:
            return timed_run(exercise, stub, env, options, record)
        except scoring.PerfFailure as failure:
            raise scoring.PerfFailure("error", f"the untouched stub's timing run failed: {failure.reason}")

    try:
        verdict = scoring.measure(lambda: timed_run(exercise, build, env, options, record), on_stub,
                                  exercise.points, perf["metric"])
    except scoring.PerfFailure as failure:
        entry.update(status=failure.status, points=0, reason=one_line(failure.reason, 400))
        return
    record.update(time=verdict.time, reference_time=verdict.reference_time, ratio=verdict.ratio,
                  stub_ratio=verdict.stub_ratio, rounds=verdict.rounds)
    entry.update(status=verdict.status, points=verdict.points, reason=verdict.reason)


def timed_run(exercise: Exercise, build: Build, env: dict, options: GradeOptions, record: dict) -> tuple[float, float]:
    """One run of the exercise's perf program in `build` (sandboxed): (T, T_ref) of that process."""
    perf = exercise.perf
    program = build.folder / build.target_artifact(perf["program"])
    out = build.source.parent / f"perf-{build.source.name}" / f"perf-{exercise.id}.json"  # the one writable folder
    out.parent.mkdir(exist_ok=True)
    out.unlink(missing_ok=True)  # never read an earlier run's results
    result = run(build.sandboxed([str(program), *record["args"], "--json", str(out)], writable=(out.parent,)),
                 cwd=build.folder, env=env, timeout=options.timeout, capped=True)
    if result.timed_out:
        raise scoring.PerfFailure("timeout", f"perf run timed out after {options.timeout:g} s")
    if result.returncode == 77:
        raise scoring.PerfFailure("needs_gpu", "not graded: the perf program needs a GPU")
    if result.returncode != 0:
        # The program checks both variants before it reports their times: a failed run is no timing.
        raise scoring.PerfFailure("fail", f"perf run failed (exit {result.returncode}): "
                                  f"{report_excerpt.error_line(result.stdout)}; {NO_PERF_POINTS}")
    try:
        rows = json.loads(out.read_text())["rows"]
        key = perf.get("variant_key") or next(k for k in ("variant", "kernel", "name") if k in rows[0])
        by_variant: dict[str, list[float]] = {}
        for row in rows:
            by_variant.setdefault(str(row[key]), []).append(float(row[perf["metric"]]))
        reference = perf["reference_variant"]
        student = perf.get("student_variant") or next(
            iter(v for v in by_variant if v != reference))
        if len(by_variant.get(reference, [])) != 1 or len(by_variant.get(student, [])) != 1:
            raise ValueError(f"want one row each of {reference} and {student}")
        t_ref, t = by_variant[reference][0], by_variant[student][0]
        if not (t_ref > 0 and t > 0 and math.isfinite(t) and math.isfinite(t_ref)):
            raise ValueError(f"{perf['metric']} must be positive")
    except (OSError, ValueError, KeyError, StopIteration, IndexError, TypeError) as error:
        raise scoring.PerfFailure("error", f"perf results unreadable ({error}); the exercise's perf settings "
                                  "do not match its program")
    record.update(student_variant=student, reference_variant=reference)
    return t, t_ref
