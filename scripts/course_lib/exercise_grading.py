"""One exercise's grade, once the student's tree is built: correctness from the grading probe's raw outputs
against the instructor's (verdicts.py), then, for an optimize exercise, time from the grader's own clock
(outside_timing.py). Nothing the submission prints, exits with or writes outside the probe's output decides a
point (issue 30)."""
from __future__ import annotations

import time
from pathlib import Path

from . import report_excerpt
from .build import Build, one_line
from .options import GradeOptions
from .tree import Course, Exercise
from .verdicts import NO_PERF_POINTS, InstructorBuilds, check_correct, grade_time, probe_target

EXPLAIN_TIMEOUT_S = 120.0
SELF_CHECK = ("self-check, not the grade of record (a handout has no answers to compare with: the instructor's "
              "grader compares your probe's outputs with the answers)")


def untouched(course: Course, exercise: Exercise, submission: Path, stubbed: set[str]) -> bool:
    """True when every file of the exercise is exactly as the handout gave it."""
    for path in exercise.files:
        if (submission / path).is_symlink() or not (submission / path).is_file():
            return False  # a link or a FIFO is no handout file (and a FIFO would keep this read waiting)
        try:
            theirs = (submission / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        if theirs != course.as_handed_out(path, stubbed):
            return False
    return True


class Grader:
    """What grading one tree's exercises shares: the student's build, the instructor's builds, the options."""

    def __init__(self, course: Course, build: Build, instructor: InstructorBuilds, submission: Path, work: Path,
                 env: dict, options: GradeOptions, graded: dict[str, dict]):
        self.course, self.build, self.instructor = course, build, instructor
        self.submission, self.work, self.env, self.options, self.graded = submission, work, env, options, graded

    def untouched(self, exercise: Exercise) -> bool:
        return untouched(self.course, exercise, self.submission, set(self.options.exercises))

    def correctness(self, exercise: Exercise) -> tuple[str, str]:
        started = time.monotonic()
        status, reason = check_correct(exercise, self.build, self.instructor, self.options, self.env, self.work)
        if status == "needs_gpu" and self.options.gpu:
            status, reason = "error", "the probe found no GPU on a GPU grading machine"
        elif status == "needs_gpu" and not exercise.gpu:
            status, reason = "error", f"the probe of CPU exercise {exercise.id} asked for a GPU (exit 77)"
        self.graded[exercise.id]["tests"].append({
            "name": f"{probe_target(exercise.id)}: outputs against the instructor's", "status": status,
            "seconds": round(time.monotonic() - started, 3), "reason": reason, "output": ""})
        return status, reason

    def grade(self, exercise: Exercise, entry: dict) -> None:
        if self.course.is_handout:
            self.self_check(exercise, entry)
            return
        status, reason = self.correctness(exercise)
        if status != "pass":
            self._failed(exercise, entry, status, reason)
            return
        if not exercise.perf:
            entry.update(status="pass", points=exercise.points, reason="")
            return
        if not self.required_pass(exercise, entry):
            if self.untouched(exercise):
                entry.update(status="not_done", reason=f"not done ({', '.join(exercise.files)} as handed out): "
                             f"{entry['reason']}")
            return
        grade_time(exercise, entry, self.build, self.instructor, self.options, self.env)
        if entry["points"] < exercise.points and self.untouched(exercise):
            entry.update(status="not_done", reason=f"not done ({', '.join(exercise.files)} as handed out): "
                         f"{entry['reason']}")

    def _failed(self, exercise: Exercise, entry: dict, status: str, reason: str) -> None:
        if status == "needs_gpu":
            entry.update(status=status, reason="not graded: needs a GPU")
            return
        if status == "fail":
            # The probe's summary is cut before the explanation is added, so the words a student can act on
            # always reach the report.
            reason = f"failed: {one_line(reason, 320)}"
            why = self.explain(exercise)
            if why:
                reason += f" [the chapter's tests say: {why}]"
        if exercise.perf and status != "error":
            reason = f"{NO_PERF_POINTS} (not timed): {reason}"
        if status == "fail" and self.untouched(exercise):
            status = "not_done"
            reason = f"not done ({', '.join(exercise.files)} as handed out): {reason}"
        entry.update(status=status, reason=one_line(reason, 900))

    def self_check(self, exercise: Exercise, entry: dict) -> None:
        """A handout grading itself (a student's own `grade`, the handout's grade.yml): there are no answers to
        compare with, so the chapter's own exercise tests run instead, in the student's process: feedback, not
        a grade. An optimize exercise is not timed here (its time is graded against the instructor's build)."""
        for test in exercise.tests:
            result = self.build.run_test(test, self.options.timeout, self.env)
            entry["tests"].append({"name": test, "status": result.status, "seconds": round(result.seconds, 3),
                                   "reason": result.reason, "output": result.output})
            if result.status == "skipped":
                entry.update(status="needs_gpu", reason="not checked: needs a GPU (the test was skipped)")
                return
            if result.status != "pass":
                status = "not_done" if self.untouched(exercise) else "fail"
                entry.update(status=status, reason=one_line(f"{SELF_CHECK}: {test}: {result.status}: {result.reason}",
                                                            600))
                return
        if exercise.perf:
            entry.update(status="not_timed", points=0, reason=f"{SELF_CHECK}: the chapter's tests pass; its time is "
                         "graded only by the instructor's grader (measure it yourself: the exercise says how)")
            return
        entry.update(status="pass", points=exercise.points, reason=f"{SELF_CHECK}: the chapter's tests pass")

    def explain(self, exercise: Exercise) -> str:
        """The first failing assertion of the chapter's own tests of `exercise`: words a student can act on,
        for a verdict the probe already gave. Their outcome (and anything they print) changes no point."""
        outputs = self.build.artifacts(exercise.tests)
        if not outputs:
            return ""
        # Always through ninja (a no-op when up to date): a build folder graded before (check-wrong reuses
        # one) holds test programs of another tree, which must not answer for this one.
        ok, _ = self.build.build(outputs)
        if not ok:
            return ""
        for test in exercise.tests:
            result = self.build.run_test(test, min(self.options.timeout, EXPLAIN_TIMEOUT_S), self.env)
            if result.status != "pass":
                return report_excerpt.escape(one_line(f"{test}: {result.reason}", 300))
        return ""

    def required_pass(self, exercise: Exercise, entry: dict) -> bool:
        """perf.requires: the exercises whose code the reference runs (06.3 is timed against the pipeline 06.2
        fixes). One graded earlier in this grade keeps its verdict; the others are checked by their probes
        here. While one fails, the exercise is not timed and scores 0, saying which to finish first."""
        for required in exercise.perf.get("requires", []):
            earlier = self.graded.get(required)
            if earlier is not None and earlier.get("tests"):
                status, reason = earlier["status"], earlier["reason"]
            else:
                self.graded.setdefault(required, {"tests": []})
                status, reason = self.correctness(self.course.exercises[required])
            if status not in ("pass", "partial"):
                entry.update(status="fail", points=0, reason=one_line(
                    f"not timed: the reference runs exercise {required}'s code, so {required} must pass first "
                    f"(it scored {status} in this grade: {reason})"))
                return False
        return True
