"""Grading a tree: copy the submission, put the instructor's files back over it, build its grading probes
and score each exercise by the probes' raw outputs against the instructor's build (verdicts.py) and, for an
optimize exercise, by the grader's own clock (outside_timing.py); exercise_grading.py grades one exercise."""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
import os
import re
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
from .proc import git_head
from . import own_work
from .tree import HANDOUT_STAMP, Course, Exercise


GRADE_SCHEMA = "cuda-lessons/grade/v1"
SCORE_RULE = ("an exercise scores its points when its grading probe, built from the student's files, writes the "
              "same outputs as the instructor's build for inputs drawn from the grade's seed (and, where the "
              "exercise names a sanitizer, compute-sanitizer finds no error), else 0; what the student's code "
              "prints or exits with decides nothing")
PERF_RULE = scoring.RULE


def submission_listing(source: Path) -> list[str]:
    """The student's files: every regular file of the tree, never a build folder, .git, a link or anything under
    a link. Read without git: git run on a submission's repository would run what its own configuration
    names (a red-team submission's core.fsmonitor copied the instructor's answer over its own file, outside
    the sandbox, before the grader read it: 4/4 for the stub)."""
    listing = []
    for folder, subfolders, files in os.walk(source):  # links to folders are listed, never entered
        here = Path(folder)
        for name in files:
            path = here / name
            rel = path.relative_to(source)
            if not _build_output(rel) and path.is_file() and not path.is_symlink():
                listing.append(rel.as_posix())
        subfolders[:] = [d for d in subfolders if not (here / d).is_symlink()
                         and not _build_output((here / d).relative_to(source))]
    return sorted(listing)


def submission_commit(source: Path) -> str | None:
    """The commit a work tree's HEAD names, read from .git's files (no git program runs on a submission:
    submission_listing says why); None where there is none or it cannot be read plainly."""
    git_dir = source / ".git"
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip() if git_dir.is_dir() else ""
        if head.startswith("ref: "):
            ref = head[5:].strip()
            if not re.fullmatch(r"refs/[\w./-]+", ref) or ".." in ref:
                return None
            loose = git_dir / ref
            if loose.is_file() and not loose.is_symlink():
                head = loose.read_text(encoding="utf-8").strip()
            else:
                packed = (git_dir / "packed-refs").read_text(encoding="utf-8") if (git_dir / "packed-refs").is_file() else ""
                head = next((l.split()[0] for l in packed.splitlines() if l.endswith(" " + ref)), "")
    except (OSError, UnicodeDecodeError):
        return None
    return head if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", head) else None


def _build_output(rel: Path) -> bool:
    top = rel.parts[0] if rel.parts else ""
    return (top in (".git", "build") or top.startswith("build-") or rel.name == "CMakeCache.txt"
            or "CMakeFiles" in rel.parts)


def write_if_changed(target: Path, data: bytes, executable: bool = False) -> None:
    """Writes `data` unless `target` holds it already. A file left alone keeps its time stamp, so that a
    build folder graded again (check-wrong grades one tree after another in one; a grade lays each
    exercise's files in turn) rebuilds only what changed. Modes are the grader's (readable by the sandbox
    user), never the student's."""
    try:
        same = target.read_bytes() == data
    except OSError:
        same = False
    if not same:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    os.chmod(target, 0o755 if executable else 0o644)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclasses.dataclass
class GradedTree:
    """The graded copy of a submission, made, not received (issue 40): every file the instructor's handout
    has, as the handout has it (every exercise as handed out: never another exercise's solution), and of the
    student's files only those of the exercises being graded. Read once, before any of the student's code is
    built or run: `received` (their bytes), `ignored` (every other file of theirs that differs from the
    handout, one line each) and `hashes` (of every file laid in, checked again after each exercise)."""
    course: Course
    folder: Path
    base: dict[str, bytes]            # the handout's files, every exercise stubbed
    received: dict[str, bytes]        # the graded exercises' files, as the student's tree held them
    ignored: list[str]

    def own_files(self, exercise_ids) -> set[str]:
        return {f for i in exercise_ids for f in self.course.exercises[i].files}

    def lay(self, exercise_ids) -> dict[str, str]:
        """The tree with the student's files of `exercise_ids` (and every other exercise as handed out);
        returns the hash of every file it holds now."""
        theirs = self.own_files(exercise_ids) & self.received.keys()
        hashes = {}
        for path, data in self.base.items():
            if path in theirs:
                data = self.received[path]
            elif path in self.own_files(exercise_ids):  # an exercise file the student deleted stays missing
                (self.folder / path).unlink(missing_ok=True)
                continue
            write_if_changed(self.folder / path, data, os.access(self.course.root / path, os.X_OK))
            hashes[path] = sha256(data)
        for path in theirs - self.base.keys():
            write_if_changed(self.folder / path, self.received[path])
            hashes[path] = sha256(self.received[path])
        return hashes

    def edited(self, exercise_id: str) -> bool:
        """Whether the student changed any file of the exercise from the handout."""
        return any(self.received.get(f) != self.base.get(f) for f in self.course.exercises[exercise_id].files)

    def changed(self, hashes: dict[str, str]) -> str | None:
        """The first laid file whose bytes are no longer what was laid (student code wrote into the graded
        tree), or None."""
        for path, digest in sorted(hashes.items()):
            try:
                now = sha256((self.folder / path).read_bytes())
            except OSError:
                now = None
            if now != digest:
                return path
        extra = sorted(p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*")
                       if not p.is_dir() and not _build_output(p.relative_to(self.folder))
                       and p.relative_to(self.folder).as_posix() not in hashes)
        return extra[0] if extra else None


def handout_base(course: Course) -> dict[str, bytes]:
    """Every handout file as the handout holds it, every exercise stubbed: the instructor's tree rendered,
    or (a handout grading itself) its files of its first commit."""
    everything = set(course.exercises)
    base = {}
    for path in course.handout_files:
        if course.is_handout:
            text = course.as_handed_out(path, everything)
            if text is None:
                continue  # added after the handout was made: the student's, not the handout's
        else:
            text = course.handout_text(path, everything)
        base[path] = (course.root / path).read_bytes() if text is None else text.encode("utf-8")
    if HANDOUT_STAMP not in base:  # the graded tree is a handout (the build's probes are configured as in one)
        stamp = {"exercises": sorted(everything), "instructor_commit": git_head(course.root)}
        base[HANDOUT_STAMP] = (json.dumps(stamp, indent=2) + "\n").encode("utf-8")
    return base


def make_graded_tree(course: Course, submission: Path, folder: Path, exercise_ids) -> GradedTree:
    """Reads the submission once (its graded exercises' files; the list of what else differs) and lays the
    handout into `folder`: no student build file, preset, toolchain, header or test ever reaches it."""
    base = handout_base(course)
    graded = {f for i in exercise_ids for f in course.exercises[i].files}
    exercise_files = {f for e in course.exercises.values() for f in e.files}
    received, ignored = {}, []
    for rel in submission_listing(submission):
        if rel in graded:
            received[rel] = (submission / rel).read_bytes()
        elif (rel not in base or (submission / rel).read_bytes() != base[rel]) and not _stamp(rel):
            why = "its exercise is not graded here" if rel in exercise_files else "not an exercise file"
            ignored.append(f"{shown_name(rel)} ({why})")
    tree = GradedTree(course, folder, base, received, ignored)
    folder.mkdir(parents=True, exist_ok=True)
    return tree


def shown_name(rel: str) -> str:
    """A student's file name as the reports print it: as is when it is printable ASCII, else quoted with
    escapes (a name with a newline, a terminal escape or a look-alike of '/' forges no line of a report)."""
    return rel if rel.isascii() and rel.isprintable() else json.dumps(rel)


def _stamp(rel: str) -> bool:
    return rel == HANDOUT_STAMP  # written into every handout; the instructor's tree has none


def grade_tree(course: Course, submission: Path, work: Path, options: GradeOptions,
               progress=None, instructor: InstructorBuilds | None = None) -> dict:
    """Grades one student tree in `work` (its own graded tree, build folder and compiler cache); never raises
    for anything the submission does; returns the report (schema cuda-lessons/grade/v1). `instructor`: the
    instructor's builds (a gradebook shares one; by default built in `work`/instructor). Order (issue 40):
    the graded tree is made from the handout and the graded exercises' files, the static checks (own work,
    technique rules) read them and every laid file is hashed before any student code is built or run; then
    each exercise is built and graded with only its own files the student's (_grade_one), hashes compared."""
    say = progress or (lambda text: None)
    if not (submission / "CMakeLists.txt").is_file():
        raise UsageError(f"{submission}: not a course tree (no CMakeLists.txt at its top)")
    clock = Stopwatch()
    graded_ids = list(options.exercises)
    required = {r for i in graded_ids for r in (course.exercises[i].perf or {}).get("requires", [])}
    tree = make_graded_tree(course, submission, work / "tree", [*graded_ids, *sorted(required)])
    everything = tree.lay([*graded_ids, *sorted(required)])
    report = new_report(course, submission, options)
    report["ignored"] = tree.ignored
    entries = {e["id"]: e for e in report["exercises"]}
    # The static checks read the exercise's files as received (an exercise left as handed out is not the
    # student's text: its stub may call what an answer must not).
    refused = {i: own_work.refusal(course, course.exercises[i], tree.folder, set(course.exercises))
               for i in graded_ids if not course.is_handout and tree.edited(i)}
    clock.lap("prepare")
    env = grade_env(work, options)
    # The submission's own compiler cache: nothing it writes is read by another submission's or the
    # instructor's builds (the instructor's own checks, which build only the instructor's code, share one).
    cache = options.shared_cache or work / "ccache"
    env["CCACHE_DIR"] = str(cache.resolve())
    build = Build(tree.folder, tree.folder / "build", env, options.jobs, grade_cmake_args(options))
    if options.sandbox:
        build.sandbox = dataclasses.replace(options.sandbox, cache=cache)
    if instructor is None:
        instructor = instructor_builds(course, work / "instructor", options)
    # The instructor's trees build beside the student's (a failure there is reported per exercise later).
    preparing = threading.Thread(target=_prepare_quietly, args=(instructor, graded_ids), daemon=True)
    preparing.start()
    say("configure")
    ok, why = build.configure()
    clock.lap("configure")
    if not ok:
        for entry in entries.values():
            entry.update(status="compile_error", reason=why)
        preparing.join()
        return finish_report(report, clock)
    needs = outputs_needed(course, entries, gradable_exercises(course, entries, build, options), build)
    grader = Grader(course, build, instructor, submission, work, env, options, entries)
    laid = [*graded_ids, *sorted(required)]
    for exercise_id, outputs in needs.items():
        if refused.get(exercise_id):
            entries[exercise_id].update(status="fail", points=0, reason=one_line(refused[exercise_id], 400))
            continue
        _grade_one(grader, tree, laid, exercise_id, outputs, preparing, clock, say)
    preparing.join()
    tree.lay(laid)  # as read: every graded exercise's files the student's
    changed = tree.changed(everything)
    if changed:
        for entry in entries.values():
            entry.update(status="fail", points=0, reason=f"refused: {changed} of the graded tree changed")
    return finish_report(report, clock)


def _grade_one(grader: Grader, tree, laid: list[str], exercise_id: str, outputs, preparing: threading.Thread,
               clock: Stopwatch, say) -> None:
    """Builds and grades one exercise with only its own files (and its perf.requires') the student's in its
    chapter, whose programs link the chapter's files together (other chapters' programs link none of them);
    refuses it when a graded file changed while it was built or run."""
    course, entries = grader.course, grader.graded
    exercise = course.exercises[exercise_id]
    own = [exercise_id, *((exercise.perf or {}).get("requires", []))]
    elsewhere = [i for i in laid if course.exercises[i].chapter != exercise.chapter]
    hashes = tree.lay([*own, *elsewhere])
    say(f"build {exercise_id}")
    build_outputs(grader.build, {exercise_id: outputs})
    preparing.join()
    clock.lap("build")
    grade_built_exercise(grader, exercise, outputs, say)
    clock.lap("exercises")
    changed = tree.changed(hashes)
    if changed:
        entries[exercise_id].update(status="fail", points=0, reason=one_line(
            f"refused: {changed} of the graded tree changed while exercise {exercise_id} was built or run "
            "(the graded files are the grader's; code that rewrites them scores nothing)", 400))


def _prepare_quietly(instructor: InstructorBuilds, exercise_ids: list[str]) -> None:
    try:
        instructor.prepare(exercise_ids)
    except Exception:  # the same failure is met, and reported per exercise, when the grade asks for the build
        pass


def grade_env(work: Path, options: GradeOptions) -> dict:
    env = build_env(work, {"COURSE_SEED": str(options.seed)}, options.shared_cache)
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
        "commit": submission_commit(submission),
        "instructor_commit": options.instructor_commit or git_head(course.root),
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
