#!/usr/bin/env python3
"""Known-wrong solutions (course_lib/known_wrong.py): rendered into the instructor's file, and
`check-wrong` on the fixture course proving each is rejected for the reason its file names.

    python3 scripts/tests/test_known_wrong.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import json
import re
import sys
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import FixtureCase, edit, git, make_fixture, tool  # noqa: E402
from course_lib import known_wrong  # noqa: E402
from course_lib import regions  # noqa: E402
from course_lib import tree  # noqa: E402


class KnownWrongRenderTests(unittest.TestCase):
    """What check-wrong grades: the instructor's file with the known-wrong lines in one region's stub
    branch, as the handout of that exercise holds it, with the exercise's other regions solved."""

    def files(self, path: str, text: str, number: int, body: list[str]) -> str:
        parsed = regions.parse_regions(path, text)
        course = type("Tree", (), {"text": lambda self, p: text, "regions": {path: parsed}})()
        exercise = tree.Exercise("03.1", "03_x", {"files": [path[len("03_x/"):]]})
        mine = known_wrong.exercise_regions(course, exercise)
        wrong = known_wrong.KnownWrong("03_x/instructor/wrong/03.1-x", "03.1", number, mine[number - 1], "failed",
                                  "x", body, {})
        return known_wrong.known_wrong_files(course, exercise, wrong)[path]

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
        self.assertRegex(lines[wrong + "01.1-constant-answer.cpp"], r"^OK +01\.1 .* 0/4  fail: failed: wrong output for "
                                                                 r"the grader's inputs \(seed 7\): case ")
        self.assertRegex(lines[wrong + "01.1-positive-only.cpp"], r"^OK +01\.1 .* 0/4  fail: failed: wrong output .*"
                                                                 r"'sum_of_squares n=257 negative values only'")
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
        self.assertEqual((second["region"], second["expect"]), (2, "negative values only"))
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


if __name__ == "__main__":
    unittest.main()
