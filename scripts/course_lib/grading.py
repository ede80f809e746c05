"""Grading a tree: copy the submission, put the instructor's files back over it, build it and the
untouched stub, and score each exercise by its tests (and its timing: perf.py)."""
from __future__ import annotations

import datetime
import fnmatch
import math
import os
import shutil
import time
from pathlib import Path

from . import sandbox as sandboxing
from .build import Build, build_env, first_compiler_error, one_line
from .errors import UsageError
from .options import GradeOptions
from .perf import NO_PERF_POINTS, PERF_RULE, grade_perf
from .proc import git_head, run
from .tree import Course, Exercise


GRADE_SCHEMA = "cuda-lessons/grade/v1"
# Files a student has no reason to change and could change to fake a pass: grading takes the
# instructor's copy (their handout form) over the student's.
TEST_PATTERNS = ("*/tests/*", "tests/*")  # folders whose extra (student-added) files the grader removes
SCORE_RULE = "an exercise scores its points when every one of its tests passes, else 0"


def copy_submission(source: Path, dest: Path) -> None:
    """The student's files: in a git work tree the tracked and untracked-but-not-ignored ones (what
    the student sees as their work), elsewhere everything but build folders and .git."""
    dest.mkdir(parents=True, exist_ok=True)
    listing = None
    if (source / ".git").exists() and shutil.which("git"):
        result = run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        if result.returncode == 0:
            listing = [p for p in result.stdout.split("\0") if p]
    if listing is None:
        listing = []
        for path in source.rglob("*"):
            rel = path.relative_to(source)
            if rel.parts[0] == ".git" or rel.parts[0] == "build" or rel.parts[0].startswith("build-"):
                continue
            listing.append(str(rel))
    for rel in listing:
        src = source / rel
        if src.is_symlink() or not src.is_file():
            continue
        write_if_changed(dest / rel, src.read_bytes(), src.stat().st_mode)


def write_if_changed(target: Path, data: bytes, mode: int | None = None) -> None:
    """Writes `data` unless `target` holds it already. A file left alone keeps its time stamp, so that a
    build folder graded again (check-wrong grades one tree after another in one) rebuilds only what
    changed."""
    try:
        same = target.read_bytes() == data
    except OSError:
        same = False
    if not same:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if mode is not None:
        os.chmod(target, mode & 0o777)


def overlay_instructor(course: Course, tree: Path, stubbed: set[str]) -> list[str]:
    """Puts the instructor's copy of every handout file over the student's tree (tests, metadata, build
    files, and the sources too: the references an optimize exercise is timed against, the timing
    harness, common/), except the files the graded exercises ask the student to edit, which stay the
    student's wherever they are. A file the handout does not have (a student's own helper) is left alone;
    a student's extra files in a tests/ folder are removed."""
    own = {f for i in stubbed for f in course.exercises[i].files}
    instructor = {p for p in course.handout_files if p not in own}
    for folder in sorted({Path(p).parent for p in instructor if "tests" in Path(p).parts
                          and any(fnmatch.fnmatchcase(p, q) for q in TEST_PATTERNS)}):
        if (tree / folder).is_dir():  # a student's extra test files go too
            for extra in sorted((tree / folder).rglob("*")):
                rel = extra.relative_to(tree).as_posix()
                if (extra.is_file() or extra.is_symlink()) and rel not in instructor and rel not in own:
                    extra.unlink()
    written = []
    for path in sorted(instructor):
        text = course.handout_text(path, stubbed)
        data = (course.root / path).read_bytes() if text is None else text.encode("utf-8")
        write_if_changed(tree / path, data, (course.root / path).stat().st_mode)
        written.append(path)
    return written


def grade_tree(course: Course, submission: Path, work: Path, options: GradeOptions,
               progress=None) -> dict:
    """Grades one student tree in `work` (its own copy and build folder). Never raises for anything
    the submission does; returns the report (schema cuda-lessons/grade/v1)."""
    say = progress or (lambda text: None)
    stubbed = set(options.exercises)
    if not (submission / "CMakeLists.txt").is_file():
        raise UsageError(f"{submission}: not a course tree (no CMakeLists.txt at its top)")
    clock = Stopwatch()
    tree = work / "tree"
    copy_submission(submission, tree)
    # The exercises a graded one's reference runs (perf.requires) keep their tests registered too.
    required = {r for i in stubbed for r in (course.exercises[i].perf or {}).get("requires", [])}
    overlay_instructor(course, tree, stubbed | required)
    clock.lap("prepare")
    report = new_report(course, submission, options)
    entries = {e["id"]: e for e in report["exercises"]}
    env = build_env(work, {"COURSE_SEED": str(options.seed)})
    if options.gpu:
        env["REQUIRE_GPU"] = "1"  # a GPU machine must not pass a GPU exercise by skipping it
    build = Build(tree, tree / "build", env, options.jobs,
                  [f"-DCOURSE_EXERCISE_TIMEOUT={int(math.ceil(options.timeout))}"])
    build.sandbox = options.sandbox
    say("configure")
    ok, why = build.configure()
    clock.lap("configure")
    if not ok:
        for entry in entries.values():
            entry.update(status="compile_error", reason=why)
        return finish_report(report, clock)
    needs = outputs_needed(course, entries, gradable_exercises(course, entries, build, options), build)
    say("build")
    build_outputs(build, needs)
    clock.lap("build")
    for exercise_id, outputs in needs.items():
        grade_built_exercise(course, course.exercises[exercise_id], entries, outputs, build, tree, submission,
                             env, options, say)
    clock.lap("exercises")
    return finish_report(report, clock)


def new_report(course: Course, submission: Path, options: GradeOptions) -> dict:
    """The report before any build: what was graded, how, and one entry per exercise at 0 points."""
    entries = []
    for exercise_id in options.exercises:
        exercise = course.exercises[exercise_id]
        entries.append({
            "id": exercise_id, "title": exercise.title, "kind": exercise.kind, "gpu": exercise.gpu,
            "points": 0, "max_points": exercise.points, "status": "", "reason": "", "tests": [], "perf": None,
            "wall_s": 0.0})
    return {
        "schema": GRADE_SCHEMA,
        "submission": str(submission),
        "commit": git_head(submission),
        "instructor_commit": git_head(course.root),
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "seed": options.seed,
        "timeout_s": options.timeout,
        "gpu": options.gpu_name if options.gpu else None,
        "sandbox": sandboxing.describe(options.sandbox),
        "rules": {"score": SCORE_RULE, "perf": PERF_RULE},
        "points": 0,
        "max_points": 0,
        "exercises": entries,
    }


def finish_report(report: dict, clock: Stopwatch) -> dict:
    report["points"] = sum(e["points"] for e in report["exercises"])
    report["max_points"] = sum(e["max_points"] for e in report["exercises"])
    report["timing"] = clock.report()
    return report


def gradable_exercises(course: Course, entries: dict, build: Build, options: GradeOptions) -> list[str]:
    """The exercises this machine and this configured tree can grade; the others' entries say why not."""
    gradable = []
    for exercise_id, entry in entries.items():
        exercise = course.exercises[exercise_id]
        if exercise.gpu and not options.gpu:
            entry.update(status="needs_gpu", reason="not graded: needs a GPU")
            continue
        missing = [t for t in exercise.tests if t not in build.tests]
        if missing:
            entry.update(status="error", reason=f"test {missing[0]} is not registered in this tree "
                         "(instructor's metadata and CMake disagree)")
            continue
        gradable.append(exercise_id)
    return gradable


def outputs_needed(course: Course, entries: dict, gradable: list[str], build: Build) -> dict[str, list[str]]:
    """Per gradable exercise, the build outputs its grade runs: its tests' programs, and for an optimize
    exercise those of the exercises its reference requires and its perf program."""
    needs: dict[str, list[str]] = {}
    for exercise_id in gradable:
        exercise = course.exercises[exercise_id]
        outputs = build.artifacts(exercise.tests)
        if exercise.perf:
            for required in exercise.perf.get("requires", []):
                outputs += [o for o in build.artifacts(course.exercises[required].tests) if o not in outputs]
            program = build.target_artifact(exercise.perf["program"])
            if program is None:
                entries[exercise_id].update(status="error", reason=f"perf program {exercise.perf['program']} "
                                            "is not a target of this tree")
                continue
            outputs.append(program)
        needs[exercise_id] = outputs
    return needs


def build_outputs(build: Build, needs: dict[str, list[str]]) -> None:
    all_outputs = sorted({o for outs in needs.values() for o in outs})
    for output in all_outputs:
        # A build folder graded before (check-wrong reuses one) must not pass off an earlier program as
        # this tree's when this tree's does not compile: only the link is redone.
        (build.folder / output).unlink(missing_ok=True)
    if all_outputs:
        build.build(all_outputs)


def grade_built_exercise(course: Course, exercise: Exercise, entries: dict, outputs: list[str], build: Build,
                         tree: Path, submission: Path, env: dict, options: GradeOptions, say) -> None:
    """One exercise's grade once the tree is built: a compile error of its own, or its tests (and timing)
    run, holding the GPU lock where it needs the GPU or a stable clock."""
    entry = entries[exercise.id]
    started = time.monotonic()
    unbuilt = [o for o in outputs if not build.built(o)]
    if unbuilt:
        # Build them again alone: the first error of this run is this exercise's own.
        _, log = build.build(unbuilt)
        reason = f"does not compile: {first_compiler_error(log, tree)}"
        if exercise.perf:
            reason = f"{NO_PERF_POINTS} (not timed): {reason}"
        entry.update(status="compile_error", reason=reason, wall_s=round(time.monotonic() - started, 3))
        return
    say(f"exercise {exercise.id}")
    lock = options.gpu_lock if exercise.gpu or exercise.perf else None
    if lock:
        lock.acquire()
        started = time.monotonic()  # waiting for the GPU (gradebook --jobs) is not grading time
    try:
        grade_exercise(course, exercise, entry, build, tree, submission, env, options, graded=entries)
    finally:
        entry["wall_s"] = round(time.monotonic() - started, 3)
        if lock:
            lock.release()


class Stopwatch:
    """Wall time of a grade, by phase: what an instructor plans a class's grading with."""

    def __init__(self):
        self.started = self.last = time.monotonic()
        self.phases: dict[str, float] = {}

    def lap(self, phase: str) -> None:
        now = time.monotonic()
        self.phases[phase] = self.phases.get(phase, 0.0) + now - self.last
        self.last = now

    def report(self) -> dict:
        timing = {f"{phase}_s": round(seconds, 3) for phase, seconds in self.phases.items()}
        timing["total_s"] = round(time.monotonic() - self.started, 3)
        return timing


def grade_exercise(course: Course, exercise: Exercise, entry: dict, build: Build, tree: Path,
                   submission: Path, env: dict, options: GradeOptions, graded: dict[str, dict] | None = None) -> None:
    for test in exercise.tests:
        result = build.run_test(test, options.timeout, env)
        entry["tests"].append({"name": test, "status": result.status, "seconds": round(result.seconds, 3),
                               "reason": result.reason, "output": result.output})
        if result.status != "pass":
            status = {"skipped": "needs_gpu" if exercise.gpu else "error", "not_run": "compile_error"}.get(
                result.status, result.status)
            reason = result.reason
            if status == "needs_gpu":
                reason = "not graded: needs a GPU (the test was skipped)"
            elif status == "error" and result.status == "skipped":
                reason = f"{test} was skipped (exit 77) but exercise {exercise.id} is a CPU exercise"
            else:
                if status == "fail":
                    reason = f"failed: {reason}"
                if test != f"exercise.{exercise.id}":
                    reason = f"{test}: {reason}"
                if exercise.perf and status != "error":
                    reason = f"{NO_PERF_POINTS} (not timed): {reason}"
                if status == "fail" and untouched(course, exercise, submission, set(options.exercises)):
                    status = "not_done"
                    reason = f"not done ({', '.join(exercise.files)} as handed out): {reason}"
            entry.update(status=status, reason=reason)
            return
    if not exercise.perf:
        entry.update(status="pass", points=exercise.points, reason="")
        return
    if not required_exercises_pass(course, exercise, entry, build, env, options, graded):
        if untouched(course, exercise, submission, set(options.exercises)):
            entry.update(status="not_done", reason=f"not done ({', '.join(exercise.files)} as handed out): "
                         f"{entry['reason']}")
        return
    grade_perf(exercise, entry, build, env, options, stub=stub_side(course, exercise, build))
    if entry["points"] < exercise.points and untouched(course, exercise, submission, set(options.exercises)):
        entry.update(status="not_done", reason=f"not done ({', '.join(exercise.files)} as handed out): "
                     f"{entry['reason']}")


def required_exercises_pass(course: Course, exercise: Exercise, entry: dict, build: Build, env: dict,
                            options: GradeOptions, graded: dict[str, dict] | None = None) -> bool:
    """perf.requires: the exercises whose code the reference runs (06.3 is timed against the pipeline that
    06.2 fixes). While one fails, the reference is not the instructor's, so the exercise is not timed against
    it and scores 0, saying which exercise to finish first. A required exercise graded earlier in this run
    (`graded`: its entry) keeps that verdict: running its tests again could give another (06.2's overlap test
    times the GPU), and the student would be scored on two answers to one question. Otherwise its tests run
    here."""
    for required in exercise.perf.get("requires", []):
        earlier = (graded or {}).get(required)
        if earlier is not None and earlier.get("tests"):
            if earlier["status"] not in ("pass", "partial"):
                entry.update(status="fail", points=0, reason=one_line(
                    f"not timed: the reference runs exercise {required}'s code, so {required} must pass first "
                    f"(it scored {earlier['status']} in this grade: {earlier['reason']})"))
                return False
            continue
        for test in course.exercises[required].tests:
            result = build.run_test(test, options.timeout, env)
            if result.status != "pass":
                entry.update(status="fail", points=0, reason=one_line(
                    f"not timed: the reference runs exercise {required}'s code, so {required} must pass first "
                    f"({test}: {result.status}: {result.reason})"))
                return False
    return True


def untouched(course: Course, exercise: Exercise, submission: Path, stubbed: set[str]) -> bool:
    """True when every file of the exercise is exactly as the handout gave it."""
    for path in exercise.files:
        try:
            theirs = (submission / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        if theirs != course.as_handed_out(path, stubbed):
            return False
    return True


def stub_side(course: Course, exercise: Exercise, build: Build) -> "Build | str":
    """The exercise's untouched stub, built beside the graded tree (a copy of it with the exercise's files as
    handed out, in the same sandbox) and timed in the same grade: what doing nothing scores. Only the perf
    program is built; the compiler cache makes it one source file. Returns why not when it cannot be built."""
    tree = build.source.parent / f"stub-{exercise.id}"
    if not tree.exists():
        shutil.copytree(build.source, tree, ignore=lambda folder, names: ["build"] if Path(folder) == build.source
                        else [])
        for path in exercise.files:
            text = course.as_handed_out(path, {exercise.id})
            if text is not None:
                write_if_changed(tree / path, text.encode("utf-8"))
    stub = Build(tree, tree / "build", build.env, build.jobs, build.cmake_args)
    stub.sandbox = build.sandbox
    ok, why = stub.configure()
    program = stub.target_artifact(exercise.perf["program"]) if ok else None
    if program is None:
        return why or f"{exercise.perf['program']} is not a target of the stub tree"
    built, log = stub.build([program])
    return stub if built else f"does not compile: {first_compiler_error(log, tree)}"
