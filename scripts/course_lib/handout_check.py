"""`handout --check`: make a handout and prove it sound: no leaks, no markers, the stubs build and fail
their tests, the answer key passes them, and the optimize exercises time both sides."""
from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path

from . import handout_links
from .build import Build, TestResult, build_env, first_compiler_error, gpu_available, one_line
from .grading import required_exercises_pass
from .handout import LEAK_MIN_CHARS, find_leaks, marker_remnants, secret_lines, write_handout
from .options import GradeOptions
from .perf import grade_perf
from .proc import last_line, run
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
        env = build_env(base)
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
            check_sides(course, base, checked, handout_build, check, jobs, args.timeout, gpu)
    finally:
        if args.keep:
            print(f"work folder kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    minutes = (time.monotonic() - check.started) / 60
    verdict = "PASSED" if check.violations == 0 else f"FAILED ({check.violations} violations)"
    print(f"handout --check {verdict} in {minutes:.1f} min; GPU: {gpu_name if gpu else 'none'}")
    return 0 if check.violations == 0 else 1


def check_sides(course: Course, base: Path, ids: list[str], handout_build: Build, check: Check, jobs: int,
                timeout: float, gpu: bool) -> None:
    """Each exercise's tests fail on its stub and pass with its solution; both sides are copies of the
    instructor's tree (one configure each, only the needed targets built)."""
    env = build_env(base, {"COURSE_SEED": str(secrets.randbelow(2**31))})
    if gpu:
        env["REQUIRE_GPU"] = "1"
    # An optimize exercise whose reference runs another checked exercise's code (perf.requires) is
    # timed on a third side where those exercises keep their solution, as they are once a student has
    # done them: on the stub side the reference would run a stub too. The stub side still shows what a
    # student who did neither gets (0, not timed).
    required = sorted({r for i in ids if course.exercises[i].perf
                       for r in course.exercises[i].perf.get("requires", []) if r in ids})
    timed_apart = [i for i in ids if course.exercises[i].perf
                   and set(course.exercises[i].perf.get("requires", [])) & set(required)]
    sides = configure_sides(course, base, ids, required, timed_apart, env, jobs, timeout, check)
    if sides is None:
        return
    check_registered(course, ids, sides["solution"], handout_build, check)
    if not build_sides(course, sides, ids, required, timed_apart, check):
        return
    options = GradeOptions(ids, 0, timeout, jobs, gpu, None, threading.Lock())
    for exercise_id in ids:
        check_exercise_sides(course, course.exercises[exercise_id], sides, handout_build, env, options,
                             exercise_id in timed_apart, check)


def copy_course(course: Course, tree: Path) -> None:
    for path in course.files:
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(course.root / path, target)


def configure_sides(course: Course, base: Path, ids: list[str], required: list[str], timed_apart: list[str],
                    env: dict, jobs: int, timeout: float, check: Check) -> dict[str, Build] | None:
    """The configured sides: "solution", "stub" (every checked exercise stubbed) and, where an exercise is
    timed apart, "stub-timing" (the required exercises solved); None (and a violation) if one fails."""
    timeout_arg = f"-DCOURSE_EXERCISE_TIMEOUT={int(timeout)}"
    plan = [("solution", []), ("stub", [f"-DCOURSE_EXERCISES={';'.join(ids)}"])]
    if timed_apart:
        stubbed = [i for i in ids if i not in required]
        plan.append(("stub-timing", [f"-DCOURSE_EXERCISES={';'.join(stubbed)}"]))
    sides = {}
    for side, cmake_args in plan:
        tree = base / side
        copy_course(course, tree)
        build = Build(tree, tree / "build", env, jobs, cmake_args + [timeout_arg])
        ok, why = build.configure()
        if not ok:
            check.bad(f"{side} side: {why}")
            return None
        sides[side] = build
    return sides


def check_registered(course: Course, ids: list[str], solution: Build, handout_build: Build, check: Check) -> None:
    """Every test an exercise names is registered, with its labels, in the tree and in the handout."""
    for exercise_id in ids:
        exercise = course.exercises[exercise_id]
        for test in exercise.tests:
            if test not in solution.tests:
                check.bad(f"exercise {exercise_id}: test {test} is not registered (ctest -N does not list it)")
            elif not set(solution.tests[test]["labels"]) >= ({"exercise", f"exercise.{exercise_id}"}
                                                              if test.startswith("exercise.") else set()):
                check.bad(f"exercise {exercise_id}: test {test} lacks the labels exercise;exercise.{exercise_id}")
            if handout_build.tests and test not in handout_build.tests:
                check.bad(f"exercise {exercise_id}: test {test} is not registered in the handout")


def build_sides(course: Course, sides: dict[str, Build], ids: list[str], required: list[str],
                timed_apart: list[str], check: Check) -> bool:
    """Builds on each side only what its checks run; False (and a violation) if a side does not build."""
    for side, build in sides.items():
        built_ids = timed_apart if side == "stub-timing" else ids
        outputs = sorted({o for i in built_ids for o in build.artifacts(course.exercises[i].tests)})
        if side != "solution":  # the grader runs the required exercises' tests before timing
            outputs += sorted({o for r in required for o in build.artifacts(course.exercises[r].tests)} - set(outputs))
        perf_programs = [build.target_artifact(course.exercises[i].perf["program"])
                         for i in built_ids if course.exercises[i].perf]
        outputs += [p for p in perf_programs if p and p not in outputs]
        started = time.monotonic()
        ok, log = build.build(outputs)
        if not ok:
            check.bad(f"{side} side does not build: {first_compiler_error(log, build.source)}")
            return False
        check.ok(f"{side} side built ({len(outputs)} targets, {time.monotonic() - started:.0f} s)")
    return True


def check_exercise_sides(course: Course, exercise: Exercise, sides: dict[str, Build], handout_build: Build,
                         env: dict, options: GradeOptions, timed_apart: bool, check: Check) -> None:
    """One exercise: its tests pass with the solution and fail (fast, for a reason) on the stub; an
    optimize exercise's stub is correct but slow; its tests fail in the handout too."""
    exercise_id, timeout = exercise.id, options.timeout
    solution, stub = sides["solution"], sides["stub"]
    results = {side: [build.run_test(t, timeout, env) for t in exercise.tests if t in build.tests]
               for side, build in sides.items() if side != "stub-timing"}
    solution_fail = next((r for r in results["solution"] if r.status != "pass"), None)
    stub_fail = next((r for r in results["stub"] if r.status != "pass"), None)
    if solution_fail:
        check.bad(f"exercise {exercise_id}: {solution_fail.name} does not pass with the solution: "
                  f"{solution_fail.reason}")
    if exercise.kind == "optimize":
        if timed_apart:
            check_requires_on_stub(course, exercise, stub, env, options, check)
            timing = {"solution": solution, "stub": sides["stub-timing"]}
        else:
            timing = {"solution": solution, "stub": stub}
        check_perf_sides(exercise, timing, env, options, check, stub_fail)
        return
    if stub_fail is None:
        check.bad(f"exercise {exercise_id}: its tests pass on the stub (a stub must be wrong on purpose)")
    elif stub_fail.status == "timeout":
        check.bad(f"exercise {exercise_id}: the stub hangs ({stub_fail.name} {stub_fail.reason}); "
                  "a stub must fail fast")
    elif stub_fail.status in ("not_run", "error"):
        check.bad(f"exercise {exercise_id}: {stub_fail.name} on the stub: {stub_fail.reason}")
    elif not solution_fail:
        check.ok(f"exercise {exercise_id}: fails on its stub ({one_line(stub_fail.reason, 100)}), passes "
                 "with its solution")
    if handout_build.tests:
        # Any one failing test makes the exercise fail, as in the grader (05.2's sums pass on its stub;
        # its racecheck test does not).
        present = [t for t in exercise.tests if t in handout_build.tests]
        if present and handout_build.built_all(present):
            if all(handout_build.run_test(t, timeout, env).status == "pass" for t in present):
                check.bad(f"exercise {exercise_id}: its tests ({', '.join(present)}) pass in the handout")


def check_requires_on_stub(course: Course, exercise: Exercise, stub: "Build", env: dict, options: GradeOptions,
                           check: Check) -> None:
    """With the required exercises stubbed too, the grader must not time the exercise (0 points, saying
    which exercise comes first): its reference would run stub code."""
    entry = {"points": 0, "status": "", "reason": "", "perf": None}
    if required_exercises_pass(course, exercise, entry, stub, env, options):
        check.bad(f"exercise {exercise.id}: with {', '.join(exercise.perf['requires'])} stubbed too, the grader "
                  "would time it against a reference that runs stub code")
    else:
        check.ok(f"exercise {exercise.id}: with {', '.join(exercise.perf['requires'])} stubbed too, not timed "
                 f"({one_line(entry['reason'], 100)})")


def check_perf_sides(exercise: Exercise, sides: dict, env: dict, options: GradeOptions, check: Check,
                     stub_fail: TestResult | None) -> None:
    if stub_fail:
        check.bad(f"exercise {exercise.id}: an optimize stub must be correct (slow), but {stub_fail.name} "
                  f"fails on it: {stub_fail.reason}")
        return
    scores = {}
    for side, build in sides.items():
        entry = {"points": 0, "status": "", "reason": "", "perf": None}
        grade_perf(exercise, entry, build, env, options, stub=sides["stub"])
        scores[side] = entry
    if scores["stub"]["status"] in ("error", "fail", "timeout"):
        check.bad(f"exercise {exercise.id}: perf on the stub: {scores['stub']['reason']}")
    elif scores["stub"]["points"] >= exercise.points:
        check.bad(f"exercise {exercise.id}: the stub already scores full points ({scores['stub']['reason']})")
    elif scores["solution"]["points"] < exercise.points:
        check.note(f"exercise {exercise.id}: the solution scored {scores['solution']['points']}/{exercise.points} "
                   f"here ({scores['solution']['reason']}); timing noise on a busy machine?")
    else:
        check.ok(f"exercise {exercise.id}: stub correct but slow ({scores['stub']['reason']}); solution scores "
                 "full points")
