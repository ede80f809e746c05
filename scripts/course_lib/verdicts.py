"""Verdicts and times from outside the student's process (issue 30).

An exercise with a grading probe (target probe_NN_k, common/include/common/probe.hpp) is graded by:
1. **correctness**: the probe, built in the student's tree, writes its raw outputs for the grade's seed; the same
   probe built in the instructor's tree (the answers) writes the reference's; `probe_check.compare_cases`
   compares them here, with the instructor's tolerances. Exit codes, printed summaries and files the student's
   process writes elsewhere decide nothing.
2. **sanitizer** (exercises.json "sanitizer"): the student's probe once more under compute-sanitizer, whose own
   exit code (`--error-exitcode`) says whether it found an error.
3. **time** (optimize exercises): `outside_timing.measure`: the grader's clock around the timed repetitions of
   the student's build, the reference and `none` (instructor's build) and the untouched stub (the instructor's
   tree with only this exercise as handed out), interleaved, answers checked in every round. Before any of
   it, own_work.refusal reads the exercise's own text in the student's files: code that names what it could
   hand the timed work to (the reference, another rung, a library: exercises.json perf.forbid), asks whether
   it is observed, or adds #define / #include / ## lines is not timed. While timed, what the probe observed of
   the student's call (`ran`) must be what it observed of the answer's, and every side but the one being
   clocked is frozen.

The instructor's trees (the answers; the optimize exercises' stubs) live in the grade's work folder (or the gradebook's, shared by every student: built once),
outside every sandbox that runs a student's code.

When a verdict is "wrong", the chapter's own tests of the exercise are run too, only to say why in words a
student can act on; their outcome never changes the verdict.
"""
from __future__ import annotations

import dataclasses
import shutil
import tempfile
import threading
from pathlib import Path

from . import outside_timing, probe_check, scoring
from .build import Build, first_compiler_error, one_line
from .handout import write_handout
from .options import GradeOptions
from .proc import run
from .tree import Course, Exercise

NO_PERF_POINTS = "no performance points without correctness"
SANITIZER_ERROR_EXIT = 99


def probe_target(exercise_id: str) -> str:
    return "probe_" + exercise_id.replace(".", "_")


class InstructorBuilds:
    """The instructor's trees a grade compares with: `answers` (every exercise answered) and `stubs` (every
    optimize exercise as handed out, the others answered). Built on first use or by `prepare`, once per grade,
    gradebook or check-wrong (thread-safe: gradebook --jobs shares one)."""

    def __init__(self, course: Course, folder: Path, options: GradeOptions, env: dict, cmake_args: list[str]):
        self.course, self.folder, self.options, self.env, self.cmake_args = course, folder, options, env, cmake_args
        self._lock = threading.Lock()
        self._builds: dict[str, Build | str] = {}
        self._cases: dict[tuple[str, int], dict | str] = {}

    def build(self, name: str, stubbed: list[str], targets: list[str]) -> Build | str:
        """The tree `name` built for `targets` (more targets on a later call are built then), or why not."""
        if self.course.is_handout:  # its "answers" would be its own stubs: every stub would match itself
            return "a handout holds no answers to compare with (grade it from the instructor's tree)"
        with self._lock:
            build = self._builds.get(name)
            if build is None:
                tree = self.folder / name
                if tree.exists():
                    shutil.rmtree(tree)
                tree.mkdir(parents=True)
                write_handout(self.course, tree, stubbed, git_commit=False)
                # Where students' code is built (a sandboxed grade or gradebook), your trees never share the
                # compiler cache those builds write: a cached object is trusted by whoever reads it. Your own
                # checks (handout --check, check-wrong: no sandbox, only your code) keep the cache.
                env = dict(self.env, CCACHE_DISABLE="1") if self.options.sandbox else dict(self.env)
                build = Build(tree, tree / "build", env, self.options.jobs, self.cmake_args)
                build.sandbox = dataclasses.replace(self.options.sandbox, cache=None) if self.options.sandbox else None
                ok, why = build.configure()
                if not ok:
                    build = f"the instructor's tree ({name}) does not configure: {why}"
                self._builds[name] = build
            if isinstance(build, str):
                return build
            missing = []
            for target in targets:
                artifact = build.target_artifact(target)
                if artifact is None:
                    return f"{target} is not a target of the instructor's tree"
                if not build.built(artifact):
                    missing.append(artifact)
            if missing:
                ok, log = build.build(missing)
                if not ok:
                    return f"the instructor's tree ({name}) does not build {', '.join(missing)}: " \
                           f"{first_compiler_error(log, build.source)}"
            return build

    def answers(self, targets: list[str]) -> Build | str:
        return self.build("answers", [], targets)

    def stub(self, exercise_id: str) -> Build | str:
        """The untouched stub of an optimize exercise: one tree for them all, every optimize exercise as handed
        out and every other one answered (no optimize exercise's reference runs another's code)."""
        optimize = sorted(i for i, e in self.course.exercises.items() if e.perf)
        return self.build("stubs", optimize, [probe_target(exercise_id)])

    def prepare(self, exercise_ids: list[str]) -> None:
        """Builds now what grading `exercise_ids` will compare with (run beside the student's build)."""
        ids = sorted({r for i in exercise_ids for r in [i, *((self.course.exercises[i].perf or {})
                                                                .get("requires", []))]})
        self.answers([probe_target(i) for i in ids])
        for i in exercise_ids:
            if self.course.exercises[i].perf:
                self.stub(i)

    def reference_cases(self, exercise_id: str, seed: int, timeout: float) -> dict | str:
        """The answers' probe output for `seed` (cached), or why it could not be made."""
        key = (exercise_id, seed)
        with self._lock:
            cached = self._cases.get(key)
        if cached is not None:
            return cached
        build = self.answers([probe_target(exercise_id)])
        if isinstance(build, str):
            result: dict | str = build
        else:
            result = run_probe(build, exercise_id, seed, self.folder / "outputs" / f"answers-{exercise_id}.json",
                               self.env, timeout)
            if isinstance(result, ProbeRun):
                result = result.cases if result.cases is not None else \
                    f"the instructor's probe {probe_target(exercise_id)} failed: {result.reason}"
        with self._lock:
            self._cases[key] = result
        return result


class ProbeRun:
    """One verdict run of a probe: its cases, or a status (fail, timeout, needs_gpu) and why not."""

    def __init__(self, status: str, reason: str = "", cases: dict | None = None, output: str = ""):
        self.status, self.reason, self.cases, self.output = status, reason, cases, output


def run_probe(build: Build, exercise_id: str, seed: int, out: Path, env: dict, timeout: float,
              sanitizer: str | None = None) -> ProbeRun:
    """Runs the probe of `build` (sandboxed where the build is) for `seed`, writing `out`."""
    program = build.folder / build.target_artifact(probe_target(exercise_id))
    out.parent.mkdir(parents=True, exist_ok=True)
    if build.sandbox is not None:
        # A folder of its own, empty, the only one the run may write: nothing an earlier run of the student's
        # code left (a file, a link, a folder under the name it writes) is there to be read as this run's.
        out = Path(tempfile.mkdtemp(prefix=f"{out.stem}-", dir=out.parent)) / out.name
    else:
        out.unlink(missing_ok=True)
    cmd = [str(program), "--seed", str(seed), "--out", str(out)]
    run_env = dict(env)
    if sanitizer:
        tool = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
        extra = ["--racecheck-report", "hazard"] if sanitizer == "racecheck" else []
        cmd = [tool, "--tool", sanitizer, *extra, "--error-exitcode", str(SANITIZER_ERROR_EXIT), *cmd]
        run_env["COURSE_SANITIZER"] = sanitizer
    result = run(build.sandboxed(cmd, writable=(out.parent,)), cwd=build.folder, env=run_env, timeout=timeout,
                 capped=True)
    text = result.stdout or ""
    if result.timed_out:
        return ProbeRun("timeout", f"timed out after {timeout:g} s", output=text)
    if result.returncode == 77:
        return ProbeRun("needs_gpu", "the probe needs a GPU", output=text)
    if sanitizer and result.returncode == SANITIZER_ERROR_EXIT:
        return ProbeRun("fail", f"compute-sanitizer {sanitizer} found errors: {sanitizer_line(text)}", output=text)
    if result.returncode != 0:
        return ProbeRun("fail", f"the probe run failed (exit {result.returncode}): {error_line(text)}", output=text)
    try:
        return ProbeRun("pass", cases=probe_check.load_cases(out), output=text)
    except probe_check.ProbeOutputError as error:
        return ProbeRun("fail", str(error), output=text)


def error_line(text: str) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return one_line(lines[-1], 200) if lines else "no message"


def sanitizer_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip("= \t")
        if stripped and ("Error" in stripped or "Hazard" in stripped or "hazard" in stripped):
            return one_line(stripped, 200)
    return error_line(text)


def check_correct(exercise: Exercise, build: Build, instructor: InstructorBuilds, options: GradeOptions,
                  env: dict, work: Path) -> tuple[str, str]:
    """(status, reason) of the correctness verdict: pass, fail, timeout, needs_gpu or error."""
    reference = instructor.reference_cases(exercise.id, options.seed, options.timeout)
    if isinstance(reference, str):
        return "error", reference
    mine = run_probe(build, exercise.id, options.seed, work / "outputs" / f"student-{exercise.id}.json", env,
                     options.timeout)
    if mine.status != "pass":
        return mine.status, mine.reason
    problems = probe_check.compare_cases(mine.cases, reference)
    if problems:
        return "fail", f"wrong output for the grader's inputs (seed {options.seed}): {probe_check.summarize(problems)}"
    tool = exercise.meta.get("sanitizer")
    if tool:
        checked = run_probe(build, exercise.id, options.seed, work / "outputs" / f"student-{exercise.id}-{tool}.json",
                            env, options.timeout, sanitizer=tool)
        if checked.status != "pass":
            return checked.status, checked.reason
    return "pass", ""


def grade_time(exercise: Exercise, entry: dict, build: Build, instructor: InstructorBuilds, options: GradeOptions,
               env: dict) -> None:
    """The performance points of an optimize exercise whose answer is correct (outside_timing's rule)."""
    perf = exercise.perf
    reps, warmup = int(perf.get("reps", 20)), int(perf.get("warmup", 2))
    record = {"probe": probe_target(exercise.id), "reps": reps, "warmup": warmup, "metric": "s per repetition",
              "method": "grader's clock, go to done, less the instructor build's `none`", "rule": scoring.RULE}
    entry["perf"] = record
    # The static layer (own_work.refusal) ran before any of the student's code was built (grading.grade_tree).
    answers = instructor.answers([probe_target(exercise.id)])
    stub = instructor.stub(exercise.id)
    for side, built in (("instructor's", answers), ("untouched stub's", stub)):
        if isinstance(built, str):
            entry.update(status="error", points=0, reason=one_line(f"the {side} build failed: {built}", 400))
            return
    sides = {"student": (build, "exercise"), "reference": (answers, "reference"), "stub": (stub, "exercise"),
             "answer": (answers, "exercise"), "none": (answers, "none")}

    def start(side: str) -> outside_timing.TimedSession:
        tree, variant = sides[side]
        program = tree.folder / tree.target_artifact(probe_target(exercise.id))
        cmd = tree.sandboxed([str(program), "--seed", str(options.seed), "--time", variant, "--reps", str(reps),
                              "--warmup", str(warmup)])
        return outside_timing.TimedSession(cmd, env, str(tree.folder), options.timeout)

    sessions: dict[str, outside_timing.TimedSession] = {}

    def run_side(side: str, nonce: int):
        # One process per side, set up once and clocked once per round, every side the same rounds in the same
        # order (a probe whose inputs evolve gives every side the same inputs). Only the side being clocked
        # runs: every other one is frozen, so a student's process cannot load the machine meanwhile.
        if side not in sessions:
            sessions[side] = start(side)
        session = sessions[side]
        # Right before the clock starts, every other side is checked to be stopped still (and stopped again):
        # helpers that woke up since their side was paused do not share the machine with this side's clock.
        for other_side, other in sessions.items():
            if other is not session and not other.frozen():
                raise outside_timing.TimedRunError(
                    "fail", f"the {other_side} side's processes could not be kept stopped while the {side} side "
                    "was clocked: not timed")
        session.resume()
        try:
            return session.clock(nonce)
        finally:
            session.pause()

    try:
        verdict = outside_timing.measure(run_side, reps, exercise.points, "s per repetition")
    except scoring.PerfFailure as failure:
        correctness = failure.status == "fail" and failure.correctness
        reason = f"{NO_PERF_POINTS}: {failure.reason}" if correctness else failure.reason
        entry.update(status=failure.status, points=0, reason=one_line(reason, 400))
        return
    finally:
        for session in sessions.values():
            session.close()
    record.update(time=verdict.time, reference_time=verdict.reference_time, ratio=verdict.ratio,
                  stub_ratio=verdict.stub_ratio, rounds=verdict.rounds)
    entry.update(status=verdict.status, points=verdict.points, reason=verdict.reason)
