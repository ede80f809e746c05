#!/usr/bin/env python3
"""Issue 30's cheats, graded end to end by `scripts/course grade` (each scored full or partial marks,
or leaked, on the grader before the sandbox and the stub-relative perf rule):

- an exercise file that #includes the master's solution by absolute path (01.2 scored 20/20);
- a test binary that prints the master's solution into the report, writes into the instructor's
  results/ and leaves a double-forked process running after its grade;
- doing nothing: an untouched optimize stub 2x slower than the reference (3 of 5 points under
  CS149's rule on the fixture; 16/30 on 01.3 on the H100), and the real course's 01.3 handout.

The fixture course (scripts/tests/fixture, see kit_fixture.py) is made in /var/tmp, outside /tmp, so
that it is the sandbox's mounts, not the private /tmp alone, that hide it.

    python3 scripts/tests/test_grade_cheats.py [-v]
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from kit_fixture import REPO, edit, git, make_fixture, tool  # noqa: E402
from test_sandbox import WHY_NOT, survivors  # noqa: E402

SLEEPER = "617.25"  # the double-forked process's argument: `sleep 617.25`, found by it afterwards


@unittest.skipIf(WHY_NOT, f"no sandbox here: {WHY_NOT}")
class CheatTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-cheats-", dir="/var/tmp"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        # 02.1's stub made 2x slower than the reference instead of 40 ms slower: under CS149's rule
        # alone it earns ceil(5 / 2) = 3 of 5 points for doing nothing.
        edit(cls.repo / "02_scale/src/scale.cpp",
             "  std::this_thread::sleep_for(std::chrono::milliseconds(40));\n  scale_reference(in, out, factor);",
             "  scale_reference(in, out, factor);  // the work, twice\n  scale_reference(in, out, factor);")
        git(cls.repo, "commit", "-q", "-am", "02.1's stub: twice the work")
        (cls.repo / "results").mkdir(exist_ok=True)
        cls.handout = cls.tmp / "handout"
        result = tool(cls.repo, "handout", "--out", str(cls.handout))
        assert result.returncode == 0, result.stderr

    @classmethod
    def tearDownClass(cls):
        for pid in survivors(SLEEPER):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def submission(self, name: str) -> Path:
        dest = self.tmp / name
        shutil.copytree(self.handout, dest, ignore=shutil.ignore_patterns(".git", "build"))
        return dest

    def grade(self, repo: Path, *args: str) -> dict:
        report = self.tmp / f"{repo.name}.json"
        result = tool(self.repo, "grade", "--repo", str(repo), "--json", str(report), *args)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("sandbox: bubblewrap", result.stdout)
        return {e["id"]: e for e in json.loads(report.read_text())["exercises"]} | {
            "_report": json.loads(report.read_text())}

    def test_including_the_masters_solution_by_absolute_path_does_not_compile(self):
        repo = self.submission("includes-master")
        (repo / "01_sums/src/sums.cpp").write_text(f'#include "{self.repo}/01_sums/src/sums.cpp"\n')
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "compile_error"), e["01.1"]["reason"])
        self.assertIn("sums.cpp", e["01.1"]["reason"])

    def test_a_test_cannot_leak_the_solution_write_results_or_stay_behind(self):
        repo = self.submission("spy")
        solution = self.repo / "01_sums/src/sums.cpp"
        forged = self.repo / "results" / "forged.json"
        edit(repo / "01_sums/src/sums.cpp", '#include "sums.hpp"', f'''#include "sums.hpp"
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
namespace {{
struct Spy {{
  Spy() {{
    std::ifstream master("{solution}");
    for (std::string line; std::getline(master, line);) std::printf("LEAK %s\\n", line.c_str());
    std::ofstream("{forged}") << "{{}}";
    if (fork() == 0) {{
      setsid();
      if (fork() == 0) {{  // a daemon: it lets go of the test's output, so the test ends and it stays
        for (int fd = 0; fd < 3; ++fd) close(fd);
        execlp("sleep", "sleep", "{SLEEPER}", (char*)nullptr);
        _exit(1);
      }}
      _exit(0);
    }}
  }}
}} spy;
}}''')
        edit(repo / "01_sums/src/sums.cpp", "  (void)values;\n  return 0;",
             "  long long s = 0;\n  for (const int v : values) s += square(v);\n  return s;")
        edit(repo / "01_sums/src/sums.cpp", "  (void)v;\n  return 0;", "  return static_cast<long long>(v) * v;")
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual(e["01.1"]["points"], 4, e["01.1"]["reason"])  # honest work still scores
        text = json.dumps(e["_report"])
        self.assertNotIn("LEAK // BEGIN SOLUTION", text)
        self.assertNotIn("warp width of every NVIDIA GPU", text)  # 01.2's solution, in the master's file
        self.assertFalse(forged.exists())
        time.sleep(0.5)
        self.assertEqual(survivors(SLEEPER), [])

    def test_a_missing_exercise_file_is_named(self):
        # Issue 30: "configure failed: ... Cannot find source file:" with the name cut off.
        repo = self.submission("no-sums")
        (repo / "01_sums/src/sums.cpp").unlink()
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual(e["01.1"]["status"], "compile_error")
        self.assertRegex(e["01.1"]["reason"], r"Cannot find source file: \S*sums\.cpp")

    def test_doing_nothing_earns_no_performance_points(self):
        repo = self.submission("untouched-but-for-a-blank-line")
        path = repo / "02_scale/src/scale.cpp"
        path.write_text(path.read_text() + "\n")  # not "as handed out", so only the timing can judge it
        e = self.grade(repo, "--exercises", "02.1")
        entry = e["02.1"]
        self.assertEqual(entry["points"], 0, entry["reason"])
        self.assertIn("untouched stub", entry["reason"])
        self.assertGreaterEqual(len(entry["perf"]["rounds"]), 3)
        self.assertGreater(entry["perf"]["stub_ratio"], 1.2)
        key = self.grade(self.repo, "--exercises", "02.1")["02.1"]
        self.assertEqual((key["points"], key["status"]), (5, "pass"), key["reason"])


class RefusalTests(unittest.TestCase):
    """Without bubblewrap, grade refuses before any work (exit 2, one line) unless told --no-sandbox;
    then the report says the grade was unsandboxed."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-refusal-"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        cls.bin = cls.tmp / "bin"  # git only: no bwrap on this PATH (and none in <repo>/.deps)
        cls.bin.mkdir()
        (cls.bin / "git").symlink_to(shutil.which("git"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_without_bwrap(self, *args: str):
        env = dict(os.environ, PATH=str(self.bin), COURSE_GPU="0")
        return subprocess.run([sys.executable, str(self.repo / "scripts" / "course"), *args], cwd=self.repo,
                              env=env, capture_output=True, text=True, timeout=120)

    def test_grade_and_gradebook_refuse_without_a_sandbox(self):
        for args in (("grade", "--repo", str(self.repo)),
                     ("gradebook", str(self.tmp), "--csv", str(self.tmp / "grades.csv"))):
            result = self.run_without_bwrap(*args)
            self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
            self.assertIn("bubblewrap", result.stderr)
            self.assertIn("--no-sandbox", result.stderr)
            self.assertFalse((self.tmp / "grades.csv").exists())

    def test_an_unsandboxed_grade_says_so(self):
        report = self.tmp / "unsandboxed.json"
        result = tool(self.repo, "grade", "--repo", str(self.repo), "--exercises", "01.1", "--no-sandbox",
                      "--json", str(report))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("--no-sandbox", result.stderr)
        self.assertTrue(json.loads(report.read_text())["sandbox"].startswith("none"))
        self.assertIn("sandbox: none", result.stdout)


@unittest.skipIf(WHY_NOT, f"no sandbox here: {WHY_NOT}")
@unittest.skipUnless(os.environ.get("COURSE_KIT_REAL", "1") == "1",
                     "COURSE_KIT_REAL=0: the real course's grade skipped")
class RealCourseTests(unittest.TestCase):
    """Exercise 01.3 of this repository (a CPU optimize exercise): the untouched handout scores 0 of its
    30 performance points, its stub timed in the same grade (16-22/30 under CS149's rule alone)."""

    def test_untouched_01_3_scores_zero(self):
        with tempfile.TemporaryDirectory(prefix="course-01.3-") as tmp:
            handout = Path(tmp) / "handout"
            made = tool(REPO, "handout", "--out", str(handout), "--exercises", "01.3", timeout=600)
            self.assertEqual(made.returncode, 0, made.stdout + made.stderr)
            report = Path(tmp) / "report.json"
            graded = tool(REPO, "grade", "--repo", str(handout), "--exercises", "01.3", "--json", str(report),
                          timeout=1800)
            self.assertEqual(graded.returncode, 0, graded.stdout + graded.stderr)
            (entry,) = json.loads(report.read_text())["exercises"]
            self.assertEqual(entry["points"], 0, entry["reason"])
            self.assertIn("untouched stub", entry["reason"])
            self.assertIsNotNone(entry["perf"]["stub_ratio"])


if __name__ == "__main__":
    unittest.main()
