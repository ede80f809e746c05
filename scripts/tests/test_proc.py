#!/usr/bin/env python3
"""Running other programs (course_lib/proc.py): output merged, a timeout ends the command's whole process
group (a grandchild included), a failure under check=True is a ToolError naming the last output line, a
missing program is a ToolError, and nothing new starts once a signal arrived.

    python3 scripts/tests/test_proc.py [-v]
"""
from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]
from course_lib import proc  # noqa: E402
from course_lib.errors import ToolError  # noqa: E402


class RunTests(unittest.TestCase):
    def test_stdout_and_stderr_are_merged(self):
        result = proc.run([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"])
        self.assertEqual(result.returncode, 0)
        self.assertFalse(result.timed_out)
        self.assertEqual(sorted(result.stdout.split()), ["err", "out"])
        self.assertEqual(proc.CHILDREN, set())  # a finished command is forgotten

    def test_a_timeout_kills_the_whole_process_group(self):
        with tempfile.TemporaryDirectory(prefix="proc-test-") as tmp:
            pid_file = Path(tmp) / "grandchild.pid"
            script = ("import subprocess, sys, time; "
                      "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                      f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)")
            started = time.monotonic()
            result = proc.run([sys.executable, "-c", script], timeout=2)
            self.assertLess(time.monotonic() - started, 30)
            self.assertTrue(result.timed_out)
            self.assertEqual(result.returncode, -signal.SIGKILL)
            grandchild = int(pid_file.read_text())
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and _alive(grandchild):
                time.sleep(0.05)
            self.assertFalse(_alive(grandchild), "the grandchild outlived the timeout")

    def test_check_raises_a_tool_error_with_the_last_line(self):
        with self.assertRaises(ToolError) as caught:
            proc.run([sys.executable, "-c", "print('first'); print('the reason'); raise SystemExit(3)"],
                     check=True)
        self.assertIn("exit 3", str(caught.exception))
        self.assertIn("the reason", str(caught.exception))

    def test_a_missing_program_is_a_tool_error(self):
        with self.assertRaises(ToolError) as caught:
            proc.run(["/nonexistent/course-test-program"])
        self.assertIn("not found", str(caught.exception))

    def test_nothing_starts_once_stopping(self):
        proc.STOPPING.set()
        try:
            with self.assertRaises(proc.Terminated):
                proc.run([sys.executable, "-c", "pass"])
        finally:
            proc.STOPPING.clear()


class HelperTests(unittest.TestCase):
    def test_last_line(self):
        self.assertEqual(proc.last_line("a\n  b  \n\n"), "b")
        self.assertEqual(proc.last_line("  \n"), "(no output)")

    def test_git_head_outside_a_repository_is_none(self):
        with tempfile.TemporaryDirectory(prefix="proc-test-") as tmp:
            self.assertIsNone(proc.git_head(Path(tmp)))

    def test_end_group_of_a_finished_group_is_harmless(self):
        done = proc.run([sys.executable, "-c", "import os; print(os.getpid())"])
        proc.end_group(int(done.stdout))  # gone already: no exception
        self.assertFalse(proc.group_alive(int(done.stdout)))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (not yet reaped by init) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


if __name__ == "__main__":
    unittest.main()
