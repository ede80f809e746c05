"""`handout --check`: make a handout and prove it sound: no leaks, no markers, its test workflow passes, and
the grader itself (grading.grade_tree: probes against the instructor's build, the grader's own clock) gives
the answer key full points and the untouched handout none, while the chapter's own exercise tests pass on the
key and fail in the handout (what a student runs)."""
from __future__ import annotations

import os
import secrets
import tempfile
import threading
import time
from pathlib import Path

from . import handout_links
from .build import Build, build_env, check_cache, first_compiler_error, gpu_available, one_line
from .grading import grade_tree
from .handout import LEAK_MIN_CHARS, find_leaks, marker_remnants, secret_lines, write_handout
from .options import GradeOptions
from .verdicts import InstructorBuilds
from .proc import last_line, remove_temporary, run
from .tree import Course, Exercise, load_course


class Check:
    def __init__(self):
        self.violations = 0
        self.started = time.monotonic()

    def ok(self, text: str) -> None:
        self.say("ok  ", text)

    def bad(self, text: str) -> None:
        self.violations += 1
        self.say("FAIL", text)

    def note(self, text: str) -> None:
        self.say("note", text)

    def say(self, tag: str, text: str) -> None:
        print(f"[{tag}] {text}  ({time.monotonic() - self.started:.0f} s)", flush=True)


def check_handout(args) -> int:
    course = load_course()
    ids = course.select(args.exercises, args.chapters)
    check = Check()
    gpu, gpu_name = gpu_available()
    jobs = args.jobs or os.cpu_count() or 2
    check.ok(f"metadata and markers: {len(course.exercises)} exercises, "
             f"{sum(len(r) for r in course.regions.values())} regions in {len(course.regions)} files")
    if not course.exercises:
        check.note("no chapter declares exercises yet: checking the handout as it stands (no stubs)")
    base = Path(tempfile.mkdtemp(prefix="course-check-"))
    try:
        # 1. The full handout: no solution in it, and its test workflow passes with every stub in place.
        handout = base / "handout"
        handout.mkdir()
        files = write_handout(course, handout, ids)
        problems = find_leaks(handout, secret_lines(course, set(ids))) + marker_remnants(handout, files)
        problems += handout_links.dead_links(handout, files)  # a page the handout leaves out, linked
        for problem in problems:
            check.bad(problem)
        if not problems:
            check.ok(f"handout: {len(files)} files, one commit, no solution line (>= {LEAK_MIN_CHARS} characters, "
                     "whitespace-collapsed) in any file or the history")
        # One compiler cache for every build of this check (each builds only the instructor's code; where it
        # is, build.check_cache): the handout, the instructor's trees and both graded trees share objects.
        env = build_env(base, cache=check_cache(base))
        result = run(["cmake", "--workflow", "--preset", "test"], cwd=handout, env=env)
        if result.returncode == 0:
            check.ok("handout: `cmake --workflow --preset test` passes (exercise tests excluded)")
        else:
            log = base / "handout-workflow.log"
            log.write_text(result.stdout)
            check.bad(f"handout: `cmake --workflow --preset test` fails: {one_line(last_line(result.stdout))} "
                      f"(log: {log})")
            args.keep = True
        handout_build = Build(handout, handout / "build", env, jobs)
        if (handout / "build" / "CMakeCache.txt").exists():
            handout_build.configure()

        cpu_ids = [i for i in ids if not course.exercises[i].gpu]
        gpu_ids = [i for i in ids if course.exercises[i].gpu]
        checked = cpu_ids + (gpu_ids if gpu else [])
        for i in gpu_ids if not gpu else []:
            check.note(f"exercise {i}: not checkable without a GPU (run this command on a GPU machine)")
        if not checked:
            check.note("no exercise to build from the instructor's tree: stub and solution sides skipped")
        else:
            check_sides(course, base, handout, checked, handout_build, check, jobs, args.timeout, gpu)
    finally:
        if args.keep:
            print(f"work folder kept: {base}")
        else:
            remove_temporary(base)
    minutes = (time.monotonic() - check.started) / 60
    verdict = "PASSED" if check.violations == 0 else f"FAILED ({check.violations} violations)"
    print(f"handout --check {verdict} in {minutes:.1f} min; GPU: {gpu_name if gpu else 'none'}")
    return 0 if check.violations == 0 else 1


def check_sides(course: Course, base: Path, handout: Path, ids: list[str], handout_build: Build, check: Check,
                jobs: int, timeout: float, gpu: bool) -> None:
    """The grader on both sides, with one set of instructor builds: the answer key (the instructor's tree as a
    handout with every answer in) must score full points, the handout nothing; then the chapter's own
    exercise tests: passing on the key, failing in the handout."""
    options = GradeOptions(ids, secrets.randbelow(2**31), timeout, jobs, gpu, None, threading.Lock(),
                           shared_cache=check_cache(base))
    env = build_env(base, {"COURSE_SEED": str(options.seed)}, options.shared_cache)
    if gpu:
        env["REQUIRE_GPU"] = "1"
    cmake_args = [f"-DCOURSE_EXERCISE_TIMEOUT={int(timeout)}"]
    instructor = InstructorBuilds(course, base / "instructor", options, env, cmake_args)
    key_tree = base / "key"
    key_tree.mkdir()
    write_handout(course, key_tree, [], git_commit=False)
    started = time.monotonic()
    key = grade_tree(course, key_tree, base / "grade-key", options, instructor=instructor)
    check.note(f"answer key graded: {key['points']}/{key['max_points']} in {time.monotonic() - started:.0f} s")
    started = time.monotonic()
    stub = grade_tree(course, handout, base / "grade-handout", options, instructor=instructor)
    check.note(f"handout graded: {stub['points']}/{stub['max_points']} in {time.monotonic() - started:.0f} s")
    key_build = Build(base / "grade-key" / "tree", base / "grade-key" / "tree" / "build", env, jobs, cmake_args)
    key_build.configure()
    for key_entry, stub_entry in zip(key["exercises"], stub["exercises"]):
        exercise = course.exercises[key_entry["id"]]
        check_key_entry(exercise, key_entry, check)
        check_stub_entry(exercise, stub_entry, check)
        check_exercise_tests(exercise, key_build, handout_build, env, timeout, check)


def check_key_entry(exercise: Exercise, entry: dict, check: Check) -> None:
    if entry["points"] >= entry["max_points"]:
        check.ok(f"exercise {exercise.id}: the answer key scores {entry['points']}/{entry['max_points']}")
    elif exercise.perf and entry["status"] in ("partial", "slow"):
        check.note(f"exercise {exercise.id}: the answer key scored {entry['points']}/{entry['max_points']} here "
                   f"({one_line(entry['reason'], 160)}); timing noise on a busy machine?")
    else:
        check.bad(f"exercise {exercise.id}: the answer key scores {entry['points']}/{entry['max_points']}: "
                  f"{entry['status']}: {one_line(entry['reason'], 200)}")


def check_stub_entry(exercise: Exercise, entry: dict, check: Check) -> None:
    if entry["status"] in ("timeout", "error"):
        check.bad(f"exercise {exercise.id}: as handed out: {entry['status']}: {one_line(entry['reason'], 200)} "
                  "(a stub must fail fast, for a reason)")
    elif entry["points"] > 0:
        check.bad(f"exercise {exercise.id}: the untouched handout scores {entry['points']}/{entry['max_points']}: "
                  f"{one_line(entry['reason'], 200)}")
    else:
        check.ok(f"exercise {exercise.id}: the untouched handout scores 0 ({one_line(entry['reason'], 120)})")


def check_exercise_tests(exercise: Exercise, key_build: Build, handout_build: Build, env: dict, timeout: float,
                         check: Check) -> None:
    """The chapter's own tests of the exercise (the student's feedback): pass on the key, fail in the handout."""
    outputs = key_build.artifacts(exercise.tests)
    ok, log = key_build.build(outputs) if outputs else (True, "")
    if not ok:
        check.bad(f"exercise {exercise.id}: its tests do not build on the key: {first_compiler_error(log, key_build.source)}")
        return
    for test in exercise.tests:
        if test not in key_build.tests:
            check.bad(f"exercise {exercise.id}: test {test} is not registered (ctest -N does not list it)")
            continue
        result = key_build.run_test(test, timeout, env)
        if result.status not in ("pass", "skipped"):
            check.bad(f"exercise {exercise.id}: {test} does not pass on the answer key: {result.reason}")
    if handout_build.tests:
        # Any one failing test makes the exercise fail for the student (05.2's sums pass on its stub; its
        # racecheck test does not).
        present = [t for t in exercise.tests if t in handout_build.tests]
        if present and handout_build.built_all(present):
            if all(handout_build.run_test(t, timeout, env).status == "pass" for t in present):
                if exercise.perf:  # an optimize stub is right but slow by design: its time scores it, not its tests
                    check.ok(f"exercise {exercise.id}: its tests pass in the handout (the stub is right but slow)")
                    return
                check.bad(f"exercise {exercise.id}: its tests ({', '.join(present)}) pass in the handout")
