#!/usr/bin/env python3
"""The command line (course_lib/cli.py) end to end on the fixture course: every command's help, its bad
input refused with exit 2 before any work, and list/handout/grade/gradebook/check-wrong outputs.

    python3 scripts/tests/test_cli.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import argparse
import contextlib
import io
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import ENV, FixtureCase, edit, git, make_fixture, solution_lines, tool  # noqa: E402
from course_lib import cli  # noqa: E402



class ParserTests(unittest.TestCase):
    """The option types and the exit codes of main, without a course: bad input is exit 2 before any work."""

    def test_option_types(self):
        self.assertEqual(cli.positive_int("3"), 3)
        self.assertEqual(cli.seconds("0.5"), 0.5)
        self.assertEqual(cli.seed("0"), 0)
        for convert, text in ((cli.positive_int, "0"), (cli.positive_int, "x"), (cli.seconds, "0"),
                              (cli.seconds, "nan"), (cli.seconds, "inf"), (cli.seed, "-1"), (cli.seed, str(2**63))):
            with self.assertRaises(argparse.ArgumentTypeError, msg=f"{convert.__name__}({text!r})"):
                convert(text)

    def main(self, *argv: str) -> tuple[int, str]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main(list(argv))
        return code, err.getvalue()

    def test_usage_errors_exit_2_with_one_line(self):
        for argv, phrase in ((["frobnicate"], "invalid choice"), (["grade", "--jobs", "0"], "must be at least 1"),
                             (["grade", "--exercises", ""], "--exercises: an empty value names nothing"),
                             (["gradebook", "", "--csv", "x.csv"], "SUBMISSIONS: an empty value")):
            code, err = self.main(*argv)
            self.assertEqual(code, 2, argv)
            self.assertIn(phrase, err)
            self.assertTrue(err.startswith("course: "), err)

    def test_no_command_prints_help_and_exits_2(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cli.main([]), 2)
        self.assertIn("The classroom kit: list the exercises", out.getvalue())

    def test_a_tool_error_exits_1(self):
        def failing(args):
            raise cli.ToolError("cmake not found: install it")
        parser = cli.make_parser
        try:
            cli.make_parser = lambda: _with_func(parser(), failing)
            code, err = self.main("list")
        finally:
            cli.make_parser = parser
        self.assertEqual((code, err), (1, "course: cmake not found: install it\n"))


def _with_func(parser, func):
    parser.set_defaults(func=func)
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            sub.set_defaults(func=func)
    return parser

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


if __name__ == "__main__":
    unittest.main()
