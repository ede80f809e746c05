#!/usr/bin/env python3
"""Tests of scripts/course on a course in miniature (scripts/tests/fixture: two chapters, a CPU exercise
with two regions, a GPU exercise graded by racecheck, an optimize exercise timed by a CPU program, and
known-wrong solutions of each; plain C++ and doctest, no CUDA). The fixture
gets the real cmake/CourseExercises.cmake, common/testing/test_main.cpp and scripts/course copied in,
so the pieces the course uses are the pieces tested. Registered with ctest as course.kit_tests.

    python3 scripts/tests/test_course.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import csv
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURE = HERE / "fixture"
REAL_FILES = ["scripts/course", "scripts/course_lib/instructor_only.txt", "cmake/CourseExercises.cmake",
              "common/testing/test_main.cpp", "common/include/common/errors.hpp",
              *sorted(str(p.relative_to(REPO)) for p in (REPO / "scripts" / "course_lib").glob("*.py"))]
# Without a GPU whatever the machine has, so that the results below do not depend on where they run.
# The fixture course is CPU-only: REQUIRE_GPU=1 (set by scripts/gpu_validate.sh) would turn its GPU
# skips into failures, so it is left out of every run here.
os.environ.pop("REQUIRE_GPU", None)
ENV = dict(os.environ, COURSE_GPU="0")


def load_course_module():
    loader = importlib.machinery.SourceFileLoader("course_tool", str(REPO / "scripts" / "course"))
    spec = importlib.util.spec_from_loader("course_tool", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["course_tool"] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


course = load_course_module()


def git(folder: Path, *args: str) -> str:
    env = dict(ENV, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


def make_fixture(dest: Path) -> Path:
    """The fixture course as an instructor's git repository at `dest`."""
    shutil.copytree(FIXTURE, dest)
    for rel in REAL_FILES:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, dest / rel)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "fixture course")
    return dest


def tool(repo: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """scripts/course of the fixture repository `repo`. Where bubblewrap cannot make namespaces (a CI
    container), grade and gradebook run --no-sandbox here; test_sandbox.py and test_grade_cheats.py
    test the sandbox and skip, saying why, on such a machine."""
    if args and args[0] in ("grade", "gradebook") and NO_SANDBOX_HERE and "--no-sandbox" not in args:
        args = (*args, "--no-sandbox")
    return subprocess.run([sys.executable, str(repo / "scripts" / "course"), *args], cwd=repo, env=ENV,
                          capture_output=True, text=True, timeout=timeout)


sys.path.insert(0, str(REPO / "scripts"))
from course_lib import sandbox as _sandbox  # noqa: E402
NO_SANDBOX_HERE = _sandbox.probe(_sandbox.find_bwrap(REPO))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


def solution_lines(path: Path) -> list[str]:
    """The normalized lines between '#ifndef COURSE_STUB_' and '#else' that the stub (between '#else'
    and '#endif') does not also have: what a handout must not contain. Read without the tool."""
    solution, stub, part = [], set(), None
    for line in path.read_text().splitlines():
        if line.startswith("#ifndef COURSE_STUB_"):
            part = "solution"
        elif line.startswith("#else"):
            part = "stub"
        elif line.startswith("#endif"):
            part = None
        elif part == "solution":
            solution.append(" ".join(line.split()))
        elif part == "stub":
            stub.add(" ".join(line.split()))
    return [l for l in solution if l not in stub]


class MarkerTests(unittest.TestCase):
    GOOD = "\n".join([
        "int before;",
        "// BEGIN SOLUTION 03.1",
        "#ifndef COURSE_STUB_03_1",
        "#if defined(FAST)",
        "int solution_a;",
        "#else",
        "int solution_b;",
        "#endif",
        "#else",
        "int stub;  // TODO",
        "#endif",
        "// END SOLUTION 03.1",
        "int after;",
    ])

    def parse(self, text: str, path: str = "03_x/src/k.cu"):
        return course.parse_regions(path, text)

    def assert_marker_error(self, text: str, line: int, phrase: str, path: str = "03_x/src/k.cu"):
        with self.assertRaises(course.MarkerError) as caught:
            self.parse(text, path)
        self.assertIn(f"{path}:{line}:", str(caught.exception))
        self.assertIn(phrase, str(caught.exception))

    def test_a_region_with_nested_conditionals_parses(self):
        (region,) = self.parse(self.GOOD)
        self.assertEqual((region.exercise, region.begin, region.end), ("03.1", 2, 12))
        self.assertEqual(region.solution, ["#if defined(FAST)", "int solution_a;", "#else", "int solution_b;", "#endif"])
        self.assertEqual(region.stub, ["int stub;  // TODO"])

    def test_render_writes_the_stub_or_the_solution_without_markers(self):
        regions = self.parse(self.GOOD)
        self.assertEqual(course.render(self.GOOD, regions, {"03.1"}), "int before;\nint stub;  // TODO\nint after;")
        solution = course.render(self.GOOD, regions, set())
        self.assertNotIn("SOLUTION", solution)
        self.assertNotIn("COURSE_STUB", solution)
        self.assertIn("int solution_a;", solution)

    def lines(self):
        return self.GOOD.split("\n")

    def variant(self, index: int, replacement: list[str]) -> str:
        lines = self.lines()
        lines[index:index + 1] = replacement
        return "\n".join(lines)

    def test_begin_never_closed(self):
        self.assert_marker_error("\n".join(self.lines()[:11]), 2, "never closed")

    def test_end_without_begin(self):
        self.assert_marker_error("x\n// END SOLUTION 03.1\n", 2, "without a BEGIN")

    def test_nested_region(self):
        self.assert_marker_error(self.variant(4, ["// BEGIN SOLUTION 03.2"]), 5, "nested BEGIN SOLUTION 03.2")

    def test_duplicate_begin(self):
        self.assert_marker_error(self.variant(4, ["// BEGIN SOLUTION 03.1"]), 5, "duplicate BEGIN SOLUTION 03.1")

    def test_missing_else(self):
        text = "\n".join(["// BEGIN SOLUTION 03.1", "#ifndef COURSE_STUB_03_1", "int s;", "#endif",
                          "// END SOLUTION 03.1"])
        self.assert_marker_error(text, 4, "missing #else")

    def test_duplicate_else(self):
        self.assert_marker_error(self.variant(9, ["int stub;", "#else"]), 11, "duplicate #else")

    def test_missing_or_wrong_guard(self):
        self.assert_marker_error(self.variant(2, ["#ifndef COURSE_STUB_03_2"]), 3, "#ifndef COURSE_STUB_03_1")
        self.assert_marker_error(self.variant(2, ["#if 1"]), 3, "#ifndef COURSE_STUB_03_1")

    def test_end_of_another_region(self):
        self.assert_marker_error(self.variant(11, ["// END SOLUTION 03.2"]), 12, "END SOLUTION 03.2")

    def test_end_before_endif(self):
        self.assert_marker_error(self.variant(10, []), 11, "without #endif")

    def test_bad_id(self):
        self.assert_marker_error("// BEGIN SOLUTION 3.1\n", 1, "not an exercise id")

    def test_stub_macro_outside_a_region(self):
        self.assert_marker_error("#ifdef COURSE_STUB_03_1\n#endif\n", 1, "outside a BEGIN/END")

    def test_elif(self):
        self.assert_marker_error(self.variant(8, ["#elif X"]), 9, "#elif")

    def test_hash_form_uncomments_the_stub_lines(self):
        text = "a = 1\n    # BEGIN SOLUTION 03.1\n    b = solve()\n    # STUB: b = None  # TODO\n" \
               "    # STUB:\n    # END SOLUTION 03.1\nc = 3\n"
        (region,) = self.parse(text, "03_x/tool.py")
        self.assertEqual(course.render(text, [region], {"03.1"}), "a = 1\n    b = None  # TODO\n    \nc = 3\n")
        self.assertEqual(course.render(text, [region], set()), "a = 1\n    b = solve()\nc = 3\n")

    def test_hash_form_errors(self):
        self.assert_marker_error("# BEGIN SOLUTION 03.1\nx = 1\n# END SOLUTION 03.1\n", 3, "missing '# STUB:'",
                                 "CMakeLists.txt")
        self.assert_marker_error("# BEGIN SOLUTION 03.1\n# STUB: x\ny\n# END SOLUTION 03.1\n", 3,
                                 "after the '# STUB:' lines", "a.py")
        self.assert_marker_error("# STUB: x\n", 1, "outside", "a.cmake")
        self.assert_marker_error("# BEGIN SOLUTION 03.1\n# STUB: x\n", 1, "never closed", "a.py")

    def test_other_files_are_not_parsed(self):
        self.assertEqual(self.parse("// BEGIN SOLUTION nonsense\n", "README.md"), [])


class KnownWrongRenderTests(unittest.TestCase):
    """What check-wrong grades: the instructor's file with the known-wrong lines in one region's stub
    branch, as the handout of that exercise holds it, with the exercise's other regions solved."""

    def files(self, path: str, text: str, number: int, body: list[str]) -> str:
        regions = course.parse_regions(path, text)
        tree = type("Tree", (), {"text": lambda self, p: text, "regions": {path: regions}})()
        exercise = course.Exercise("03.1", "03_x", {"files": [path[len("03_x/"):]]})
        mine = course.exercise_regions(tree, exercise)
        wrong = course.KnownWrong("03_x/instructor/wrong/03.1-x", "03.1", number, mine[number - 1], "failed",
                                  "x", body, {})
        return course.known_wrong_files(tree, exercise, wrong)[path]

    def test_c_form_the_chosen_region_takes_the_lines_the_others_their_solution(self):
        text = "\n".join(["int a;",
                          "// BEGIN SOLUTION 03.1", "#ifndef COURSE_STUB_03_1", "int one = 1;", "#else", "int one;",
                          "#endif", "// END SOLUTION 03.1",
                          "// BEGIN SOLUTION 03.2", "#ifndef COURSE_STUB_03_2", "int other = 2;", "#else",
                          "int other;", "#endif", "// END SOLUTION 03.2",
                          "// BEGIN SOLUTION 03.1", "#ifndef COURSE_STUB_03_1", "int two = 2;", "#else", "int two;",
                          "#endif", "// END SOLUTION 03.1", "int b;"])
        self.assertEqual(self.files("03_x/k.cu", text, 2, ["#if 1", "int two = 3;", "#endif"]),
                         "int a;\nint one = 1;\nint other = 2;\n#if 1\nint two = 3;\n#endif\nint b;")
        self.assertEqual(self.files("03_x/k.cu", text, 1, ["int one = 0;"]),
                         "int a;\nint one = 0;\nint other = 2;\nint two = 2;\nint b;")

    def test_hash_form_keeps_indentation_and_blank_lines(self):
        text = "a = 1\n    # BEGIN SOLUTION 03.1\n    b = solve()\n    # STUB: b = None\n    # END SOLUTION 03.1\nc = 3\n"
        self.assertEqual(self.files("03_x/tool.py", text, 1, ["    b = broken()", "", "    b += 1"]),
                         "a = 1\n    b = broken()\n\n    b += 1\nc = 3\n")


# The performance rule: scripts/tests/test_scoring.py (course_lib/scoring.py).


class PartialHandoutTests(unittest.TestCase):
    """A handout of some exercises (exercises.json then lists only those, instructor/ is gone) still passes
    its own docs test: the figures scripts may not look up an exercise or answer key it lacks (05's
    figures raised StopIteration in a handout of 05.2, 06.2 and 06.3 on the GPU machine)."""

    def test_figures_check_passes_in_a_handout_of_one_exercise_per_chapter_left_out(self):
        with tempfile.TemporaryDirectory(prefix="partial-handout-") as tmp:
            out = Path(tmp) / "handout"
            result = tool(REPO, "handout", "--out", str(out), "--exercises", "01.1")
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            check = subprocess.run([sys.executable, "scripts/make_figures.py", "--check"], cwd=out,
                                   capture_output=True, text=True, timeout=300)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
            self.assertIn("tables match results", check.stdout)


class ClassifyTests(unittest.TestCase):
    """How a ctest -V run becomes a status and a one-line reason (the outputs as ctest prints them)."""

    @staticmethod
    def run_of(name: str, verdict: str, *lines: str) -> str:
        own = "\n".join(f"1: {l}" for l in lines)
        return f"test 1\n    Start 1: {name}\n\n1: Test command: /b/t\n{own}\n1/1 Test #1: {name} " \
               f"..........{verdict}   0.02 sec\n"

    def classify(self, raw: str, name: str = "exercise.03.1"):
        return course.classify(name, raw, 0.02, 60)

    def test_segfault(self):
        r = self.classify(self.run_of("exercise.03.1", "***Exception: SegFault"))
        self.assertEqual((r.status, r.reason), ("crash", "crashed: SegFault"))

    def test_doctest_catches_the_signal(self):
        r = self.classify(self.run_of("exercise.03.1", "***Failed", "TEST CASE:  sums",
                                      "t.cu:9: FATAL ERROR: test case CRASHED: SIGSEGV - Segmentation violation signal"))
        self.assertEqual(r.status, "crash")
        self.assertIn("SIGSEGV", r.reason)

    def test_illegal_address(self):
        r = self.classify(self.run_of("exercise.03.1", "***Failed", "TEST CASE:  sums",
                                      "CUDA error: an illegal memory access was encountered (t.cu:40)"))
        self.assertEqual(r.status, "crash")
        self.assertIn("illegal memory access", r.reason)

    def test_sanitizer_report(self):
        r = self.classify(self.run_of("exercise.03.1.racecheck", "***Failed",
                                      "========= COMPUTE-SANITIZER",
                                      "========= Error: Race reported between Write access at reduce+0x90",
                                      "=========     and Read access at reduce+0x120 [16 hazards]",
                                      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)",
                                      "========= ERROR SUMMARY: 1 error"), "exercise.03.1.racecheck")
        self.assertEqual(r.status, "sanitizer")
        self.assertEqual(r.reason, "compute-sanitizer reported 1 error(s): Error: Race reported between "
                                   "Write access at reduce+0x90")

    def test_missing_sanitizer_is_an_error_not_a_pass(self):
        r = self.classify(self.run_of("exercise.03.1.racecheck", "***Failed  Error regular expression found in output.",
                                      "FAILED: compute-sanitizer not found: exercise 03.1 is graded by racecheck"),
                          "exercise.03.1.racecheck")
        self.assertEqual(r.status, "error")
        self.assertTrue(r.reason.startswith("compute-sanitizer not found"))

    def test_a_pass_needs_doctest_to_have_run_a_case(self):
        r = self.classify(self.run_of("exercise.03.1", " Passed", "hello"))
        self.assertEqual(r.status, "fail")
        ok = self.run_of("exercise.03.1", " Passed", "[doctest] test cases: 1 | 1 passed | 0 failed | 4 skipped")
        self.assertEqual(self.classify(ok).status, "pass")

    def test_output_is_truncated(self):
        r = self.classify(self.run_of("exercise.03.1", "***Failed", *["x" * 100] * 200))
        self.assertLessEqual(len(r.output), course.OUTPUT_KEEP + 40)
        self.assertTrue(r.output.startswith("[... output truncated ...]"))


class FixtureCase(unittest.TestCase):
    """A fresh fixture course per class, in a temporary folder."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-kit-test-"))
        cls.repo = make_fixture(cls.tmp / "instructor")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_usage_error(self, result, phrase: str):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn(phrase, result.stderr)


class CommandLineTests(FixtureCase):
    def test_every_command_has_help(self):
        for command in ([], ["list"], ["handout"], ["grade"], ["check-wrong"], ["gradebook"]):
            result = tool(self.repo, *command, "--help")
            self.assertEqual(result.returncode, 0, command)
            self.assertIn("usage:", result.stdout)

    def test_list_json(self):
        result = tool(self.repo, "list", "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = json.loads(result.stdout)
        self.assertEqual([r["id"] for r in rows], ["01.1", "01.2", "02.1"])
        self.assertEqual(rows[0], {"id": "01.1", "chapter": "01_sums", "title": "Sum of squares",
                                   "kind": "implement", "points": 4, "gpu": False, "tests": ["exercise.01.1"]})
        self.assertTrue(rows[1]["gpu"])

    def test_usage_errors_exit_2(self):
        self.assert_usage_error(tool(self.repo, "handout", "--out", str(self.tmp / "h"), "--exercises", "01.9"),
                                "valid: 01.1, 01.2, 02.1")
        self.assert_usage_error(tool(self.repo, "grade", "--exercises", "7.1"), "valid: 01.1, 01.2, 02.1")
        self.assert_usage_error(tool(self.repo, "handout", "--out", str(self.tmp / "h"), "--chapters", "05"),
                                "no exercises in chapter '05'")
        self.assert_usage_error(tool(self.repo, "handout"), "--out")
        self.assert_usage_error(tool(self.repo, "handout", "--check", "--out", "x"), "drop --out")
        self.assert_usage_error(tool(self.repo, "grade", "--timeout", "0"), "positive")
        self.assert_usage_error(tool(self.repo, "grade", "--repo", str(self.tmp / "nowhere")), "no such folder")
        self.assert_usage_error(tool(self.repo, "gradebook", str(self.tmp), "--csv", "x.csv", "--jobs", "0"),
                                "at least 1")
        self.assert_usage_error(tool(self.repo, "frobnicate"), "invalid choice")
        full = self.tmp / "full"
        (full / "something").mkdir(parents=True)
        self.assert_usage_error(tool(self.repo, "handout", "--out", str(full)), "not empty")
        self.assert_usage_error(tool(self.repo, "handout", "--out", str(self.repo / "inside")), "outside")

    def test_outputs_are_checked_before_any_work_and_empty_values_refused(self):
        # Issue 31, items 10 and 12: each was a traceback, or a refusal only after the grading, or "everything".
        long_path = "/tmp/" + "p" * 5000
        here = tempfile.mkdtemp(prefix="course-outputs-", dir=self.tmp)
        cases = [
            (("handout", "--out", "/etc/hostname/x"), "not a folder"),
            (("handout", "--out", "/proc/h"), "cannot create a file in /proc"),
            (("handout", "--out", long_path), "too long"),
            (("handout", "--out", f"{here}/{'n' * 255}"), "too long"),
            (("grade", "--json", "/etc/hostname/x.json", "--markdown", f"{here}/ok.md"), "/etc/hostname is not a folder"),
            (("grade", "--junit", "/dev/full"), "not a regular file"),
            (("grade", "--json", f"{here}/r.json", "--markdown", f"{here}/./r.json"), "name the same file"),
            (("check-wrong", "--json", long_path), "too long"),
            (("check-wrong", "--json", "/proc/x.json"), "cannot create a file in /proc"),
            (("gradebook", str(self.tmp), "--csv", "/dev/full"), "not a regular file"),
            (("gradebook", str(self.tmp), "--csv", here), "is a folder"),
            (("gradebook", str(self.tmp), "--csv", "/etc/hostname/book.csv"), "not a folder"),
            (("handout", "--out", f"{here}/h", "--exercises", ""), "--exercises: an empty value"),
            (("handout", "--out", f"{here}/h", "--chapters", " "), "--chapters: an empty value"),
            (("grade", "--repo", ""), "--repo: an empty value"),
            (("check-wrong", "--ids", ""), "--ids: an empty value"),
            (("gradebook", "", "--csv", f"{here}/b.csv"), "SUBMISSIONS: an empty value"),
        ]
        for args, phrase in cases:
            result = tool(self.repo, *args, timeout=60)
            self.assertEqual(result.returncode, 2, f"{args[:3]}: {result.stderr[-500:]}")
            self.assertIn(phrase, result.stderr, args[:3])
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr[-500:])
            self.assertNotIn("Traceback", result.stderr)
        self.assertFalse(Path("/dev/full-reports").exists())
        self.assertEqual(sorted(p.name for p in Path(here).iterdir()), [])  # nothing made, nothing graded

    def test_sigterm_and_sighup_end_the_build_and_remove_the_temporary_folder(self):
        # Issue 31, item 11: SIGTERM left ninja running as an orphan and /tmp/course-grade-* behind.
        def working_under(folder: Path) -> list[int]:
            pids = []
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    if os.readlink(entry / "cwd").startswith(str(folder)):
                        pids.append(int(entry.name))
                except OSError:
                    pass
            return pids

        for signum in (signal.SIGTERM, signal.SIGHUP):
            scratch = Path(tempfile.mkdtemp(prefix="course-signal-", dir=self.tmp))
            proc = subprocess.Popen([sys.executable, str(self.repo / "scripts" / "course"), "grade", "--repo",
                                     str(self.repo), "--jobs", "1"], cwd=self.repo, env=dict(ENV, TMPDIR=str(scratch)),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not working_under(scratch) and proc.poll() is None:
                time.sleep(0.05)
            self.assertTrue(working_under(scratch), "no build started under the temporary folder")
            proc.send_signal(signum)
            _, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 128 + signum, err[-800:])
            self.assertIn(f"stopped by {signal.Signals(signum).name}", err)
            time.sleep(0.5)
            self.assertEqual(working_under(scratch), [], "a build or test kept running")
            self.assertEqual(list(scratch.iterdir()), [], "the temporary folder was left behind")

    def test_a_deeply_nested_exercises_json_is_a_usage_error(self):
        repo = make_fixture(self.tmp / "nested-metadata")
        (repo / "01_sums/exercises.json").write_text("[" * 100000 + "]" * 100000)
        git(repo, "commit", "-q", "-am", "nested")
        result = tool(repo, "list")
        self.assert_usage_error(result, "01_sums/exercises.json")
        self.assertNotIn("Traceback", result.stderr)

    def test_bad_markers_and_metadata_exit_2_naming_file_and_line(self):
        repo = make_fixture(self.tmp / "bad-markers")
        edit(repo / "01_sums/src/sums.cpp", "#else\nlong long", "long long")
        result = tool(repo, "list")
        self.assert_usage_error(result, "01_sums/src/sums.cpp:15: missing #else")
        repo = make_fixture(self.tmp / "bad-metadata")
        edit(repo / "02_scale/exercises.json", '"points": 5', '"points": 0')
        edit(repo / "01_sums/src/sums.cpp", "SOLUTION 01.2", "SOLUTION 01.3")
        edit(repo / "01_sums/src/sums.cpp", "COURSE_STUB_01_2", "COURSE_STUB_01_3")
        result = tool(repo, "list")
        self.assert_usage_error(result, "exercise 02.1: points must be a positive integer")
        self.assertIn("01_sums/src/sums.cpp:19: region of exercise 01.3, which no exercises.json declares",
                      result.stderr)
        self.assertIn("exercise 01.2 has no BEGIN/END SOLUTION 01.2 region", result.stderr)
        self.assertNotIn("scale.cpp", result.stderr)  # 02.1's metadata is wrong, its region is not

    def test_handout_has_stubs_and_no_solution_and_no_instructor_file(self):
        out = self.tmp / "handout"
        result = tool(self.repo, "handout", "--out", str(out))
        self.assertEqual(result.returncode, 0, result.stderr)
        files = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and ".git" not in p.parts}
        self.assertNotIn("docs/instructors.md", files)
        self.assertNotIn("02_scale/instructor/wrong/02.1-skips-last.cpp", files)
        self.assertIn("01_sums/tests/test_sums.cpp", files)
        everything = " ".join(" ".join((out / f).read_text().split()) for f in files)
        secrets_ = [l for p in ("01_sums/src/sums.cpp", "02_scale/src/scale.cpp")
                    for l in solution_lines(self.repo / p) if len(l) >= 20]
        self.assertTrue(secrets_)
        for line in secrets_:
            self.assertNotIn(line, everything)
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "COURSE_STUB_01"):
            self.assertNotIn(marker, (out / "01_sums/src/sums.cpp").read_text())
        self.assertIn("TODO: add up the square", (out / "01_sums/src/sums.cpp").read_text())
        self.assertEqual(git(out, "rev-list", "--count", "HEAD").strip(), "1")
        self.assertEqual(git(out, "status", "--porcelain"), "")
        # Again into the same folder: refused, then done with --force.
        self.assertEqual(tool(self.repo, "handout", "--out", str(out)).returncode, 2)
        result = tool(self.repo, "handout", "--out", str(out), "--force", "--exercises", "01.1")
        self.assertEqual(result.returncode, 0, result.stderr)
        sums = (out / "01_sums/src/sums.cpp").read_text()
        self.assertIn("TODO: add up the square", sums)
        self.assertIn("return 32;", sums)   # 01.2 not set: its solution stays, without markers
        self.assertNotIn("COURSE_STUB", sums)
        self.assertEqual([e["id"] for e in json.loads((out / "01_sums/exercises.json").read_text())], ["01.1"])
        self.assertEqual(json.loads((out / "02_scale/exercises.json").read_text()), [])

    def test_force_never_empties_a_folder_it_did_not_make(self):
        # Issue 31, item 1: --force emptied any folder (a git repository with history and an uncommitted
        # file, and the same through a symlink). Only a handout this tool made (its stamp) is replaced.
        unrelated = self.tmp / "unrelated-repo"
        unrelated.mkdir()
        (unrelated / "code.txt").write_text("history\n")
        git(unrelated, "init", "-q", "-b", "main")
        git(unrelated, "add", "code.txt")
        git(unrelated, "commit", "-q", "-m", "work")
        (unrelated / "notes.txt").write_text("uncommitted\n")
        before = sorted(str(p.relative_to(unrelated)) for p in unrelated.rglob("*"))
        link = self.tmp / "link-to-unrelated"
        link.symlink_to(unrelated, target_is_directory=True)
        # A fake stamp that is a symlink, and one that is no handout's JSON, are no stamps either.
        faked = self.tmp / "fake-stamp"
        (faked / "scripts/course_lib").mkdir(parents=True)
        (faked / "scripts/course_lib/handout.json").symlink_to(self.repo / "01_sums/exercises.json")
        (faked / "keep.txt").write_text("keep\n")
        garbled = self.tmp / "garbled-stamp"
        (garbled / "scripts/course_lib").mkdir(parents=True)
        (garbled / "scripts/course_lib/handout.json").write_text("[]")
        (garbled / "keep.txt").write_text("keep\n")
        for target, phrase in ((unrelated, "not a handout"), (link, "symlink"), (faked, "not a handout"),
                               (garbled, "not a handout")):
            self.assert_usage_error(tool(self.repo, "handout", "--out", str(target), "--force"), phrase)
        self.assertEqual(sorted(str(p.relative_to(unrelated)) for p in unrelated.rglob("*")), before)
        self.assertEqual((unrelated / "notes.txt").read_text(), "uncommitted\n")
        self.assertEqual(git(unrelated, "rev-list", "--count", "HEAD").strip(), "1")
        self.assertTrue((faked / "keep.txt").exists() and (garbled / "keep.txt").exists())
        # A symlink to a real handout is refused too: --force never follows a link out.
        made = self.tmp / "made-handout"
        self.assertEqual(tool(self.repo, "handout", "--out", str(made)).returncode, 0)
        made_link = self.tmp / "link-to-handout"
        made_link.symlink_to(made, target_is_directory=True)
        self.assert_usage_error(tool(self.repo, "handout", "--out", str(made_link), "--force"), "symlink")
        self.assertTrue((made / "scripts/course_lib/handout.json").is_file())
        # The handout itself is replaced, and a symlink inside it is removed, never followed.
        (made / "outside-link").symlink_to(unrelated, target_is_directory=True)
        self.assertEqual(tool(self.repo, "handout", "--out", str(made), "--force").returncode, 0)
        self.assertFalse((made / "outside-link").exists())
        self.assertEqual((unrelated / "notes.txt").read_text(), "uncommitted\n")


    def test_a_line_the_code_shows_anyway_is_no_secret_but_a_page_quoting_it_leaks(self):
        repo = make_fixture(self.tmp / "shared-line")
        (repo / "01_sums/src/other.cpp").write_text("long f() {\n  long long total_of_squares = 0;\n  return 1;\n}\n")
        git(repo, "add", "-A")
        self.assertEqual(tool(repo, "handout", "--out", str(self.tmp / "shared-ok")).returncode, 0)
        (repo / "01_sums/notes.md").write_text("Start with `return total_of_squares;` at the end.\n")
        git(repo, "add", "-A")
        result = tool(repo, "handout", "--out", str(self.tmp / "shared-leak"))
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("leaks into the handout at 01_sums/notes.md:1: 'return total_of_squares;'", result.stderr)


class OverlayTests(FixtureCase):
    def test_the_instructors_build_files_and_tests_win_but_never_over_an_exercises_own_files(self):
        tree = self.tmp / "overlay-tree"
        shutil.copytree(self.repo, tree, ignore=shutil.ignore_patterns(".git"))
        kept = tree / "02_scale/src/scale.cpp"
        os.utime(kept, (1_000_000_000, 1_000_000_000))
        course.copy_submission(self.repo, tree)   # the same bytes: the time stamp stays (no rebuild)
        self.assertEqual(kept.stat().st_mtime, 1_000_000_000)
        (tree / "01_sums/tests/extra.cpp").write_text("// the student's own test file\n")
        for chapter in ("01_sums", "02_scale"):
            (tree / chapter / "CMakeLists.txt").write_text("# the student's\n")
        fixture = course.Course(self.repo)
        # An exercise whose task is a build file: the student's copy of it is the answer, never replaced.
        fixture.exercises["01.1"].meta["files"] = ["src/sums.cpp", "CMakeLists.txt"]
        course.overlay_instructor(fixture, tree, {"01.1", "02.1"})
        self.assertEqual((tree / "01_sums/CMakeLists.txt").read_text(), "# the student's\n")
        self.assertEqual((tree / "02_scale/CMakeLists.txt").read_text(),
                         (self.repo / "02_scale/CMakeLists.txt").read_text())
        self.assertFalse((tree / "01_sums/tests/extra.cpp").exists())
        self.assertTrue((tree / "01_sums/tests/test_sums.cpp").exists())


class CheckTests(FixtureCase):
    def test_check_passes_on_a_good_course(self):
        result = tool(self.repo, "handout", "--check")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("exercise 01.1: fails on its stub", result.stdout)
        # The fixture's optimize exercise is timed on this CPU: on a loaded machine its solution can score
        # 4/5, which --check notes as timing noise rather than proving the stub slow. Either is a pass.
        self.assertTrue("exercise 02.1: stub correct but slow" in result.stdout
                        or "exercise 02.1: the solution scored" in result.stdout
                        and "timing noise on a busy machine?" in result.stdout, result.stdout)
        self.assertIn("exercise 01.2: not checkable without a GPU", result.stdout)
        self.assertIn("PASSED", result.stdout)

    def test_check_fails_on_a_right_stub_a_leak_and_an_empty_suite(self):
        repo = make_fixture(self.tmp / "broken-course")
        edit(repo / "01_sums/src/sums.cpp", "  (void)values;\n  return 0;",
             "  long long s = 0;\n  for (const int v : values) s += static_cast<long long>(v) * v;\n  return s;")
        (repo / "01_sums/README.md").write_text("The answer:\n\n    long long total_of_squares = 0;\n")
        edit(repo / "02_scale/tests/test_scale.cpp", 'TEST_SUITE("exercise 02.1")', 'TEST_SUITE("exercise 2.1")')
        git(repo, "add", "-A")
        result = tool(repo, "handout", "--check")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("exercise 01.1: its tests pass on the stub", result.stdout)
        self.assertIn("solution line leaks into the handout at 01_sums/README.md:3", result.stdout)
        self.assertIn("exercise.02.1 ran no test case", result.stdout)
        self.assertIn("FAILED", result.stdout)


class PerfRequiresTests(FixtureCase):
    """perf.requires: an optimize exercise whose reference runs another exercise's code (06.3 is timed
    against the pipeline 06.2 fixes) is timed only once that exercise passes."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        edit(cls.repo / "02_scale/exercises.json", '"reference_variant": "reference"',
             '"reference_variant": "reference", "requires": ["01.1"]')
        git(cls.repo, "commit", "-q", "-am", "02.1 is timed only once 01.1 passes")

    def grade(self, repo: Path) -> dict:
        report = self.tmp / f"{repo.name}.json"
        result = tool(self.repo, "grade", "--repo", str(repo), "--json", str(report), "--exercises", "02.1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        (entry,) = json.loads(report.read_text())["exercises"]
        return entry

    def test_timed_when_the_required_exercise_passes_and_not_before(self):
        entry = self.grade(self.repo)
        # Timed: full points, or partial on a loaded machine (the CPU timing is the fixture's, not ours).
        self.assertIn(entry["status"], ("pass", "partial"), entry["reason"])
        self.assertIsNotNone(entry["perf"])
        self.assertTrue(entry["reason"].startswith("perf: "), entry["reason"])
        broken = self.tmp / "01.1-broken"
        shutil.copytree(self.repo, broken, ignore=shutil.ignore_patterns(".git", "build"))
        edit(broken / "01_sums/src/sums.cpp", "total_of_squares += square(v);", "total_of_squares += v;")
        entry = self.grade(broken)
        self.assertEqual((entry["status"], entry["points"], entry["perf"]), ("fail", 0, None), entry["reason"])
        self.assertTrue(entry["reason"].startswith("not timed: the reference runs exercise 01.1's code, so 01.1 "
                                                   "must pass first (exercise.01.1: fail"), entry["reason"])

    def test_a_required_exercise_graded_in_the_same_run_keeps_its_verdict(self):
        # Graded together, 02.1 goes by 01.1's entry of this grade (its tests are not run a second time,
        # which for a timing test could give a second, different answer); the reason quotes that entry.
        broken = self.tmp / "01.1-broken-both"
        shutil.copytree(self.repo, broken, ignore=shutil.ignore_patterns(".git", "build"))
        edit(broken / "01_sums/src/sums.cpp", "total_of_squares += square(v);", "total_of_squares += v;")
        report = self.tmp / "both.json"
        result = tool(self.repo, "grade", "--repo", str(broken), "--json", str(report), "--exercises", "01.1,02.1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        entries = {e["id"]: e for e in json.loads(report.read_text())["exercises"]}
        self.assertEqual(entries["01.1"]["status"], "fail", entries["01.1"]["reason"])
        entry = entries["02.1"]
        self.assertEqual((entry["status"], entry["points"], entry["perf"]), ("fail", 0, None), entry["reason"])
        self.assertTrue(entry["reason"].startswith("not timed: the reference runs exercise 01.1's code, so 01.1 "
                                                   "must pass first (it scored fail in this grade: failed:"),
                        entry["reason"])

    def test_handout_check_times_it_with_the_required_exercise_solved(self):
        # Both stubbed, the grader does not time 02.1 (its reference runs 01.1's stub); --check says so, and
        # times 02.1's stub on a side where 01.1 keeps its solution, as after a student has done 01.1.
        result = tool(self.repo, "handout", "--check")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("exercise 02.1: with 01.1 stubbed too, not timed (not timed: the reference runs exercise "
                      "01.1's code", result.stdout)
        self.assertTrue("exercise 02.1: stub correct but slow" in result.stdout
                        or "exercise 02.1: the solution scored" in result.stdout, result.stdout)
        self.assertIn("exercise 01.1: fails on its stub", result.stdout)

    def test_requires_must_name_other_exercises(self):
        for value, phrase in (('["09.9"]', "perf.requires names 09.9, which is not an exercise"),
                              ('["02.1"]', "perf.requires must not name the exercise itself"),
                              ('"01.1"', "perf.requires must be a non-empty list of exercise ids")):
            repo = make_fixture(self.tmp / f"requires-{len(value)}-{value.count('9')}")
            edit(repo / "02_scale/exercises.json", '"reference_variant": "reference"',
                 f'"reference_variant": "reference", "requires": {value}')
            self.assert_usage_error(tool(repo, "list"), phrase)


class GradeTests(FixtureCase):
    """Submissions made from the fixture: the handout as given (stub), the instructor's tree (key), and
    variations of the key."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.handout = cls.tmp / "handout"
        result = tool(cls.repo, "handout", "--out", str(cls.handout))
        assert result.returncode == 0, result.stderr

    def submission(self, name: str, base: Path) -> Path:
        dest = self.tmp / name
        shutil.copytree(base, dest, ignore=shutil.ignore_patterns(".git", "build"))
        return dest

    def grade(self, repo: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
        report = self.tmp / f"{repo.name}.json"
        result = tool(self.repo, "grade", "--repo", str(repo), "--json", str(report), *args)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return result, json.loads(report.read_text())

    @staticmethod
    def by_id(report: dict) -> dict:
        return {e["id"]: e for e in report["exercises"]}

    def test_the_harness_and_the_references_are_the_instructors(self):
        # A submission that edits a file no graded exercise asks for (here the timing program of 02.1,
        # where a cheat would shrink its own time or slow the reference) is graded with the instructor's
        # copy of that file: this edit would not even compile, yet 02.1 is timed as usual.
        cheat = self.submission("harness-edited", self.repo)
        edit(cheat / "02_scale/src/bench.cpp", "#include <algorithm>",
             "#error the timing harness is the instructor's\n#include <algorithm>")
        _, report = self.grade(cheat, "--exercises", "02.1")
        entry = self.by_id(report)["02.1"]
        self.assertIn(entry["status"], ("pass", "partial"), entry["reason"])
        self.assertTrue(entry["reason"].startswith("perf: "), entry["reason"])

    def test_key_scores_full_points_and_every_report_is_written(self):
        junit, markdown = self.tmp / "key.xml", self.tmp / "key.md"
        result, report = self.grade(self.repo, "--seed", "42", "--junit", str(junit), "--markdown", str(markdown))
        self.assertIn("seed 42", result.stdout)
        self.assertEqual(report["schema"], "cuda-lessons/grade/v1")
        self.assertEqual(report["seed"], 42)
        e = self.by_id(report)
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (4, "pass"))
        self.assertEqual((e["02.1"]["status"], e["02.1"]["points"]), ("pass", 5), e["02.1"]["reason"])
        self.assertEqual((e["01.2"]["status"], e["01.2"]["points"], e["01.2"]["reason"]),
                         ("needs_gpu", 0, "not graded: needs a GPU"))
        self.assertEqual((report["points"], report["max_points"]), (9, 12))
        root = ET.parse(junit).getroot()
        cases = root.findall("./testsuite/testcase")
        self.assertEqual([c.get("classname") for c in cases], ["exercise.01.1", "exercise.01.2", "exercise.02.1"])
        self.assertIsNotNone(cases[1].find("skipped"))
        self.assertIsNone(cases[0].find("failure"))
        self.assertIn("| 01.1 Sum of squares | 4 / 4 | pass |", markdown.read_text())
        self.assertIn("doing nothing earns nothing", markdown.read_text())

    def test_time_per_exercise_and_in_all_is_printed_and_recorded(self):
        junit = self.tmp / "timed.xml"
        result, report = self.grade(self.repo, "--junit", str(junit))
        timing = report["timing"]
        self.assertEqual(list(timing), ["prepare_s", "configure_s", "build_s", "exercises_s", "total_s"])
        self.assertGreater(timing["total_s"], 0)
        self.assertAlmostEqual(timing["total_s"], sum(v for k, v in timing.items() if k != "total_s"), delta=0.05)
        e = self.by_id(report)
        self.assertEqual(e["01.2"]["wall_s"], 0.0)                       # not graded here: no time
        self.assertGreaterEqual(e["02.1"]["wall_s"], e["02.1"]["tests"][0]["seconds"])   # tests and timing
        self.assertLessEqual(e["01.1"]["wall_s"] + e["02.1"]["wall_s"], timing["exercises_s"] + 0.01)
        self.assertRegex(result.stdout, r"\n02\.1 +5 +5 +pass +\d+\.\d s  perf: ")
        self.assertRegex(result.stdout, r"time: \d+\.\d s wall \(prepare \d+\.\d s, configure \d+\.\d s, build "
                                        r"\d+\.\d s, exercises \d+\.\d s\)")
        cases = ET.parse(junit).getroot().findall("./testsuite/testcase")
        self.assertEqual(float(cases[2].get("time")), e["02.1"]["wall_s"])

    def test_perf_report_states_the_rule_both_times_and_no_points_without_correctness(self):
        result, report = self.grade(self.repo, "--exercises", "02.1")
        (entry,) = report["exercises"]
        perf = entry["perf"]
        self.assertTrue(perf["time"] > 0 and perf["reference_time"] > 0)
        self.assertAlmostEqual(perf["ratio"], perf["time"] / perf["reference_time"])
        self.assertEqual((perf["student_variant"], perf["reference_variant"]), ("student", "reference"))
        self.assertRegex(entry["reason"], r"^perf: .* \(student [\d.e+-]+ time_ms, reference [\d.e+-]+ time_ms, "
                                          r"same run; the untouched stub .*\): within 1\.2x, full points$")
        for text in (report["rules"]["perf"], perf["rule"], result.stdout):
            self.assertIn("CS149", text)
            self.assertIn("no performance points without correctness", text)
        self.assertIn("perf rule: optimize exercises", result.stdout)
        # Fast but wrong: the tests fail, so it is never timed and scores nothing.
        repo = self.submission("fast-but-wrong", self.repo)
        edit(repo / "02_scale/src/scale.cpp", "element < in.size();", "element + 1 < in.size();")
        _, report = self.grade(repo, "--exercises", "02.1")
        (entry,) = report["exercises"]
        self.assertEqual((entry["status"], entry["points"], entry["perf"]), ("fail", 0, None))
        self.assertTrue(entry["reason"].startswith("no performance points without correctness (not timed): "
                                                   "failed: scale multiplies every element"), entry["reason"])

    def test_stub_scores_zero_even_with_its_tests_edited(self):
        repo = self.submission("tampered-stub", self.handout)
        edit(repo / "01_sums/tests/test_sums.cpp", "CHECK(sum_of_squares(v) == expected);", "CHECK(true);")
        edit(repo / "01_sums/exercises.json", '"points": 4', '"points": 40')
        junit = self.tmp / "stub.xml"
        _, report = self.grade(repo, "--junit", str(junit))
        e = self.by_id(report)
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "not_done"))
        self.assertIn("not done (01_sums/src/sums.cpp as handed out)", e["01.1"]["reason"])
        self.assertIn("is NOT correct", e["01.1"]["reason"])
        self.assertEqual((e["02.1"]["points"], e["02.1"]["status"]), (0, "not_done"), e["02.1"]["reason"])
        self.assertIn("slower than the reference", e["02.1"]["reason"])
        self.assertIn("no faster than the stub", e["02.1"]["reason"])
        self.assertEqual(report["max_points"], 12)
        failure = ET.parse(junit).getroot().find("./testsuite/testcase/failure")
        self.assertIn("not done", failure.get("message"))

    def test_a_hang_scores_zero_and_grading_goes_on(self):
        repo = self.submission("hangs", self.repo)
        edit(repo / "01_sums/src/sums.cpp", "long long total_of_squares = 0;",
             "long long total_of_squares = 0;\n  for (volatile int spin = 0;; spin = spin + 1) {}")
        _, report = self.grade(repo, "--timeout", "3")
        e = self.by_id(report)
        self.assertEqual((e["01.1"]["status"], e["01.1"]["points"], e["01.1"]["reason"]),
                         ("timeout", 0, "timed out after 3 s"))
        self.assertEqual(e["02.1"]["points"], 5, e["02.1"]["reason"])

    def test_a_handout_grades_its_own_pushes(self):
        # What .github/workflows/grade.yml runs in a student's repository: the handout's own copy of
        # scripts/course, with the handout's first commit as "the stub as given".
        repo = self.tmp / "student-clone"
        shutil.copytree(self.handout, repo)
        result = tool(repo, "grade", "--json", "report.json")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        e = self.by_id(json.loads((repo / "report.json").read_text()))
        self.assertEqual(e["01.1"]["status"], "not_done")
        edit(repo / "01_sums/src/sums.cpp", "  (void)values;\n  return 0;",
             "  long long s = 0;\n  for (const int v : values) s += static_cast<long long>(v) * v;\n  return s;")
        git(repo, "commit", "-q", "-am", "01.1 done")
        result = tool(repo, "grade", "--json", "report.json")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        e = self.by_id(json.loads((repo / "report.json").read_text()))
        self.assertEqual((e["01.1"]["status"], e["01.1"]["points"]), ("pass", 4))
        self.assertEqual(e["02.1"]["status"], "not_done")

    def test_gradebook_three_submissions_three_rows(self):
        folder = self.tmp / "submissions"
        folder.mkdir()
        # alice: the handout untouched, as a git repository; bob: the key, as a .tar.gz;
        # carol: the key with a syntax error in chapter 02, as a plain folder.
        shutil.copytree(self.handout, folder / "alice")
        key = self.submission("bob-tree", self.repo)
        with tarfile.open(folder / "bob.tar.gz", "w:gz") as archive:
            archive.add(key, arcname="course")
        carol = self.submission("carol", self.repo)
        edit(carol / "02_scale/src/scale.cpp", "out[element] = factor * in[element];", "out[element] = factor *")
        shutil.move(str(carol), folder / "carol")
        book = self.tmp / "book" / "grades.csv"
        result = tool(self.repo, "gradebook", str(folder), "--csv", str(book), "--jobs", "2")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertRegex(result.stdout, r"\[\d/3\] carol: 4/12")
        with book.open() as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual(set(rows), {"alice", "bob", "carol"})
        self.assertEqual((rows["alice"]["total"], rows["alice"]["01.1 status"]), ("0", "not_done"))
        self.assertIn("01.1: not done", rows["alice"]["reason"])
        self.assertEqual((rows["bob"]["total"], rows["bob"]["01.1"], rows["bob"]["02.1"]), ("9", "4", "5"))
        self.assertEqual(rows["bob"]["reason"], "01.2: not graded: needs a GPU")
        self.assertEqual((rows["carol"]["total"], rows["carol"]["01.1"], rows["carol"]["02.1 status"]),
                         ("4", "4", "compile_error"))
        self.assertRegex(rows["carol"]["reason"], r"02\.1: no performance points without correctness \(not timed\): "
                                                  r"does not compile: 02_scale/src/scale\.cpp:\d+:\d+: error")
        self.assertGreater(float(rows["carol"]["wall_s"]), 0)
        self.assertEqual(rows["bob"]["wall_s"], f"{json.loads((book.parent / 'grades-reports' / 'bob.json').read_text())['timing']['total_s']:.1f}")
        for name in ("alice", "bob", "carol"):
            report = json.loads((book.parent / "grades-reports" / f"{name}.json").read_text())
            self.assertEqual(report["student"], name)

    def test_broken_submissions_are_rows_and_a_bare_repository_is_graded(self):
        folder = self.tmp / "broken-submissions"
        folder.mkdir()
        (folder / "dave.tar.gz").write_bytes(b"not a tarball")
        (folder / "erin").mkdir()
        (folder / "erin" / "notes.txt").write_text("I will hand it in tomorrow\n")
        subprocess.run(["git", "clone", "-q", "--bare", str(self.handout), str(folder / "frank.git")], check=True)
        book = self.tmp / "broken.csv"
        result = tool(self.repo, "gradebook", str(folder), "--csv", str(book))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with book.open() as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual((rows["dave"]["status"], rows["dave"]["total"]), ("error", "0"))
        self.assertIn("cannot unpack", rows["dave"]["reason"])
        self.assertEqual(rows["erin"]["status"], "error")
        self.assertIn("not a course tree", rows["erin"]["reason"])
        self.assertEqual((rows["frank"]["status"], rows["frank"]["01.1 status"]), ("graded", "not_done"))
        self.assert_usage_error(tool(self.repo, "grade", "--repo", str(folder / "erin")), "not a course tree")


class KnownWrongTests(FixtureCase):
    """check-wrong on the fixture's known-wrong solutions (NN_topic/instructor/wrong/), and on broken ones."""

    @staticmethod
    def lines_by_file(stdout: str) -> dict[str, str]:
        found = {}
        for line in stdout.splitlines():
            match = re.match(r"^([A-Z-]+) +\d\d\.\d +(\S+) ", line)
            if match:
                found[match.group(2)] = line
        return found

    @staticmethod
    def add_wrong(repo: Path, path: str, text: str) -> None:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def test_every_known_wrong_solution_is_rejected_for_its_reason(self):
        report = self.tmp / "wrong.json"
        result = tool(self.repo, "check-wrong", "--seed", "7", "--json", str(report))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = self.lines_by_file(result.stdout)
        wrong = "01_sums/instructor/wrong/"
        self.assertEqual(len(lines), 5, result.stdout)
        self.assertRegex(lines[wrong + "01.1-constant-answer.cpp"], r"^OK +01\.1 .* 0/4  fail: failed: ")
        self.assertRegex(lines[wrong + "01.1-positive-only.cpp"], r"^OK +01\.1 .* 0/4  fail: failed: ")
        self.assertRegex(lines[wrong + "01.2-half-warp.cpp"], r"^NOT-CHECKED +01\.2 .* -/3  needs_gpu: not checkable "
                                                              r"without a GPU$")
        self.assertRegex(lines["02_scale/instructor/wrong/02.1-skips-last.cpp"],
                         r"^OK +02\.1 .* 0/5  fail: no performance points without correctness \(not timed\): failed: ")
        self.assertRegex(lines["02_scale/instructor/wrong/02.1-still-waits.cpp"],
                         r"^OK +02\.1 .* [0-4]/5  (slow|partial): perf: [\d.]+x slower than the reference ")  # below full, by the machine's speed
        self.assertIn("check-wrong PASSED: 4 rejected for the stated reason, 0 accepted, 0 rejected for another "
                      "reason, 0 not graded, 1 not checkable without a GPU", result.stdout)
        data = json.loads(report.read_text())
        self.assertEqual((data["schema"], data["seed"], data["verdict"]), ("cuda-lessons/check-wrong/v1", 7, "passed"))
        self.assertEqual(data["counts"], {"OK": 4, "WRONG-ACCEPTED": 0, "MIS-REASONED": 0, "NOT-CHECKED": 1,
                                          "ERROR": 0})
        files = {f["file"]: f for f in data["files"]}
        second = files[wrong + "01.1-positive-only.cpp"]
        self.assertEqual((second["region"], second["expect"]), (2, "failed"))
        self.assertRegex(second["region_at"], r"^01_sums/src/sums\.cpp:3\d$")
        self.assertEqual(files[wrong + "01.1-constant-answer.cpp"]["region_at"], "01_sums/src/sums.cpp:3")

    def test_an_accepted_or_misreasoned_known_wrong_solution_fails_the_check(self):
        repo = make_fixture(self.tmp / "wrong-accepted")
        # Right, not wrong: accepted only because check-wrong solves the exercise's other region (square).
        self.add_wrong(repo, "01_sums/instructor/wrong/01.1-actually-right.cpp",
                       "// WRONG: 01.1 region: 1 expect: failed because: (it is right: the check must say so)\n"
                       "long long sum_of_squares(std::span<const int> values) {\n"
                       "  long long sum = 0;\n  for (const int v : values) sum += square(v);\n  return sum;\n}\n")
        # Graded right after a file that builds, in the same build folder: its tests must not run that
        # file's program.
        self.add_wrong(repo, "01_sums/instructor/wrong/01.1-does-not-compile.cpp",
                       "// WRONG: 01.1 region: 2 expect: does not compile because: a statement without its end\n"
                       "long long square(int v) { return v * }\n")
        edit(repo / "02_scale/instructor/wrong/02.1-skips-last.cpp", "expect: no performance points without correctness",
             "expect: slower")
        git(repo, "add", "-A")
        report = self.tmp / "accepted.json"
        result = tool(repo, "check-wrong", "--ids", "01.1,02.1", "--json", str(report))
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = self.lines_by_file(result.stdout)
        self.assertEqual(len(lines), 6, result.stdout)   # --ids: 01.2's file is left out
        self.assertRegex(lines["01_sums/instructor/wrong/01.1-actually-right.cpp"],
                         r"^WRONG-ACCEPTED +01\.1 .* 4/4  pass  \[should fail because: \(it is right")
        self.assertRegex(lines["02_scale/instructor/wrong/02.1-skips-last.cpp"],
                         r"^MIS-REASONED +02\.1 .* 0/5  fail: .*  \[the reason should contain 'slower'\]$")
        self.assertRegex(lines["01_sums/instructor/wrong/01.1-constant-answer.cpp"], r"^OK ")
        self.assertRegex(lines["01_sums/instructor/wrong/01.1-does-not-compile.cpp"],
                         r"^OK +01\.1 .* 0/4  compile_error: does not compile: 01_sums/src/sums\.cpp:\d+:\d+: error")
        self.assertIn("check-wrong FAILED: 4 rejected for the stated reason, 1 accepted, 1 rejected for another reason",
                      result.stdout)
        self.assertEqual(json.loads(report.read_text())["verdict"], "failed")

    def test_a_broken_known_wrong_file_exits_2_naming_file_and_line_before_any_build(self):
        repo = make_fixture(self.tmp / "wrong-format")
        w1, w2 = "01_sums/instructor/wrong/", "02_scale/instructor/wrong/"
        cases = {
            w1 + "01.1-no-header.cpp": ("long long square(int v) { return v; }\n",
                                        ":1: line 1 must be '// WRONG: <id> [region: <n>] expect: <phrase> because: "),
            w1 + "01.1-no-region.cpp": ("// WRONG: 01.1 expect: failed because: x\nint x;\n",
                                        ":1: exercise 01.1 has 2 regions: say which one with 'region: <n>' "
                                        "(1 = 01_sums/src/sums.cpp:3, 2 = 01_sums/src/sums.cpp:3"),
            w1 + "01.1-region-three.cpp": ("// WRONG: 01.1 region: 3 expect: failed because: x\nint x;\n",
                                           ":1: region: 3: exercise 01.1 has 2 region(s)"),
            w1 + "01.1-other-id.cpp": ("// WRONG: 01.2 expect: failed because: x\nint x;\n",
                                       ":1: line 1 names exercise 01.2, the file name 01.1"),
            w1 + "01.1-no-because.cpp": ("// WRONG: 01.1 region: 1 expect: failed\nint x;\n",
                                         ":1: no 'because: <what is wrong>' on line 1"),
            w1 + "01.1-empty-phrase.cpp": ("// WRONG: 01.1 region: 1 expect: \"\" because: x\nint x;\n",
                                           ":1: empty 'expect:'"),
            w1 + "01.1-hash-comment.cpp": ("# WRONG: 01.1 region: 1 expect: failed because: x\nint x;\n",
                                           ":1: 01_sums/src/sums.cpp takes '//' comments"),
            w1 + "01.1-python.py": ("// WRONG: 01.1 region: 1 expect: failed because: x\nx = 1\n",
                                    ":1: the extension must be that of the region's file, 01_sums/src/sums.cpp"),
            w1 + "01.1-header-only.cpp": ("// WRONG: 01.1 region: 1 expect: failed because: x\n\n",
                                          ":2: no code after line 1"),
            w1 + "01.1-closes-the-region.cpp": ("// WRONG: 01.1 region: 2 expect: failed because: x\n"
                                                "long long square(int v) { return v; }\n#endif\n",
                                                ":3: #endif without its #if"),
            w1 + "01.1-markers.cpp": ("// WRONG: 01.1 region: 2 expect: failed because: x\n#ifndef COURSE_STUB_01_1\n"
                                      "long long square(int v) { return v; }\n#endif\n", ":2: solution markers"),
            w1 + "01.1-open-if.cpp": ("// WRONG: 01.1 region: 2 expect: failed because: x\n#if 1\n"
                                      "long long square(int v) { return v; }\n", ":2: #if never closed"),
            w1 + "01.3-unknown.cpp": ("// WRONG: 01.3 expect: failed because: x\nint x;\n",
                                      ":1: no exercise 01.3 (declared: 01.1, 01.2, 02.1)"),
            w1 + "02.1-elsewhere.cpp": ("// WRONG: 02.1 expect: failed because: x\nint x;\n",
                                        ":1: exercise 02.1 does not belong to chapter folder 01_sums"),
            w2 + "notes.txt": ("what the wrong answers show\n", ":1: the name must be <id>-<slug>.<ext>"),
            w2 + "old/02.1-deeper.cpp": ("// WRONG: 02.1 expect: failed because: x\nint x;\n",
                                         ":1: known-wrong files sit directly in instructor/wrong/"),
        }
        for path, (text, _) in cases.items():
            self.add_wrong(repo, path, text)
        self.add_wrong(repo, w2 + "README.md", "The known-wrong answers of chapter 02.\n")  # not one of them
        git(repo, "add", "-A")
        result = tool(repo, "check-wrong")
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        for path, (_, message) in cases.items():
            self.assertIn(f"course: {path}{message}", result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), len(cases), result.stderr)
        self.assertEqual(result.stdout, "")   # refused before any build

    def test_ids_an_untracked_draft_and_a_course_without_known_wrong_solutions(self):
        self.assert_usage_error(tool(self.repo, "check-wrong", "--ids", "07.1"), "unknown exercise '07.1'")
        self.assert_usage_error(tool(self.repo, "check-wrong", "--json", str(self.tmp)), "is a folder")
        repo = make_fixture(self.tmp / "no-wrong")
        git(repo, "rm", "-q", "-r", "02_scale/instructor")
        self.assert_usage_error(tool(repo, "check-wrong", "--ids", "02.1"),
                                "exercise 02.1 has no known-wrong solution (02_scale/instructor/wrong/ holds none")
        git(repo, "rm", "-q", "-r", "01_sums/instructor")
        self.add_wrong(repo, "01_sums/instructor/wrong/01.1-draft.cpp", "not yet\n")   # untracked: not read
        report = self.tmp / "none.json"
        result = tool(repo, "check-wrong", "--json", str(report))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("note: 01_sums/instructor/wrong/01.1-draft.cpp is not tracked (git add it): not checked",
                      result.stdout)
        self.assertIn("no known-wrong solutions yet", result.stdout)
        self.assertEqual((json.loads(report.read_text())["verdict"], json.loads(report.read_text())["files"]),
                         ("passed", []))


class BuildTests(FixtureCase):
    """The CMake side, built directly: chapter runs leave exercise suites out; exercise tests fail on
    stubs; a sanitizer exercise never silently vanishes."""

    def test_handout_build(self):
        out = self.tmp / "handout"
        self.assertEqual(tool(self.repo, "handout", "--out", str(out)).returncode, 0)
        env = course.build_env(self.tmp)
        workflow = subprocess.run(["cmake", "--workflow", "--preset", "test"], cwd=out, env=env,
                                  capture_output=True, text=True)
        self.assertEqual(workflow.returncode, 0, workflow.stdout + workflow.stderr)
        self.assertIn("sums_tests.cpu", workflow.stdout)
        self.assertNotIn("exercise.01.1", workflow.stdout)
        exercise = subprocess.run(["ctest", "--test-dir", "build", "-R", r"^exercise\.01\.1$", "-V"], cwd=out,
                                  env=env, capture_output=True, text=True)
        self.assertNotEqual(exercise.returncode, 0)
        self.assertIn('-ts=exercise 01.1', exercise.stdout)
        gpu_exercise = subprocess.run(["ctest", "--test-dir", "build", "-R", r"^exercise\.01\.2$"], cwd=out,
                                      env=env, capture_output=True, text=True)
        self.assertIn("Skipped", gpu_exercise.stdout)   # --gpu without a GPU: exit 77
        labels = subprocess.run(["ctest", "--test-dir", "build", "-N", "-L", "exercise.01.2"], cwd=out, env=env,
                                capture_output=True, text=True).stdout
        self.assertIn("exercise.01.2.racecheck", labels)
        sanitizer = subprocess.run(["ctest", "--test-dir", "build", "-R", r"racecheck", "--output-on-failure"],
                                   cwd=out, env=env, capture_output=True, text=True)
        if shutil.which("compute-sanitizer") or Path("/usr/local/cuda/bin/compute-sanitizer").exists():
            # No GPU for the fixture's CPU-only test binary: skipped; where a GPU is present,
            # compute-sanitizer itself refuses a program that never touches CUDA.
            self.assertTrue("Skipped" in sanitizer.stdout or "before first instrumented API call" in sanitizer.stdout,
                            sanitizer.stdout)
        else:
            self.assertNotEqual(sanitizer.returncode, 0)
            self.assertIn("compute-sanitizer not found", sanitizer.stdout)

    def test_course_exercises_builds_stubs_in_the_instructor_tree(self):
        build = self.tmp / "stub-build"
        env = course.build_env(self.tmp)
        bad = subprocess.run(["cmake", "-S", str(self.repo), "-B", str(build), "-G", "Ninja",
                              "-DCOURSE_EXERCISES=01.1;09.9"], env=env, capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("unknown exercise '09.9' (declared: 01.1, 01.2, 02.1)", " ".join(bad.stderr.split()))
        configure = subprocess.run(["cmake", "-S", str(self.repo), "-B", str(build), "-G", "Ninja",
                                    "-DCOURSE_EXERCISES=01.1,02.1"], env=env, capture_output=True, text=True)
        self.assertEqual(configure.returncode, 0, configure.stdout + configure.stderr)
        subprocess.run(["cmake", "--build", str(build)], env=env, check=True, capture_output=True)
        tests = subprocess.run(["ctest", "--test-dir", str(build), "-L", "exercise", "-LE", "gpu"], env=env,
                               capture_output=True, text=True)
        self.assertRegex(tests.stdout, r"exercise\.01\.1 \.+\*\*\*Failed")
        self.assertRegex(tests.stdout, r"exercise\.02\.1 \.+ +Passed")   # optimize: slow, not wrong



class ResultsSchemaTests(unittest.TestCase):
    """make_figures.py refuses malformed results files with one line naming the file and the field
    (issue 31, item 13): each was a traceback, or NaN printed as "nan×" in the lesson."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, str(REPO / "scripts"))
        import make_figures  # noqa: E402 (scripts/ on the path first)
        cls.make_figures = make_figures
        cls.good = json.loads((REPO / "results/h100/06_streams.json").read_text())

    def load_from(self, text: str) -> subprocess.CompletedProcess:
        """load_results of a results tree holding only `text` as results/h100/06_streams.json."""
        root = Path(tempfile.mkdtemp(prefix="course-results-"))
        self.addCleanup(shutil.rmtree, root, True)
        (root / "results/h100").mkdir(parents=True)
        (root / "results/h100/06_streams.json").write_text(text)
        code = ("import sys, pathlib; sys.path.insert(0, sys.argv[1]); import make_figures as m; "
                "m.ROOT = pathlib.Path(sys.argv[2]); print(len(m.load_results('06_streams')))")
        return subprocess.run([sys.executable, "-c", code, str(REPO / "scripts"), str(root)], capture_output=True,
                              text=True, timeout=120)

    def with_row(self, **fields) -> str:
        data = json.loads(json.dumps(self.good))
        data["rows"][3].update(fields)
        return json.dumps(data)

    def test_the_committed_results_load(self):
        import results_schema  # noqa: E402
        for path in sorted((REPO / "results").glob("*/*.json")):
            chapter = path.name[:-len(".json")]
            if chapter in results_schema.ROW_FIELDS:
                self.assertTrue(results_schema.load(path, chapter)["rows"], path)
        result = self.load_from(json.dumps(self.good))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "1")

    def test_malformed_files_are_refused_naming_file_and_field(self):
        text = json.dumps(self.good)
        del_threads = json.loads(text)
        del del_threads["rows"][0]["measured_ms"]
        cases = [
            ("", "empty file"),
            (text[: len(text) // 2], "not valid JSON"),
            ("[]", "not a results file"),
            ('{"schema": "x"}', "no 'chapter' field"),
            (self.with_row(speedup="fast"), "rows[3].speedup must be a finite number or null"),
            (self.with_row(measured_ms=float("nan")), "rows[3].measured_ms is not a finite number"),
            (self.with_row(model_ms=float("inf")), "rows[3].model_ms is not a finite number"),
            (json.dumps(del_threads), "rows[0] has no 'measured_ms' field"),
            (self.with_row(h2d_alone_ms="slow"), "one field, one type"),
            ("[" * 100000 + "]" * 100000, "too deeply"),
        ]
        for content, phrase in cases:
            result = self.load_from(content)
            self.assertEqual(result.returncode, 2, f"{phrase}: {result.stderr[-600:]}")
            self.assertIn("results/h100/06_streams.json", result.stderr, phrase)
            self.assertIn(phrase, result.stderr)
            self.assertNotIn("Traceback", result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)

if __name__ == "__main__":
    unittest.main()
