"""The kit's tests' shared fixture: the course in miniature (scripts/tests/fixture: two chapters, a CPU
exercise with two regions, a GPU exercise graded by racecheck, an optimize exercise, a grading probe for each
(fixture/common/include/fixture_probe.hpp: the probe protocol, header-only; 02.1's probe timed), and
known-wrong solutions of each; plain C++ and doctest, no CUDA) made into an instructor's git repository,
and scripts/course run in it. The fixture gets the real cmake/CourseExercises.cmake,
common/testing/test_main.cpp, scripts/course and scripts/course_lib copied in, so the pieces the course
uses are the pieces tested. Not a test itself: the test_*.py files beside it import it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
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
