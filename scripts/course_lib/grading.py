"""Grading a tree: copy the submission, put the instructor's files back over it, build its grading probes
and score each exercise by the probes' raw outputs against the instructor's build (verdicts.py) and, for an
optimize exercise, by the grader's own clock (outside_timing.py); exercise_grading.py grades one exercise."""
from __future__ import annotations

import datetime
import fnmatch
import math
import os
import shutil
import threading
import time
from pathlib import Path

from . import sandbox as sandboxing
from . import scoring
from .build import Build, build_env, first_compiler_error, one_line
from .errors import UsageError
from .options import GradeOptions
from .exercise_grading import Grader
from .verdicts import NO_PERF_POINTS, InstructorBuilds, probe_target
from .proc import git_head, run
from .tree import Course, Exercise


GRADE_SCHEMA = "cuda-lessons/grade/v1"
# Files a student has no reason to change and could change to fake a pass: grading takes the
# instructor's copy (their handout form) over the student's.
TEST_PATTERNS = ("*/tests/*", "tests/*")  # folders whose extra (student-added) files the grader removes
SCORE_RULE = ("an exercise scores its points when its grading probe, built from the student's files, writes the "
              "same outputs as the instructor's build for inputs drawn from the grade's seed (and, where the "
              "exercise names a sanitizer, compute-sanitizer finds no error), else 0; what the student's code "
              "prints or exits with decides nothing")
PERF_RULE = scoring.RULE


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
        listing = [str(path.relative_to(source)) for path in source.rglob("*")]
    # Never a build folder, committed or not: a CMakeCache.txt of the student's would configure the graded
    # build (a compiler launcher of their choosing, run inside the build's sandbox).
    listing = [rel for rel in listing if not _build_output(Path(rel))]
    for rel in listing:
        src = source / rel
        if src.is_symlink() or not src.is_file():
            continue
        write_if_changed(dest / rel, src.read_bytes(), src.stat().st_mode)


def _build_output(rel: Path) -> bool:
    top = rel.parts[0] if rel.parts else ""
    return (top in (".git", "build") or top.startswith("build-") or rel.name == "CMakeCache.txt"
            or "CMakeFiles" in rel.parts)


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
               progress=None, instructor: InstructorBuilds | None = None) -> dict:
    """Grades one student tree in `work` (its own copy and build folder). Never raises for anything
    the submission does; returns the report (schema cuda-lessons/grade/v1). `instructor`: the instructor's
    builds to compare with (a gradebook shares one); by default built in `work`/instructor."""
    say = progress or (lambda text: None)
    stubbed = set(options.exercises)
    if not (submission / "CMakeLists.txt").is_file():
        raise UsageError(f"{submission}: not a course tree (no CMakeLists.txt at its top)")
    clock = Stopwatch()
    tree = work / "tree"
    copy_submission(submission, tree)
    # The exercises a graded one's reference runs (perf.requires) stay the student's too.
    required = {r for i in stubbed for r in (course.exercises[i].perf or {}).get("requires", [])}
    overlay_instructor(course, tree, stubbed | required)
    clock.lap("prepare")
    report = new_report(course, submission, options)
    entries = {e["id"]: e for e in report["exercises"]}
    env = grade_env(work, options)
    build = Build(tree, tree / "build", env, options.jobs, grade_cmake_args(options))
    build.sandbox = options.sandbox
    if instructor is None:
        instructor = instructor_builds(course, work / "instructor", options)
    # The instructor's trees build beside the student's (a failure there is reported per exercise later).
    preparing = threading.Thread(target=_prepare_quietly, args=(instructor, list(options.exercises)), daemon=True)
    preparing.start()
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
    preparing.join()
    clock.lap("build")
    grader = Grader(course, build, instructor, submission, work, env, options, entries)
    for exercise_id, outputs in needs.items():
        grade_built_exercise(grader, course.exercises[exercise_id], outputs, say)
    clock.lap("exercises")
    return finish_report(report, clock)


def _prepare_quietly(instructor: InstructorBuilds, exercise_ids: list[str]) -> None:
    try:
        instructor.prepare(exercise_ids)
    except Exception:  # the same failure is met, and reported per exercise, when the grade asks for the build
        pass


def grade_env(work: Path, options: GradeOptions) -> dict:
    env = build_env(work, {"COURSE_SEED": str(options.seed)})
    if options.gpu:
        env["REQUIRE_GPU"] = "1"  # a GPU machine must not pass a GPU exercise by skipping it
    return env


def grade_cmake_args(options: GradeOptions) -> list[str]:
    return [f"-DCOURSE_EXERCISE_TIMEOUT={int(math.ceil(options.timeout))}"]


def instructor_builds(course: Course, folder: Path, options: GradeOptions) -> InstructorBuilds:
    """The instructor's trees a grade compares with, in `folder`: built once for every grade that shares
    them (a gradebook's students, check-wrong's known-wrong answers)."""
    return InstructorBuilds(course, folder, options, grade_env(folder, options), grade_cmake_args(options))


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
        if course.is_handout:  # a self-check runs the chapter's exercise tests (exercise_grading.self_check)
            unregistered = [t for t in exercise.tests if t not in build.tests]
            if unregistered:
                entry.update(status="error", reason=f"test {unregistered[0]} is not registered in this tree")
                continue
            gradable.append(exercise_id)
            continue
        missing = [i for i in (exercise_id, *((exercise.perf or {}).get("requires", [])))
                   if build.target_artifact(probe_target(i)) is None]
        if missing:
            entry.update(status="error", reason=f"{probe_target(missing[0])} is not a target of this tree (every "
                         "exercise needs its grading probe: course_add_probe in its chapter's CMakeLists.txt)")
            continue
        gradable.append(exercise_id)
    return gradable


def outputs_needed(course: Course, entries: dict, gradable: list[str], build: Build) -> dict[str, list[str]]:
    """Per gradable exercise, the build outputs its grade runs: its probe, and for an optimize exercise the
    probes of the exercises its reference requires."""
    needs: dict[str, list[str]] = {}
    for exercise_id in gradable:
        exercise = course.exercises[exercise_id]
        if course.is_handout:
            needs[exercise_id] = build.artifacts(exercise.tests)
            continue
        ids = [exercise_id, *((exercise.perf or {}).get("requires", []))]
        needs[exercise_id] = [build.target_artifact(probe_target(i)) for i in ids]
    return needs


def build_outputs(build: Build, needs: dict[str, list[str]]) -> None:
    all_outputs = sorted({o for outs in needs.values() for o in outs})
    for output in all_outputs:
        # A build folder graded before (check-wrong reuses one) must not pass off an earlier program as
        # this tree's when this tree's does not compile: only the link is redone.
        (build.folder / output).unlink(missing_ok=True)
    if all_outputs:
        build.build(all_outputs)


def grade_built_exercise(grader: Grader, exercise: Exercise, outputs: list[str], say) -> None:
    """One exercise's grade once the tree is built: a compile error of its own, or its probe (and timing)
    run, holding the GPU lock where it needs the GPU or a stable clock."""
    entry, build = grader.graded[exercise.id], grader.build
    started = time.monotonic()
    unbuilt = [o for o in outputs if not build.built(o)]
    if unbuilt:
        # Build them again alone: the first error of this run is this exercise's own.
        _, log = build.build(unbuilt)
        reason = f"does not compile: {first_compiler_error(log, build.source)}"
        if exercise.perf:
            reason = f"{NO_PERF_POINTS} (not timed): {reason}"
        entry.update(status="compile_error", reason=reason, wall_s=round(time.monotonic() - started, 3))
        return
    say(f"exercise {exercise.id}")
    lock = grader.options.gpu_lock if exercise.gpu or exercise.perf else None
    if lock:
        lock.acquire()
        started = time.monotonic()  # waiting for the GPU (gradebook --jobs) is not grading time
    try:
        grader.grade(exercise, entry)
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
