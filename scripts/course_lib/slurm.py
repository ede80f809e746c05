"""Grading a class on a Slurm cluster (issue 41): `gradebook --slurm` builds the instructor's trees once into the
class's folder (`<csv name>-slurm/` beside the CSV, which every node must see), submits one array job, one task
per submission still to grade, and a collect job after it; each task writes that student's reports as the local
gradebook does (`gradebook --slurm-task`), the collect job (`gradebook --collect`) writes the CSV. A student
whose task ended without a report is a row with the reason Slurm gives; submitting again grades only those.
The only external tools: sbatch, squeue, sacct."""
from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import sandbox as sandboxing
from .build import Build, gpu_available, one_line
from .errors import ToolError, UsageError
from .gradebook import grade_submission, record_result, write_gradebook
from .grading import grade_cmake_args, grade_env, instructor_builds
from .options import GradeOptions
from .proc import remove_temporary
from .tree import ROOT, Course, load_course
from .verdicts import InstructorBuilds, probe_target

PLAN = "plan.json"
WAITING = ("PENDING", "CONFIGURING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING")  # squeue: not ended yet
# Options the kit sets itself: the array's indices, where each task's log goes, what the collect job waits for.
KIT_OPTIONS = ("--array", "-a", "--output", "-o", "--error", "-e", "--dependency", "-d", "--parsable")


def class_folder(csv_path: Path) -> Path:
    """Where a Slurm gradebook keeps its plan, the instructor's trees and the tasks' logs: beside the CSV."""
    return csv_path.parent / (csv_path.name.rsplit(".", 1)[0] + "-slurm")


@dataclasses.dataclass
class Plan:
    """What every task grades with, written once by the submitting command (plan.json)."""
    submissions: str
    entries: list[str]              # file names in SUBMISSIONS; a task's array index is its position here
    names: list[str]
    exercises: list[str]
    seed: int
    timeout: float
    sandboxed: bool
    instructor_commit: str | None
    csv: str
    reports: str
    gpu: bool                       # any graded exercise needs a GPU: each task asks for one
    jobs: list[dict] = dataclasses.field(default_factory=list)  # {"array", "collect", "indices"} per submission

    @classmethod
    def load(cls, folder: Path) -> "Plan":
        try:
            return cls(**json.loads((folder / PLAN).read_text()))
        except (OSError, ValueError, TypeError) as error:
            raise UsageError(f"{folder}: not a Slurm gradebook's folder ({PLAN}: {one_line(str(error), 160)})")

    def save(self, folder: Path) -> None:
        write_atomically(folder / PLAN, json.dumps(dataclasses.asdict(self), indent=2) + "\n")

    def reports_dir(self) -> Path:
        return Path(self.reports)


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def same_class(old: Plan, new: Plan, seed_given: bool) -> Plan:
    """The plan a second submission continues: the first one's, provided it grades the same class the same way."""
    for field in ("submissions", "entries", "exercises", "timeout", "sandboxed", "instructor_commit", "csv"):
        if getattr(old, field) != getattr(new, field):
            raise UsageError(f"{class_folder(Path(old.csv))} grades with another {field} ({getattr(old, field)}); "
                             "give the same options, or remove that folder to grade the class again from scratch")
    if seed_given and old.seed != new.seed:
        raise UsageError(f"{class_folder(Path(old.csv))} grades with seed {old.seed}: leave --seed out (or give "
                         "that one), or remove that folder to grade the class again from scratch")
    return old


# ---- the submitting command ---------------------------------------------------------------------------------

def submit(course: Course, plan: Plan, seed_given: bool, sbatch_options: list[str]) -> int:
    """`gradebook --slurm`: the instructor's trees built (or found built), one array job for the submissions
    without a result yet, and the collect job after it."""
    for tool in ("sbatch", "squeue"):
        if not shutil.which(tool):
            raise UsageError(f"--slurm: {tool} not found (run this on a machine that submits to your cluster)")
    for option in sbatch_options:
        if option.split("=", 1)[0] in KIT_OPTIONS:
            raise UsageError(f"--slurm {option}: the kit sets {option.split('=', 1)[0]} itself (leave it out)")
    folder = class_folder(Path(plan.csv))
    if (folder / PLAN).is_file():
        plan = same_class(Plan.load(folder), plan, seed_given)
        still = queued(plan)
        if still:
            raise UsageError(f"{folder}: job {still} of this class is still queued or running: wait for it (squeue), "
                             "or scancel it, then submit again")
    missing = [i for i, name in enumerate(plan.names) if result_of(plan, name) is None]
    print(f"gradebook --slurm: {len(plan.entries)} submissions, {len(missing)} to grade; exercises "
          f"{', '.join(plan.exercises)}; seed {plan.seed}; class folder {folder}", flush=True)
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    plan.save(folder)
    if not missing:
        return collect(folder)
    build_instructor_trees(course, folder / "instructor", plan)
    scripts = write_job_scripts(folder)
    array = sbatch([*(["--gres=gpu:1"] if plan.gpu else []), "--job-name=course-grade", *sbatch_options,
                    f"--array={index_ranges(missing)}", f"--output={folder / 'logs' / 'task-%a.job-%A.log'}",
                    str(scripts["grade"])])
    plan.jobs.append({"array": array, "collect": None, "indices": missing})
    plan.save(folder)  # before the next sbatch: a second submission must see this job whatever happens next
    collector = sbatch(["--job-name=course-collect", *sbatch_options, f"--dependency=afterany:{array}",
                        f"--output={folder / 'logs' / 'collect.job-%j.log'}", str(scripts["collect"])])
    plan.jobs[-1]["collect"] = collector
    plan.save(folder)
    print(f"submitted array job {array} ({len(missing)} tasks{', one GPU each' if plan.gpu else ''}) and collect "
          f"job {collector} after it: reports in {plan.reports}, the CSV {plan.csv}, logs in {folder / 'logs'}")
    return 0


def build_instructor_trees(course: Course, shared: Path, plan: Plan) -> None:
    """The answers and stubs trees every task compares with, built here once (found built on a second submission)."""
    options = grade_options(plan, os.cpu_count() or 2, sandbox_for(plan, []))
    if trees_missing(course, shared, plan, options):
        print(f"building the instructor's trees in {shared} ...", flush=True)
        instructor_builds(course, shared, options).prepare(plan.exercises)
        why = trees_missing(course, shared, plan, options)
        if why:
            raise ToolError(f"the instructor's trees do not build: {why}")


def trees_missing(course: Course, shared: Path, plan: Plan, options: GradeOptions) -> str | None:
    private = Path(tempfile.mkdtemp(prefix="course-slurm-check-"))
    try:
        trees = SharedInstructorBuilds(course, shared, private, options)
        for exercise_id in plan.exercises:
            requires = (course.exercises[exercise_id].perf or {}).get("requires", [])
            found = trees.answers([probe_target(i) for i in (exercise_id, *requires)])
            if isinstance(found, Build) and course.exercises[exercise_id].perf:
                found = trees.stub(exercise_id)
            if isinstance(found, str):
                return found
        return None
    finally:
        remove_temporary(private)


def write_job_scripts(folder: Path) -> dict[str, Path]:
    """The two batch scripts, kept in the class folder so that what ran can be read (and submitted by hand)."""
    course = ROOT / "scripts" / "course"
    scripts = {}
    for name, option in (("grade", "--slurm-task"), ("collect", "--collect")):
        path = folder / f"{name}.sbatch"
        command = shlex.join([os.path.realpath(sys.executable), str(course), "gradebook", option, str(folder)])
        write_atomically(path, f"#!/bin/sh\n# Written by `course gradebook --slurm`.\nexec {command}\n")
        os.chmod(path, 0o755)
        scripts[name] = path
    return scripts


def sbatch(args: list[str]) -> str:
    result = subprocess.run(["sbatch", "--parsable", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise ToolError(f"sbatch refused the job: {one_line(result.stderr or result.stdout)}")
    return result.stdout.strip().split(";")[0]


def index_ranges(indices: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8' (sbatch --array)."""
    ranges, start = [], None
    for i, index in enumerate(indices):
        if start is None:
            start = index
        if i + 1 == len(indices) or indices[i + 1] != index + 1:
            ranges.append(str(start) if start == index else f"{start}-{index}")
            start = None
    return ",".join(ranges)


def queued(plan: Plan) -> str | None:
    """A job of this class's still in Slurm's queue, or None."""
    ids = [str(j[key]) for j in plan.jobs for key in ("array", "collect") if j[key]]
    if not ids:
        return None
    result = subprocess.run(["squeue", "-h", "-o", "%F", "-j", ",".join(ids)], capture_output=True, text=True)
    listed = result.stdout.split() if result.returncode == 0 else []
    return listed[0] if listed else None


# ---- one array task ---------------------------------------------------------------------------------------------

class SharedInstructorBuilds(InstructorBuilds):
    """The instructor's trees as the submitting command built them in the class folder, only read here (every task
    at once); the reference outputs a task writes go to its own `private` folder."""

    def __init__(self, course: Course, shared: Path, private: Path, options: GradeOptions):
        super().__init__(course, private, options, grade_env(private, options), grade_cmake_args(options))
        self.shared = shared

    def build(self, name: str, stubbed: list[str], targets: list[str]) -> Build | str:
        if self.course.is_handout:
            return super().build(name, stubbed, targets)
        with self._lock:
            build = self._builds.get(name)
            if build is None:
                tree = self.shared / name
                build = Build(tree, tree / "build", self.env, self.options.jobs, self.cmake_args)
                build.sandbox = dataclasses.replace(self.options.sandbox, cache=None) if self.options.sandbox else None
                self._builds[name] = build
        for target in targets:
            artifact = build.target_artifact(target)
            if artifact is None or not build.built(artifact):
                return (f"{target} of the instructor's tree ({name}) is not built in {self.shared} (gradebook "
                        "--slurm builds it before it submits)")
        return build


def run_task(folder: Path) -> int:
    """`gradebook --slurm-task DIR`: grades the submission at position $SLURM_ARRAY_TASK_ID of the plan and writes
    its reports (or, for a submission that cannot be graded, why) as the local gradebook does."""
    index = os.environ.get("SLURM_ARRAY_TASK_ID", "")
    plan = Plan.load(folder)
    if not index.isdigit() or int(index) >= len(plan.entries):
        raise UsageError(f"--slurm-task: SLURM_ARRAY_TASK_ID '{index}' is not a submission of {folder} (Slurm sets "
                         "it in each task of the array job)")
    index = int(index)
    course = load_course()
    name = plan.names[index]
    options = grade_options(plan, len(os.sched_getaffinity(0)),
                            sandbox_for(plan, [Path(plan.submissions), plan.reports_dir(), folder]))
    private = Path(tempfile.mkdtemp(prefix="course-slurm-task-"))
    try:
        instructor = SharedInstructorBuilds(course, folder / "instructor", private, options)
        report = grade_submission(course, Path(plan.submissions) / plan.entries[index], options, instructor)
    finally:
        remove_temporary(private)
    plan.reports_dir().mkdir(parents=True, exist_ok=True)
    errors = folder / "errors" / f"{name}.json"
    if "error" in report:  # kept in the class folder (the local gradebook writes no report for it either)
        write_atomically(errors, json.dumps(report) + "\n")
    else:
        errors.unlink(missing_ok=True)
    record_result(report, name, plan.reports_dir(), index + 1, len(plan.entries))
    return 0


def grade_options(plan: Plan, cores: int, sandbox: sandboxing.Sandbox | None) -> GradeOptions:
    gpu, gpu_name = gpu_available()
    return GradeOptions(plan.exercises, plan.seed, plan.timeout, cores, gpu, gpu_name, threading.Lock(), sandbox,
                        plan.instructor_commit)


def sandbox_for(plan: Plan, hidden: list[Path]) -> sandboxing.Sandbox | None:
    """The grade's sandbox on this node (the submitting command checked its own)."""
    if not plan.sandboxed:
        return None
    bwrap = sandboxing.find_bwrap(ROOT)
    why = sandboxing.probe(bwrap)
    if why:
        raise ToolError(f"{why}: this node cannot sandbox the grade (install bubblewrap on every node, or submit "
                        "with --no-sandbox)")
    gpu, _ = gpu_available()
    return sandboxing.Sandbox.for_grading(bwrap, ROOT, hidden, gpu)


# ---- the collect job ----------------------------------------------------------------------------------------------

def result_of(plan: Plan, name: str) -> dict | None:
    """A student's result as its task left it: the report, {"error": why} for a submission that cannot be
    graded, or None (not graded yet: no task ran, or it ended without a report)."""
    for path in (plan.reports_dir() / f"{name}.json", class_folder(Path(plan.csv)) / "errors" / f"{name}.json"):
        try:
            result = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(result, dict) and ("error" in result or (
                result.get("seed") == plan.seed and [e.get("id") for e in result.get("exercises", [])] == plan.exercises)):
            return result  # a report of another seed or other exercises (an earlier gradebook's) is not this grade's
    return None


def collect(folder: Path) -> int:
    """`gradebook --collect DIR`: the CSV of every submission of the plan, in the local gradebook's order and form;
    a student without a result is an error row with the reason Slurm gives."""
    plan = Plan.load(folder)
    course = load_course()
    rows, missing = [], []
    for index, name in enumerate(plan.names):
        result = result_of(plan, name)
        if result is None:
            missing.append(name)
            result = {"error": not_graded_reason(plan, folder, index)}
        rows.append((name, result))
    write_gradebook(Path(plan.csv), rows, plan.exercises, course)
    print(f"gradebook: {plan.csv} ({len(rows)} rows); per-student reports in {plan.reports}")
    if missing:
        print(f"gradebook: {len(missing)} not graded ({', '.join(missing)}): their rows say why; submit the same "
              "gradebook --slurm command again to grade only them")
    return 0


def not_graded_reason(plan: Plan, folder: Path, index: int) -> str:
    """Why the student at `index` has no result: the state Slurm reports for its last task, and its log's last
    words (where the cluster keeps no accounting, the log alone: Slurm writes a timed-out task's end there)."""
    tries = [job for job in plan.jobs if index in job["indices"]]
    if not tries:
        return "not graded: no Slurm task has graded this submission yet"
    job = str(tries[-1]["array"])
    task = f"{job}_{index}"
    waiting = queue_state(task)
    if waiting:  # --collect by hand while the array still runs
        return f"not graded yet: Slurm task {task} is {waiting}"
    state = task_state(task)
    log = folder / "logs" / f"task-{index}.job-{job}.log"
    words = last_words(log)
    return one_line(f"not graded: Slurm task {task} ended without a report"
                    f"{f' ({state})' if state else ''}{f': {words}' if words else f' (no log {log})'}", 600)


def queue_state(task: str) -> str | None:
    """PENDING, RUNNING, ... while the task is in Slurm's queue; None once it has ended."""
    if not shutil.which("squeue"):
        return None
    result = subprocess.run(["squeue", "-h", "-j", task, "-o", "%T"], capture_output=True, text=True)
    states = result.stdout.split() if result.returncode == 0 else []
    return states[0] if states and states[0] in WAITING else None


def task_state(task: str) -> str | None:
    """The task's state and exit code from Slurm's accounting (sacct), or None where there is none."""
    if not shutil.which("sacct"):
        return None
    result = subprocess.run(["sacct", "-n", "-P", "-X", "-j", task, "-o", "State,ExitCode"], capture_output=True,
                            text=True)
    lines = [l for l in result.stdout.splitlines() if l.strip()]
    if result.returncode != 0 or not lines:
        return None
    state, _, code = lines[-1].partition("|")
    return f"{state}, exit {code}"


def last_words(log: Path) -> str:
    """The line of a task's log that says how it ended: Slurm's own '*** ... CANCELLED ... ***' line (a time
    limit, scancel, a node failure), else the tool's last 'course:' line, else the last line."""
    try:
        lines = [l.strip() for l in log.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return ""
    for marker in ("***", "course:"):
        said = [l for l in lines if marker in l]
        if said:
            return said[-1]
    return lines[-1] if lines else ""
