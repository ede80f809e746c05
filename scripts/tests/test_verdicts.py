#!/usr/bin/env python3
"""Verdicts from outside the student's process (course_lib/verdicts.py): run_probe's mapping of what a probe
did (exit 77, a hang, a crash, output that is not the probe schema) to a status, with fake probes; and, on the
fixture course, InstructorBuilds (the answers tree built once, its reference cases cached per seed) and
check_correct (the answer key passes, a wrong answer fails by the case it gets wrong); and grade_time's layers
against delegation (issue 30), with fakes: code that names the reference is refused before any timed process
starts, a timed call that did other work than the answer's fails without the correctness prefix, and every
side is resumed for its clock and frozen after it.

    python3 scripts/tests/test_verdicts.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import ENV, FixtureCase, edit  # noqa: E402
from test_own_work import PATH, SOURCE, FakeCourse, FakeExercise  # noqa: E402
from course_lib import outside_timing, scoring, verdicts  # noqa: E402
from course_lib.build import Build  # noqa: E402
from course_lib.handout import write_handout  # noqa: E402
from course_lib.options import GradeOptions  # noqa: E402
from course_lib.tree import Course  # noqa: E402


class FakeBuild:
    """What run_probe needs of a Build: a folder, the probe's path in it, and no sandbox."""

    def __init__(self, folder: Path, script: str):
        self.folder = folder
        program = folder / "probe_09_1"
        program.write_text("#!/bin/sh\n" + script)
        program.chmod(0o755)
        self.sandbox = None  # the instructor's own build: the output path as given

    def target_artifact(self, target: str) -> str:
        assert target == "probe_09_1", target
        return "probe_09_1"

    def sandboxed(self, cmd: list[str], writable: tuple = ()) -> list[str]:
        return cmd


GOOD = '{"schema": "cuda-lessons/probe/v1", "exercise": "09.1", "seed": 5, "cases": []}'


class RunProbeTests(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="course-verdicts-"))
        self.out = self.tmp / "outputs" / "student.json"

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_fake(self, script: str, timeout: float = 20.0) -> verdicts.ProbeRun:
        return verdicts.run_probe(FakeBuild(self.tmp, script), "09.1", 5, self.out, dict(ENV), timeout)

    def test_a_probe_that_writes_its_cases_passes_with_them(self):
        result = self.run_fake(f"[ \"$1 $2 $3\" = \"--seed 5 --out\" ] || exit 9\nprintf '%s' '{GOOD}' > \"$4\"\n")
        self.assertEqual((result.status, result.cases["exercise"]), ("pass", "09.1"), result.reason)

    def test_exit_77_is_needs_gpu(self):
        self.assertEqual(self.run_fake("exit 77\n").status, "needs_gpu")

    def test_a_hang_is_a_timeout(self):
        result = self.run_fake("sleep 30\n", timeout=1.0)
        self.assertEqual((result.status, result.reason), ("timeout", "timed out after 1 s"))

    def test_a_crash_says_its_exit_code_and_last_line(self):
        result = self.run_fake("echo 'warming up'\necho 'probe: n must be positive' >&2\nexit 3\n")
        self.assertEqual(result.status, "fail")
        self.assertEqual(result.reason, "the probe run failed (exit 3): probe: n must be positive")

    def test_exit_0_without_outputs_or_with_bad_outputs_fails(self):
        # Exit 0 and a perfect-looking doctest summary decide nothing: the outputs are what counts.
        cases = {
            "echo '[doctest] Status: SUCCESS!'\nexit 0\n": "the probe wrote no output file",
            "echo 'not json' > \"$4\"\n": "the probe's output is not JSON (JSONDecodeError)",
            "echo '{\"schema\": \"other\", \"cases\": []}' > \"$4\"\n": "the probe's output is not cuda-lessons/probe/v1",
        }
        for script, reason in cases.items():
            with self.subTest(reason):
                self.out.unlink(missing_ok=True)
                result = self.run_fake(script)
                self.assertEqual((result.status, result.reason), ("fail", reason))

    def test_an_output_that_is_no_plain_file_is_refused(self):
        # Issue 40, red team: a probe's output swapped for a link to the instructor's answers scored full points
        # (the grader followed it); a FIFO kept the grader waiting. Neither is read now.
        for script in (f"printf '%s' '{GOOD}' > \"$4.real\"\nln -s \"$4.real\" \"$4\"\n", "mkfifo \"$4\"\n",
                       "mkdir \"$4\"\n"):
            with self.subTest(script):
                shutil.rmtree(self.out.parent, ignore_errors=True)
                result = self.run_fake(script, timeout=10.0)
                self.assertEqual(result.status, "fail", result.reason)
                self.assertIn("not a plain file", result.reason)

    def test_a_sandboxed_probe_writes_into_an_empty_folder_of_its_own(self):
        # Whatever an earlier run of the student's code left beside the output is not this run's.
        build = FakeBuild(self.tmp, "ls -A \"$(dirname \"$4\")\" | grep -q . && exit 9\n"
                                    f"printf '%s' '{GOOD}' > \"$4\"\n")
        build.sandbox = object()
        self.out.parent.mkdir(parents=True)
        self.out.write_text(GOOD)
        (self.out.parent / "planted").write_text("x")
        result = verdicts.run_probe(build, "09.1", 5, self.out, dict(ENV), 20.0)
        self.assertEqual(result.status, "pass", result.reason)

    def test_a_stale_output_file_is_not_read(self):
        # An output left by an earlier run (check-wrong grades in one folder) is removed before the probe runs.
        self.out.parent.mkdir(parents=True)
        self.out.write_text(GOOD)
        self.assertEqual(self.run_fake("exit 0\n").reason, "the probe wrote no output file")


class TimedFake:
    """What grade_time needs of a Build for timing: a folder, a source tree, a probe path, no sandbox."""

    def __init__(self, folder: Path):
        self.folder = self.source = folder

    def target_artifact(self, target: str) -> str:
        return target

    def sandboxed(self, cmd: list[str], writable: tuple = ()) -> list[str]:
        return cmd


class FakeInstructor:
    def __init__(self, folder: Path):
        self.course = FakeCourse(SOURCE)
        self.folder, self.asked = folder, []

    def answers(self, targets):
        self.asked.append("answers")
        return TimedFake(self.folder)

    def stub(self, exercise_id):
        self.asked.append("stub")
        return TimedFake(self.folder)


class GradeTimeTests(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="course-grade-time-"))
        self.exercise = FakeExercise("09.2", ["reference_sum"])
        self.exercise.points = 30
        self.instructor = FakeInstructor(self.tmp)
        self.options = GradeOptions(["09.1", "09.2"], 31, 60.0, 2, False, None, threading.Lock())
        handout = self.instructor.course.as_handed_out(PATH, {"09.1", "09.2"})
        (self.tmp / PATH).parent.mkdir(parents=True)
        self.write = lambda line: (self.tmp / PATH).write_text(handout.replace("  *out = slow_sum(in, n);", line))
        self.write("  *out = 0; for (int i = 0; i < n; ++i) *out += in[i];")
        self.patched = []

    def tearDown(self):
        for module, name, value in self.patched:
            setattr(module, name, value)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def patch(self, module, name, value):
        self.patched.append((module, name, getattr(module, name)))
        setattr(module, name, value)

    def grade(self) -> dict:
        entry = {"id": "09.2", "tests": []}
        verdicts.grade_time(self.exercise, entry, TimedFake(self.tmp), self.instructor, self.options, dict(ENV))
        return entry

    def test_other_work_than_the_answers_fails_without_the_correctness_prefix(self):
        def delegated(run_side, reps, points, metric):
            raise outside_timing.NotOwnWork("the timed call is not the exercise's own work: ...")
        self.patch(outside_timing, "measure", delegated)
        entry = self.grade()
        self.assertEqual((entry["status"], entry["points"]), ("fail", 0))
        self.assertEqual(entry["reason"], "the timed call is not the exercise's own work: ...")

        def wrong(run_side, reps, points, metric):
            raise scoring.PerfFailure("fail", "a timed repetition gave a wrong answer")
        self.patch(outside_timing, "measure", wrong)
        self.assertEqual(self.grade()["reason"], f"{verdicts.NO_PERF_POINTS}: a timed repetition gave a wrong answer")

    def test_each_side_runs_only_for_its_clock(self):
        calls = []

        class Session:
            def __init__(self, cmd, env, cwd, timeout):
                self.side = cmd[cmd.index("--time") + 1]
                calls.append(("start", self.side))

            def resume(self):
                calls.append(("resume", self.side))

            def pause(self):
                calls.append(("pause", self.side))

            def frozen(self):
                return True

            def clock(self, nonce):
                calls.append(("clock", self.side))
                return 0.1, {"done": True, "checks": []}

            def close(self):
                calls.append(("close", self.side))

        def two_rounds(run_side, reps, points, metric):
            run_side("student", 1)
            run_side("none", 1)
            run_side("student", 2)
            raise scoring.PerfFailure("error", "enough")
        self.patch(outside_timing, "TimedSession", Session)
        self.patch(outside_timing, "measure", two_rounds)
        self.grade()
        self.assertEqual(calls, [("start", "exercise"), ("resume", "exercise"), ("clock", "exercise"),
                                 ("pause", "exercise"), ("start", "none"), ("resume", "none"), ("clock", "none"),
                                 ("pause", "none"), ("resume", "exercise"), ("clock", "exercise"),
                                 ("pause", "exercise"), ("close", "exercise"), ("close", "none")])


class InstructorBuildTests(FixtureCase):
    """The fixture's instructor trees, built once for the class."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.course = Course(cls.repo)
        cls.options = GradeOptions(["01.1"], 31, 120.0, 2, False, None, threading.Lock())
        cls.instructor = verdicts.InstructorBuilds(cls.course, cls.tmp / "instructor-builds", cls.options,
                                                   dict(ENV), [])

    def test_answers_are_built_once_and_reference_cases_cached(self):
        first = self.instructor.answers(["probe_01_1"])
        self.assertIsInstance(first, Build, first)
        self.assertIs(self.instructor.answers(["probe_01_1"]), first)
        cases = self.instructor.reference_cases("01.1", 31, 60.0)
        self.assertIsInstance(cases, dict, cases)
        self.assertEqual((cases["exercise"], cases["seed"]), ("01.1", 31))
        names = [c["name"] for c in cases["cases"]]
        self.assertIn("sum_of_squares n=257 negative values only", names)
        # Cached: the same answer without running the probe again (its program gone).
        (first.folder / first.target_artifact("probe_01_1")).unlink()
        self.assertIs(self.instructor.reference_cases("01.1", 31, 60.0), cases)
        # Another seed is another run: the missing program is rebuilt, and the values differ.
        other = self.instructor.reference_cases("01.1", 32, 60.0)
        self.assertIsInstance(other, dict, other)
        self.assertNotEqual(other["cases"], cases["cases"])

    def test_the_stub_tree_has_the_optimize_exercise_as_handed_out_and_the_others_answered(self):
        stub = self.instructor.stub("02.1")
        self.assertIsInstance(stub, Build, stub)
        text = (stub.source / "02_scale/src/scale.cpp").read_text()
        self.assertIn("sleep_for(std::chrono::milliseconds(40))", text)
        self.assertNotIn("for (std::size_t element = 0;", text)
        self.assertIn("return total_of_squares;", (stub.source / "01_sums/src/sums.cpp").read_text())

    def test_a_target_the_tree_lacks_is_said(self):
        self.assertEqual(self.instructor.answers(["probe_09_9"]), "probe_09_9 is not a target of the instructor's tree")

    def student(self, name: str, change=None) -> Build:
        tree = self.tmp / name
        write_handout(self.course, tree, [], git_commit=False)
        if change:
            change(tree)
        build = Build(tree, tree / "build", dict(ENV), 2, [])
        self.assertEqual(build.configure()[0], True, build.log[-2000:])
        ok, log = build.build([build.target_artifact("probe_01_1")])
        self.assertTrue(ok, log[-2000:])
        return build

    def test_check_correct_passes_the_key_and_fails_a_wrong_answer(self):
        work = self.tmp / "work"
        key = self.student("key-tree")
        status, reason = verdicts.check_correct(self.course.exercises["01.1"], key, self.instructor, self.options,
                                                dict(ENV), work)
        self.assertEqual((status, reason), ("pass", ""))
        wrong = self.student("wrong-tree", lambda tree: edit(
            tree / "01_sums/src/sums.cpp", "return static_cast<long long>(v) * v;",
            "return v > 0 ? static_cast<long long>(v) * v : 0;"))
        status, reason = verdicts.check_correct(self.course.exercises["01.1"], wrong, self.instructor, self.options,
                                                dict(ENV), work)
        self.assertEqual(status, "fail")
        self.assertTrue(reason.startswith("wrong output for the grader's inputs (seed 31): case 'sum_of_squares "
                                          "n=257 negative values only': 1 of 1 values wrong; value 0: got 0, want "),
                        reason)
        written = json.loads((work / "outputs" / "student-01.1.json").read_text())
        self.assertEqual(written["seed"], 31)


if __name__ == "__main__":
    unittest.main()
