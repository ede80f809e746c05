#!/usr/bin/env python3
"""Tests of scripts/course_lib/sandbox.py (issue 30): a test binary built from C, standing for a
submission's, tries what a cheating student's would: read the instructor's solution (by a path found by
walking /proc up to the grader's command line, and by the course's own path), write into the instructor's
results/, reach the network, leave a double-forked process behind, allocate without end, print without
end. Each attempt works when the binary runs as today's grader ran it (the control) and fails in the
sandbox. Skipped, saying why, where bubblewrap cannot make namespaces.

    python3 scripts/tests/test_sandbox.py [-v]
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from course_lib import sandbox  # noqa: E402

BWRAP = sandbox.find_bwrap(REPO)
WHY_NOT = sandbox.probe(BWRAP)
SECRET = "the instructor's secret solution line 8c1f"

CHEAT_C = r"""
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

/* The grader's command line, found the way issue 30's cheat found it: every /proc/<pid>/cmdline. */
static int find_course(char *root, size_t size, const char *needle) {
  DIR *proc = opendir("/proc");
  struct dirent *entry;
  if (!proc) return 0;
  while ((entry = readdir(proc))) {
    char path[300], args[8192];
    snprintf(path, sizeof path, "/proc/%s/cmdline", entry->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t n = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i += strlen(args + i) + 1) {
      char *hit = strstr(args + i, "/scripts/course");
      if (hit && strcmp(hit, "/scripts/course") == 0 && strstr(args + i, needle)) {
        snprintf(root, size, "%.*s", (int)(hit - (args + i)), args + i);
        closedir(proc);
        return 1;
      }
    }
  }
  closedir(proc);
  return 0;
}

static void print_file(const char *path) {
  FILE *f = fopen(path, "r");
  char line[512];
  if (!f) { printf("UNREADABLE %s\n", path); return; }
  while (fgets(line, sizeof line, f)) printf("READ %s", line);
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const char *what = argv[1], *arg = argv[2];
  if (!strcmp(what, "procwalk")) {
    char root[4096], path[8192];
    if (argc < 4 || !find_course(root, sizeof root, argv[3])) { printf("NO-GRADER-FOUND\n"); return 0; }
    snprintf(path, sizeof path, "%s/%s", root, arg);
    print_file(path);
  } else if (!strcmp(what, "read")) {
    print_file(arg);
  } else if (!strcmp(what, "write")) {
    FILE *f = fopen(arg, "w");
    printf(f ? "WROTE\n" : "NOT-WRITTEN\n");
    if (f) { fputs("a student was here\n", f); fclose(f); }
  } else if (!strcmp(what, "net")) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)atoi(arg));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    printf(s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? "CONNECTED\n" : "NO-NETWORK\n");
  } else if (!strcmp(what, "fork")) {
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        char *sleeper[] = {"sleep", (char *)arg, NULL};
        for (int fd = 0; fd < 3; ++fd) close(fd);
        execvp("sleep", sleeper);
        _exit(1);
      }
      _exit(0);
    }
    sleep(1);
    printf("FORKED\n");
  } else if (!strcmp(what, "alloc")) {
    size_t bytes = (size_t)atol(arg) << 20;
    char *p = malloc(bytes);
    if (!p) { printf("ALLOC-FAILED\n"); return 0; }
    for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    printf("ALLOCATED\n");
  } else if (!strcmp(what, "escalate")) {
    /* Issue 40's second attempt, from inside: remount the read-only graded tree `arg` writable and write into
       it; chroot; become root; trace the namespace's init (another process, not this one's child). */
    int remounted = mount(NULL, arg, NULL, MS_REMOUNT | MS_BIND, NULL) == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/escalated", arg);
    FILE *f = fopen(path, "w");
    printf("%s %s\n", remounted ? "REMOUNTED" : "NO-REMOUNT", f ? "WROTE" : "NOT-WRITTEN");
    if (f) fclose(f);
    printf(chroot("/tmp") == 0 ? "CHROOTED\n" : "NO-CHROOT\n");
    printf(setuid(0) == 0 && getuid() == 0 ? "SETUID\n" : "NO-SETUID\n");
    if (ptrace(PTRACE_ATTACH, 1, NULL, NULL) == 0) {
      printf("PTRACED\n");
      sleep(1);
      ptrace(PTRACE_DETACH, 1, NULL, (void *)(long)SIGCONT);
      kill(1, SIGCONT);
    } else {
      printf("NO-PTRACE\n");
    }
    printf("UID %d\n", (int)geteuid());
  } else if (!strcmp(what, "spew")) {
    for (long i = 0; i < atol(arg); ++i) printf("line %ld of a test that prints without end\n", i);
  }
  return 0;
}
"""


def survivors(marker: str) -> list[int]:
    """Processes on this machine whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@unittest.skipIf(WHY_NOT, f"no sandbox here: {WHY_NOT}")
class SandboxTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="sandbox-test-"))
        # The instructor's tree lies outside /tmp (the sandbox's /tmp is its own): under /var/tmp.
        cls.instructor = Path(tempfile.mkdtemp(prefix="sandbox-instructor-", dir="/var/tmp"))
        (cls.instructor / "scripts").mkdir()
        (cls.instructor / "scripts" / "course").write_text("# the grader\n")
        (cls.instructor / "01_sums" / "src").mkdir(parents=True)
        (cls.instructor / "01_sums" / "src" / "sums.cpp").write_text(SECRET + "\n")
        (cls.instructor / "results").mkdir()
        cls.tree = cls.tmp / "tree"
        (cls.tree / "build").mkdir(parents=True)
        (cls.tree / "cheat.c").write_text(CHEAT_C)
        cls.binary = cls.tree / "build" / "cheat"
        subprocess.run(["cc", "-O1", "-o", str(cls.binary), str(cls.tree / "cheat.c")], check=True)
        cls.box = sandbox.Sandbox.for_grading(BWRAP, cls.instructor, [], gpu=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        shutil.rmtree(cls.instructor, ignore_errors=True)

    def cheat(self, *args: str, sandboxed: bool = True, box: sandbox.Sandbox | None = None) -> str:
        """The binary run as the grader runs it: below a process whose command line names
        <instructor>/scripts/course, sandboxed or (the control) not."""
        cmd = [str(self.binary), *args]
        if sandboxed:
            cmd = (box or self.box).wrap(cmd, self.tree, chdir=self.tree / "build")
        grader = [sys.executable, "-c", "import subprocess, sys; print(subprocess.run(sys.argv[2:], "
                  "capture_output=True, text=True, timeout=60).stdout)",
                  str(self.instructor / "scripts" / "course"), *cmd]
        return subprocess.run(grader, capture_output=True, text=True, timeout=90).stdout

    def test_the_instructors_solution_found_through_proc_is_out_of_reach(self):
        # (The needle picks this test's grader out of the other graders a shared machine may be running.)
        needle = self.instructor.name
        self.assertIn(SECRET, self.cheat("procwalk", "01_sums/src/sums.cpp", needle, sandboxed=False))  # control
        output = self.cheat("procwalk", "01_sums/src/sums.cpp", needle)
        self.assertNotIn(SECRET, output)
        self.assertIn("NO-GRADER-FOUND", output)  # its own PID namespace: the grader is not in its /proc
        self.assertIn("UNREADABLE", self.cheat("read", str(self.instructor / "01_sums/src/sums.cpp")))

    def test_the_real_course_tree_is_hidden(self):
        # This repository, as the instructor's tree of a real grade: its files are not there.
        box = sandbox.Sandbox.for_grading(BWRAP, REPO, [], gpu=False)
        output = self.cheat("read", str(REPO / "scripts" / "course"), box=box)
        self.assertIn("UNREADABLE", output)

    def test_a_hidden_tree_inside_a_shown_folder_is_covered(self):
        # The instructor's tree under a folder the sandbox must show (a dependency folder): a tmpfs over it.
        box = sandbox.Sandbox(BWRAP, hidden=[self.instructor], public=[self.instructor.parent])
        output = self.cheat("read", str(self.instructor / "01_sums/src/sums.cpp"), box=box)
        self.assertIn("UNREADABLE", output)
        self.assertNotIn(SECRET, output)

    def test_nothing_is_written_into_the_instructors_results(self):
        target = self.instructor / "results" / "forged.json"
        self.assertIn("WROTE", self.cheat("write", str(target), sandboxed=False))  # control
        target.unlink()
        self.assertIn("NOT-WRITTEN", self.cheat("write", str(target)))
        self.assertFalse(target.exists())
        # The graded tree and its build folder are read-only to a test; its /tmp is its own.
        self.assertIn("NOT-WRITTEN", self.cheat("write", str(self.tree / "build" / "perf.json")))
        self.assertIn("WROTE", self.cheat("write", "/tmp/scratch"))
        self.assertFalse(Path("/tmp/scratch").exists() and Path("/tmp/scratch").read_text().startswith("a student"))

    def test_student_code_cannot_remount_chroot_setuid_ptrace_or_write_what_it_does_not_own(self):
        # Issue 40: under the sandbox of issue 30 (bubblewrap run by root, capabilities kept: the control, where
        # the grader runs as root) a static constructor remounted the read-only binds and wrote into them.
        if os.geteuid() == 0:
            old = [BWRAP, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
                   "--dev", "/dev", "--ro-bind", str(self.tree), str(self.tree), "--"]
            control = subprocess.run([*old, str(self.binary), "escalate", str(self.tree)], capture_output=True,
                                     text=True, timeout=60).stdout
            self.assertIn("REMOUNTED WROTE", control)  # the old sandbox's hole, so the check below can fail
            (self.tree / "escalated").unlink()
        output = self.cheat("escalate", str(self.tree))
        for refused in ("NO-REMOUNT NOT-WRITTEN", "NO-CHROOT", "NO-SETUID", "NO-PTRACE", f"UID {sandbox.SANDBOX_UID}"):
            self.assertIn(refused, output)
        self.assertFalse((self.tree / "escalated").exists())
        for system in ("/usr", "/etc"):
            self.assertIn("NOT-WRITTEN", self.cheat("write", f"{system}/course-sandbox-test-{os.getpid()}"))

    def test_with_the_gpus_device_nodes_dev_shm_is_still_its_own(self):
        box = sandbox.Sandbox.for_grading(BWRAP, self.instructor, [], gpu=True)
        marker = Path("/dev/shm") / f"course-sandbox-test-{os.getpid()}"
        self.assertIn("WROTE", self.cheat("write", str(marker), box=box))
        self.assertFalse(marker.exists())
        self.assertIn("WROTE", self.cheat("write", "/dev/null", box=box))  # the host's device nodes are there

    def test_no_network(self):
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            port = str(server.getsockname()[1])
            self.assertIn("CONNECTED", self.cheat("net", port, sandboxed=False))  # control
            self.assertIn("NO-NETWORK", self.cheat("net", port))

    def test_a_double_forked_process_ends_with_the_test(self):
        marker = f"{4000 + os.getpid() % 1000}.{time.monotonic_ns() % 997}"
        self.assertIn("FORKED", self.cheat("fork", marker, sandboxed=False))  # control: it survives
        left = survivors(marker)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        self.assertTrue(left, "the control should leave its sleeper behind")
        marker = marker + "1"
        self.assertIn("FORKED", self.cheat("fork", marker))
        time.sleep(0.5)
        self.assertEqual(survivors(marker), [])

    def test_memory_is_limited(self):
        box = sandbox.Sandbox(BWRAP, hidden=[], public=[], memory_mb=256)
        self.assertIn("ALLOC-FAILED", self.cheat("alloc", "1024", box=box))
        self.assertIn("ALLOCATED", self.cheat("alloc", "16", box=box))

    def test_output_is_capped_head_and_tail_kept(self):
        cmd = self.box.wrap([str(self.binary), "spew", "400000"], self.tree)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = sandbox.read_capped(proc, timeout=60, limit=200_000)
        self.assertLessEqual(len(out), 200_000 + 100)
        self.assertTrue(out.startswith(b"line 0 of"))
        self.assertIn(b"bytes of output dropped by the grader", out)
        self.assertTrue(out.rstrip().endswith(b"line 399999 of a test that prints without end"))
        self.assertEqual(proc.returncode, 0)
        proc.stdout.close()

    def test_a_timeout_keeps_what_was_read(self):
        proc = subprocess.Popen(["sh", "-c", "echo started; sleep 30"], stdout=subprocess.PIPE,
                                start_new_session=True)
        try:
            with self.assertRaises(subprocess.TimeoutExpired) as caught:
                sandbox.read_capped(proc, timeout=1)
            self.assertEqual(caught.exception.output, b"started\n")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stdout.close()


class FindTests(unittest.TestCase):
    def test_missing_bwrap_is_refused_with_the_reason(self):
        self.assertIn("not installed", sandbox.probe(None))
        self.assertIn("did not run", sandbox.probe("/nonexistent/bwrap") or "did not run")

    def test_the_carried_copy_is_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            carried = Path(tmp) / ".deps" / "usr" / "bin" / "bwrap"
            carried.parent.mkdir(parents=True)
            carried.write_text("#!/bin/sh\n")
            carried.chmod(0o755)
            path = os.environ.get("PATH", "")
            os.environ["PATH"] = tmp  # no bwrap on PATH
            try:
                self.assertEqual(sandbox.find_bwrap(Path(tmp)), str(carried))
            finally:
                os.environ["PATH"] = path

    def test_the_report_says_when_a_grade_was_unsandboxed(self):
        self.assertIn("without a sandbox", sandbox.describe(None))


if __name__ == "__main__":
    unittest.main()
