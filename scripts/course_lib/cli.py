"""The command line: the parser, one cmd_* function per subcommand, and main (exit codes: scripts/course)."""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import secrets
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import sandbox as sandboxing
from . import slurm
from .build import check_cache, gpu_available
from .errors import ToolError, UsageError
from .gradebook import grade_class, submission_entries, unique_names, write_gradebook
from .grading import GRADE_SCHEMA, PERF_RULE, SCORE_RULE, grade_tree, instructor_builds
from .handout import find_leaks, marker_remnants, prepare_out, secret_lines, write_handout
from .handout_check import check_handout
from .known_wrong import (
    CHECK_WRONG_SCHEMA, VERDICTS, WRONG_FORM, check_known_wrong, load_known_wrong, untracked_known_wrong,
    write_json, wrong_line,
)
from .options import GradeOptions
from .proc import CHILDREN, CHILDREN_LOCK, Terminated, end_group, git_head, on_signal, remove_temporary
from .reports import check_distinct_files, check_output_file, check_output_folder, terminal_table, write_reports
from .tree import Course, MANIFEST, ROOT, load_course

# The first paragraph of scripts/course's own docstring: what `course --help` says first.
DESCRIPTION = ("The classroom kit: list the exercises, make a student handout, check it, prove the grader rejects\n"
               "known-wrong solutions, grade a submission, grade a class.")


def cmd_list(args) -> int:
    course = load_course()
    rows = [{"id": e.id, "chapter": e.chapter, "title": e.title, "kind": e.kind, "points": e.points,
             "gpu": e.gpu, "tests": e.tests} for e in course.exercises.values()]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no exercises declared yet (no chapter has an exercises.json with entries)")
        return 0
    table = [("id", "chapter", "title", "kind", "points", "gpu", "tests")]
    table += [(r["id"], r["chapter"], r["title"], r["kind"], str(r["points"]), "yes" if r["gpu"] else "no",
               ", ".join(r["tests"])) for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(6)]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[6])
    print(f"{len(rows)} exercises, {sum(r['points'] for r in rows)} points")
    return 0


def cmd_handout(args) -> int:
    if args.check:
        if args.out or args.force:
            raise UsageError("handout --check makes its own handout in a temporary folder: drop --out/--force")
        return check_handout(args)
    if not args.out:
        raise UsageError("handout: give --out DIR (or --check)")
    check_output_folder("--out", args.out)
    course = load_course()
    ids = course.select(args.exercises, args.chapters)
    out = Path(args.out)
    prepare_out(out, args.force, ROOT)
    files = write_handout(course, out, ids)
    leaks = find_leaks(out, secret_lines(course, set(ids))) + marker_remnants(out, files)
    if leaks:
        for leak in leaks:
            print(f"course: {leak}", file=sys.stderr)
        raise ToolError(f"the handout in {out} leaks solutions ({len(leaks)} problems above); fix and redo")
    dropped = len(course.files) - len(course.handout_files)
    print(f"handout in {out}: {len(files)} files, exercises {', '.join(ids) if ids else 'none'} as stubs, "
          f"{dropped} instructor-only files left out, one commit")
    return 0


def resolve_exercises(course: Course, args) -> list[str]:
    ids = course.select(getattr(args, "exercises", None), getattr(args, "chapters", None))
    if not ids:
        raise UsageError("no exercises to grade (no chapter declares any yet)")
    return ids


def sandbox_tool(args) -> str | None:
    """The bwrap that will wrap the submission's processes; None with --no-sandbox. Refuses (exit 2, before
    any work) where bubblewrap is missing or cannot make namespaces."""
    if args.no_sandbox:
        print("course: --no-sandbox: the submission's code runs with your user's rights (the report says so)",
              file=sys.stderr)
        return None
    bwrap = sandboxing.find_bwrap(ROOT)
    why = sandboxing.probe(bwrap)
    if why:
        raise UsageError(f"{why}: grading runs the submission's code, so it runs sandboxed; install bubblewrap "
                         "or pass --no-sandbox (the report will say the grade was unsandboxed)")
    return bwrap


def instructor_commit(course, given: str | None) -> str | None:
    """The course commit a report names: --instructor-commit (checked for form; a GPU machine's copy of the tree
    may carry a one-commit snapshot whose HEAD is in no repository's history), else the tree's HEAD."""
    if given is not None:
        if not re.fullmatch(r"[0-9a-f]{40}", given):
            raise UsageError(f"--instructor-commit {given}: give the full 40-digit commit hash (git rev-parse HEAD "
                             "in the course repository)")
        return given
    return git_head(course.root)


def grading_sandbox(bwrap: str | None, hidden: list[Path], gpu: bool) -> sandboxing.Sandbox | None:
    return None if bwrap is None else sandboxing.Sandbox.for_grading(bwrap, ROOT, hidden, gpu)


def cmd_grade(args) -> int:
    for option, path in (("--json", args.json), ("--junit", args.junit), ("--markdown", args.markdown)):
        check_output_file(option, path)
    check_distinct_files([("--json", args.json), ("--junit", args.junit), ("--markdown", args.markdown)])
    repo = Path(args.repo).resolve()
    if not repo.is_dir():
        raise UsageError(f"--repo {args.repo}: no such folder")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    course = load_course()
    ids = resolve_exercises(course, args)
    commit = instructor_commit(course, args.instructor_commit)
    bwrap = sandbox_tool(args)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    gpu, gpu_name = gpu_available()
    print(f"grading {repo}: exercises {', '.join(ids)}; seed {seed} (COURSE_SEED; --seed {seed} repeats "
          f"it); GPU: {gpu_name if gpu else 'none'}", flush=True)
    options = GradeOptions(ids, seed, args.timeout, args.jobs or os.cpu_count() or 2, gpu, gpu_name,
                           threading.Lock(), grading_sandbox(bwrap, [repo], gpu), commit)
    work = Path(tempfile.mkdtemp(prefix="course-grade-"))
    try:
        report = grade_tree(course, repo, work, options, progress=lambda s: print(f"  {s} ...", flush=True))
    finally:
        if args.keep:
            print(f"work folder kept: {work}")
        else:
            remove_temporary(work)
    print(terminal_table(report))
    write_reports(report, args.json, args.junit, args.markdown)
    errors = [e for e in report["exercises"] if e["status"] == "error"]
    if errors:
        print(f"course: {len(errors)} exercise(s) could not be graded (status error): the grade is incomplete",
              file=sys.stderr)
        return 1
    return 0


def cmd_gradebook(args) -> int:
    if args.collect or args.slurm_task:
        return slurm_step(args)
    if not args.submissions or not args.csv:
        raise UsageError("gradebook: give SUBMISSIONS and --csv F (or --collect DIR)")
    submissions = Path(args.submissions)
    if not submissions.is_dir():
        raise UsageError(f"{args.submissions}: not a folder of submissions")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    entries = submission_entries(submissions)
    if not entries:
        raise UsageError(f"{args.submissions}: no submissions (folders, bare git repositories or .tar.gz)")
    check_output_file("--csv", args.csv)
    csv_path = Path(args.csv)
    reports_dir = csv_path.parent / (csv_path.name.rsplit(".", 1)[0] + "-reports")
    check_output_folder("--csv (its reports folder)", str(reports_dir))
    course = load_course()
    ids = resolve_exercises(course, args)
    commit = instructor_commit(course, args.instructor_commit)
    bwrap = sandbox_tool(args)
    reports_dir.mkdir(parents=True, exist_ok=True)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    if args.slurm is not None:
        return slurm.submit(course, slurm_plan(args, course, entries, ids, seed, bwrap, commit, reports_dir),
                            args.seed is not None, args.slurm)
    gpu, gpu_name = gpu_available()
    sandbox = grading_sandbox(bwrap, [submissions, reports_dir], gpu)
    jobs = args.jobs or 1
    cores = max(1, (os.cpu_count() or 2) // jobs)
    print(f"gradebook: {len(entries)} submissions, exercises {', '.join(ids)}; seed {seed}; GPU: "
          f"{gpu_name if gpu else 'none'}; {jobs} at a time", flush=True)
    names = unique_names(entries)
    options = GradeOptions(ids, seed, args.timeout, cores, gpu, gpu_name, threading.Lock(), sandbox, commit)
    results = grade_class(course, entries, names, options, jobs, reports_dir)
    write_gradebook(csv_path, [(names[e], results[e]) for e in entries], ids, course)
    print(f"gradebook: {csv_path} ({len(entries)} rows); per-student reports in {reports_dir}")
    return 0


def slurm_step(args) -> int:
    """--collect DIR / --slurm-task DIR: a step of a Slurm gradebook, whose plan in DIR says everything else."""
    given = [o for o in ("submissions", "csv", "exercises", "chapters", "seed", "jobs", "slurm", "instructor_commit")
             if getattr(args, o) is not None] + (["no_sandbox"] if args.no_sandbox else [])
    if given or (args.collect and args.slurm_task):
        raise UsageError("--collect DIR and --slurm-task DIR take nothing else: DIR's plan.json holds the gradebook's "
                         "options")
    folder = Path(args.collect or args.slurm_task)
    return slurm.collect(folder) if args.collect else slurm.run_task(folder)


def slurm_plan(args, course, entries, ids, seed, bwrap, commit, reports_dir) -> slurm.Plan:
    names = unique_names(entries)
    return slurm.Plan(str(Path(args.submissions).resolve()), [e.name for e in entries], [names[e] for e in entries],
                      ids, seed, args.timeout, bwrap is not None, commit, str(Path(args.csv).resolve()),
                      str(reports_dir.resolve()), any(course.exercises[i].gpu for i in ids))


def selected_wrongs(course, wrongs: list, ids: str | None) -> list:
    """The known-wrong files of the exercises `--ids` names (all without it); a usage error for an id that is
    no exercise or has none."""
    if not ids:
        return wrongs
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    if not wanted:
        raise UsageError("--ids: give exercise ids such as 03.1,06.2")
    for i in wanted:
        if i not in course.exercises:
            raise UsageError(f"unknown exercise '{i}' (valid: {', '.join(course.exercises) or 'none declared yet'})")
        if not any(w.exercise == i for w in wrongs):
            raise UsageError(f"exercise {i} has no known-wrong solution ({course.exercises[i].chapter}/"
                             "instructor/wrong/ holds none for it)")
    return [w for w in wrongs if w.exercise in wanted]


def cmd_check_wrong(args) -> int:
    check_output_file("--json", args.json)
    course = load_course()
    commit = instructor_commit(course, args.instructor_commit)
    wrongs = selected_wrongs(course, load_known_wrong(course), args.ids)
    for path in untracked_known_wrong(course.root):
        print(f"note: {path} is not tracked (git add it): not checked")
    gpu, gpu_name = gpu_available()
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    started = time.monotonic()
    results = []
    if not wrongs:
        print("check-wrong: no known-wrong solutions yet (no chapter has files in instructor/wrong/)")
    else:
        print(f"check-wrong: {len(wrongs)} known-wrong solutions; seed {seed} (--seed {seed} repeats it); GPU: "
              f"{gpu_name if gpu else 'none'}", flush=True)
        base = Path(tempfile.mkdtemp(prefix="course-wrong-"))
        try:
            jobs = args.jobs or os.cpu_count() or 2
            # The instructor's builds (answers, stubs) once for every known-wrong answer checked.
            # One compiler cache for all of them (every file built is the instructor's): build.check_cache.
            cache = check_cache(base)
            instructor = instructor_builds(course, base / "instructor", GradeOptions(
                [], seed, args.timeout, jobs, gpu, gpu_name, threading.Lock(), shared_cache=cache))
            for wrong in wrongs:
                result = check_known_wrong(course, wrong, base, GradeOptions(
                    [wrong.exercise], seed, args.timeout, jobs, gpu, gpu_name, threading.Lock(), shared_cache=cache),
                    instructor)
                results.append(result)
                print(wrong_line(result), flush=True)
        finally:
            if args.keep:
                print(f"work folder kept: {base}")
            else:
                remove_temporary(base)
    counts = {v: sum(1 for r in results if r["verdict"] == v) for v in VERDICTS}
    failed = counts["WRONG-ACCEPTED"] + counts["MIS-REASONED"] + counts["ERROR"]
    summary = (f"{counts['OK']} rejected for the stated reason, {counts['WRONG-ACCEPTED']} accepted, "
               f"{counts['MIS-REASONED']} rejected for another reason, {counts['ERROR']} not graded, "
               f"{counts['NOT-CHECKED']} not checkable without a GPU")
    if args.json:
        write_json(Path(args.json), {
            "schema": CHECK_WRONG_SCHEMA, "instructor_commit": commit,
            "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
            "seed": seed, "timeout_s": args.timeout, "gpu": gpu_name if gpu else None,
            "verdict": "failed" if failed else "passed", "counts": counts,
            "wall_s": round(time.monotonic() - started, 3), "files": results})
    if results:
        print(f"check-wrong {'FAILED' if failed else 'PASSED'}: {summary}; "
              f"{(time.monotonic() - started) / 60:.1f} min")
    return 1 if failed else 0


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds")
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' must be a positive number of seconds")
    return value


def seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"'{text}' must be between 0 and 2^63-1")
    return value


def make_parser() -> Parser:
    parser = Parser(prog="course", description=DESCRIPTION,
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog="Each command takes --help. The manual: docs/instructors.md.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    add_list_command(commands)
    add_handout_command(commands)
    add_grade_command(commands)
    add_check_wrong_command(commands)
    add_gradebook_command(commands)
    return parser


def add_list_command(commands) -> None:
    p = commands.add_parser("list", help="the exercises: id, chapter, title, kind, points, gpu, tests",
                            description="Lists every exercise the chapters declare (NN_topic/exercises.json), "
                            "after checking the metadata and the solution markers.")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    p.set_defaults(func=cmd_list)


def add_handout_command(commands) -> None:
    p = commands.add_parser("handout", help="make the student tree (or --check it)",
                            description="Copies the tracked files to --out with the selected exercises' "
                            "solution regions replaced by their stubs (the other regions keep their solution), "
                            "leaves out instructor-only files (" + MANIFEST + "), and makes one git commit. "
                            "--check makes the full handout in a temporary folder, builds it and runs its "
                            "test workflow, proves each exercise's tests fail on its stub and pass with its "
                            "solution, and that no solution line is in the handout.")
    p.add_argument("--out", metavar="DIR", help="where to write the handout (must be empty or new)")
    p.add_argument("--exercises", metavar="IDS", help="exercises set as stubs: 03.1,06.2 or all (default all)")
    p.add_argument("--chapters", metavar="NN,...", help="every exercise of these chapters: 03,06")
    p.add_argument("--force", action="store_true", help="replace the contents of a non-empty --out")
    p.add_argument("--check", action="store_true", help="check the handout instead of writing one")
    p.add_argument("--timeout", type=seconds, default=300, metavar="S",
                   help="--check: seconds each exercise test may run (default 300)")
    p.add_argument("--jobs", type=positive_int, metavar="N", help="--check: build jobs (default: all cores)")
    p.add_argument("--keep", action="store_true", help="--check: keep the temporary folder and say where")
    p.set_defaults(func=cmd_handout)


def add_grade_command(commands) -> None:
    p = commands.add_parser("grade", help="grade one student tree",
                            description="Builds the student tree (--repo) in its own build folder with this "
                            "repository's tests, exercise metadata and build files laid over it, runs each "
                            "exercise's tests and scores it. " + SCORE_RULE.capitalize() + "; " + PERF_RULE +
                            ". Exit 0 when grading completed, whatever the score.")
    p.add_argument("--repo", default=".", metavar="DIR", help="the student's tree (default: the current folder)")
    add_grading_options(p)
    p.add_argument("--json", metavar="F", help="write the report as JSON (schema " + GRADE_SCHEMA + ")")
    p.add_argument("--junit", metavar="F", help="write the report as JUnit XML (one testcase per exercise)")
    p.add_argument("--markdown", metavar="F", help="write the report as Markdown")
    p.add_argument("--jobs", type=positive_int, metavar="N", help="build jobs (default: all cores)")
    p.add_argument("--keep", action="store_true", help="keep the temporary build folder and say where")
    p.set_defaults(func=cmd_grade)


def add_check_wrong_command(commands) -> None:
    p = commands.add_parser("check-wrong", help="prove the grader rejects the known-wrong solutions",
                            description="For each known-wrong solution (NN_topic/instructor/wrong/<id>-<slug>.<ext>, "
                            "line 1 '// " + WRONG_FORM + "'): puts its lines in the stub branch of its region (the "
                            "exercise's other regions solved), makes a handout of that exercise, grades it with "
                            "the grader of `grade`, and checks that it scores below full points with a reason "
                            "containing the phrase. One line per file: OK, WRONG-ACCEPTED, MIS-REASONED, "
                            "NOT-CHECKED (a GPU exercise on a machine without one) or ERROR (not graded). "
                            "Exit 1 when any is accepted, mis-reasoned or not graded; 2 when a file breaks the "
                            "format (file:line).")
    p.add_argument("--ids", metavar="IDS", help="only the known-wrong solutions of these exercises: 03.1,06.2")
    p.add_argument("--json", metavar="F", help="write the results as JSON (schema " + CHECK_WRONG_SCHEMA + ")")
    p.add_argument("--seed", type=seed, metavar="N",
                   help="COURSE_SEED for the tests' inputs (default: a fresh one, printed)")
    p.add_argument("--timeout", type=seconds, default=120, metavar="S",
                   help="seconds each test may run before it scores 0 (default 120)")
    p.add_argument("--jobs", type=positive_int, metavar="N", help="build jobs (default: all cores)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder and say where")
    add_commit_option(p)
    p.set_defaults(func=cmd_check_wrong)


def add_gradebook_command(commands) -> None:
    p = commands.add_parser("gradebook", help="grade a class: one CSV row per submission",
                            description="Grades every entry of SUBMISSIONS (a folder, a bare git repository or a "
                            ".tar.gz per student; the entry's name is the student's) in isolation: its own copy "
                            "and build folder. Writes one CSV row per student (total, status, reason, points "
                            "and status per exercise) and each student's JSON and Markdown report in "
                            "<csv name>-reports/ beside the CSV. A broken submission is a row, never a stop.")
    p.add_argument("submissions", nargs="?", metavar="SUBMISSIONS", help="folder holding one entry per student")
    p.add_argument("--csv", metavar="F", help="the gradebook to write (required but with --collect)")
    add_grading_options(p)
    p.add_argument("--jobs", type=positive_int, metavar="N",
                   help="submissions graded at once (default 1; GPU and perf runs still take turns)")
    slurm_options(p)
    p.set_defaults(func=cmd_gradebook)


def slurm_options(p) -> None:
    p.add_argument("--slurm", nargs=argparse.REMAINDER, metavar="SBATCH_OPTION",
                   help="grade on a Slurm cluster instead, from a folder every node sees (last on the line; what "
                        "follows goes to sbatch): builds your trees once into <csv name>-slurm/, submits one array "
                        "job (a task per submission still to grade, with --gres=gpu:1 where an exercise needs a GPU) "
                        "and a job after it that writes the CSV; submitting again grades only the students without "
                        "a report (docs/instructors.md, 'Grading on a cluster')")
    p.add_argument("--collect", metavar="DIR", help="write the CSV of the Slurm gradebook whose folder is DIR "
                                                    "(<csv name>-slurm/) from the reports its tasks wrote")
    p.add_argument("--slurm-task", metavar="DIR", help="(run by the array job) grade the submission numbered "
                                                       "$SLURM_ARRAY_TASK_ID of DIR's plan")


def add_grading_options(p) -> None:
    """The options grade and gradebook share."""
    p.add_argument("--exercises", metavar="IDS", help="exercises to grade: 03.1,06.2 or all (default all)")
    p.add_argument("--chapters", metavar="NN,...", help="every exercise of these chapters")
    p.add_argument("--seed", type=seed, metavar="N",
                   help="COURSE_SEED for the tests' inputs (default: a fresh one, printed)")
    p.add_argument("--timeout", type=seconds, default=120, metavar="S",
                   help="seconds each test may run before it scores 0 (default 120)")
    if p.prog.split()[-1] in ("grade", "gradebook"):
        p.add_argument("--no-sandbox", action="store_true",
                       help="run the submission's code without bubblewrap (the report says so)")
        add_commit_option(p)


def add_commit_option(p) -> None:
    p.add_argument("--instructor-commit", metavar="SHA",
                   help="the course commit the reports name (default: the instructor tree's HEAD); give it where "
                        "the tree is a copy whose .git is a snapshot (a GPU machine's)")


def refuse_empty_values(args) -> None:
    """An empty value is a mistake, never "everything": --exercises '' would stub every exercise and
    --repo '' grade the current folder (issue 31, item 12)."""
    for key, value in vars(args).items():
        if key == "command" or not isinstance(value, str) or value.strip():
            continue
        name = key.upper() if key == "submissions" else "--" + key.replace("_", "-")
        raise UsageError(f"{name}: an empty value names nothing (leave the option out for its default)")


def main(argv: list[str]) -> int:
    parser = make_parser()
    # SIGTERM and SIGHUP clean up as SIGINT does: the children's process groups end, every temporary
    # folder goes (issue 31, item 11).
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 2
        refuse_empty_values(args)
        return args.func(args)
    except UsageError as error:
        for line in str(error).splitlines():
            print(f"course: {line}", file=sys.stderr)
        return 2
    except ToolError as error:
        print(f"course: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as stop:
        signum = stop.signum if isinstance(stop, Terminated) else signal.SIGINT
        with CHILDREN_LOCK:
            running = list(CHILDREN)
        for pid in running:
            end_group(pid)
        print(f"course: stopped by {signal.Signals(signum).name}: its builds and tests ended, its temporary "
              "folders removed", file=sys.stderr)
        return 128 + signum
