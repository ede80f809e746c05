#!/usr/bin/env python3
"""Grading a class through Slurm (course_lib/slurm.py, issue 41), against a real single-node cluster started here:
munged, slurmctld and slurmd with a slurm.conf generated for this machine, every file of theirs in a temporary
folder, stopped and removed at the end. Three submissions of the fixture course (the key, the untouched handout,
a known-wrong answer; the CPU exercise 01.1) graded by `gradebook --slurm` must give the local gradebook's CSV
on the same seed (every column but wall_s); a task that fails for real (no cmake on its PATH) is its student's
row with the reason; submitting again grades only that student. Where Slurm cannot start (not root, no
slurm-wlm/munge, a daemon that dies), the cluster tests are skipped with one line and the file exits 77, which
ctest reports as skipped; the tests that need no cluster run either way.

    python3 scripts/tests/test_slurm.py [-v]
    COURSE_SLURM_TIMING=F python3 scripts/tests/test_slurm.py   # also adds both wall times to F (JSON, a run each)
"""
from __future__ import annotations

import csv
import datetime
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
import kit_fixture  # noqa: E402
from kit_fixture import NO_SANDBOX_HERE, edit, make_fixture, tool  # noqa: E402
from course_lib import slurm  # noqa: E402

SEED = "4242"
EXERCISES = "01.1"  # one CPU exercise keeps the three builds of each gradebook within CI's time
# What slurmstepd writes into a task's log when the task's --time runs out (seen with Slurm 22.05).
TIME_LIMIT_LINE = "slurmstepd-localhost: error: *** JOB 5 ON localhost CANCELLED AT 2026-11-28T20:27:56 DUE TO TIME LIMIT ***"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A one-node Slurm in `folder`: munged, slurmctld and slurmd as this process's children."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.daemons: list[subprocess.Popen] = []
        self.env = dict(os.environ, SLURM_CONF=str(folder / "slurm.conf"))

    def start(self) -> str | None:
        """None once the node is idle, else why Slurm cannot run here."""
        if os.geteuid() != 0:
            return "not root: slurmd runs jobs as their users and needs root"
        missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel")
                   if not shutil.which(t)]
        if missing:
            return f"{', '.join(missing)} not found (apt-get install slurm-wlm munge)"
        os.chmod(self.folder, 0o755)  # munged refuses a socket in a folder others cannot search
        (self.folder / "munge.key").write_bytes(os.urandom(1024))
        os.chmod(self.folder / "munge.key", 0o600)
        self.write_conf()
        f = self.folder
        self.spawn("munged", ["munged", "-F", f"--key-file={f / 'munge.key'}", f"--socket={f / 'munge.sock'}",
                              f"--pid-file={f / 'munged.pid'}", f"--seed-file={f / 'munged.seed'}",
                              f"--log-file={f / 'munged.log'}"])
        if not self.wait_for(lambda: (f / "munge.sock").exists(), 10):
            return f"munged did not start: {self.last_line('munged')}"
        self.spawn("slurmctld", ["slurmctld", "-D", "-f", str(f / "slurm.conf")])
        self.spawn("slurmd", ["slurmd", "-D", "-f", str(f / "slurm.conf"), "-N", "localhost"])
        if not self.wait_for(lambda: self.node_state() == "idle", 40):
            dead = [d.args[0] for d in self.daemons if d.poll() is not None]
            return (f"{', '.join(dead) or 'slurmd'} did not come up (node {self.node_state() or 'unknown'}): "
                    f"{self.last_line(dead[0] if dead else 'slurmd')}")
        version = subprocess.run(["sinfo", "-V"], capture_output=True, text=True, env=self.env).stdout.strip()
        print(f"slurm: munged, slurmctld and slurmd started ({version}); node localhost idle with "
              f"{os.cpu_count()} CPUs", flush=True)
        return None

    def write_conf(self) -> None:
        f = self.folder
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
        (f / "state").mkdir()
        (f / "spool").mkdir()
        (f / "slurm.conf").write_text(f"""ClusterName=coursetest
SlurmctldHost={socket.gethostname().split('.')[0]}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={f / 'munge.sock'}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={f / 'state'}
SlurmdSpoolDir={f / 'spool'}
SlurmctldPidFile={f / 'slurmctld.pid'}
SlurmdPidFile={f / 'slurmd.pid'}
SlurmctldLogFile={f / 'slurmctld.log'}
SlurmdLogFile={f / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs={os.cpu_count()} RealMemory={memory_mb // 2} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""")

    def spawn(self, name: str, cmd: list[str]) -> None:
        with open(self.folder / f"{name}.out", "wb") as out:
            self.daemons.append(subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env))

    def last_line(self, name: str) -> str:
        for log in (self.folder / f"{name}.log", self.folder / f"{name}.out"):
            lines = log.read_text(errors="replace").split("\n") if log.exists() else []
            lines = [l for l in lines if l.strip()]
            if lines:
                return lines[-1][-200:]
        return "no log"

    def node_state(self) -> str:
        result = subprocess.run(["sinfo", "-h", "-n", "localhost", "-o", "%T"], capture_output=True, text=True,
                                env=self.env)
        return result.stdout.strip()

    @staticmethod
    def wait_for(ready, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ready():
                return True
            time.sleep(0.5)
        return False

    def squeue(self, *args: str) -> list[str]:
        result = subprocess.run(["squeue", "-h", *args], capture_output=True, text=True, env=self.env)
        return [l.strip() for l in result.stdout.splitlines() if l.strip()]

    def wait_for_queue(self, seconds: float = 600) -> None:
        """Until no job is queued or running, printing each change of the jobs' states."""
        deadline, seen = time.monotonic() + seconds, None
        while time.monotonic() < deadline:
            states = self.squeue("-o", "%i %T")
            if states != seen:
                print(f"slurm: {'; '.join(states) or 'queue empty'}", flush=True)
                seen = states
            if not states:
                return
            time.sleep(1)
        raise AssertionError(f"Slurm jobs still queued after {seconds:g} s: {seen}")

    def final_states(self, job: str) -> str:
        return "; ".join(self.squeue("-t", "all", "-r", "-j", job, "-o", "%i %T"))

    def stop(self) -> None:
        if self.daemons:
            jobs = self.squeue("-o", "%A")
            if jobs:
                subprocess.run(["scancel", *jobs], env=self.env, capture_output=True)
                self.wait_for(lambda: not self.squeue("-o", "%A"), 20)
        for daemon in reversed(self.daemons):
            daemon.terminate()
            try:
                daemon.wait(15)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        self.daemons = []


CLUSTER: Cluster | None = None


def rows_of(path: Path) -> list[list[str]]:
    """The CSV without its wall_s column (seconds are the one thing two runs cannot share)."""
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    column = rows[0].index("wall_s")
    return [r[:column] + r[column + 1:] for r in rows]


class SlurmGradebookTests(unittest.TestCase):
    """The three submissions graded locally, then through the cluster (each once, for the whole class)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-slurm-test-"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        result = tool(cls.repo, "handout", "--out", str(cls.tmp / "handout"))
        assert result.returncode == 0, result.stderr
        cls.submissions = cls.tmp / "submissions"
        cls.submissions.mkdir()
        shutil.copytree(cls.tmp / "handout", cls.submissions / "handout")
        shutil.copytree(cls.repo, cls.submissions / "key", ignore=shutil.ignore_patterns(".git"))
        shutil.copytree(cls.repo, cls.submissions / "wrong", ignore=shutil.ignore_patterns(".git"))
        # 01.1's known-wrong answer (fixture 01_sums/instructor/wrong/01.1-positive-only.cpp) in place of the key's.
        edit(cls.submissions / "wrong/01_sums/src/sums.cpp",
             "long long square(int v) { return static_cast<long long>(v) * v; }",
             "long long square(int v) { return v > 0 ? static_cast<long long>(v) * v : 0; }")
        kit_fixture.ENV["SLURM_CONF"] = CLUSTER.env["SLURM_CONF"]
        cls.local_csv, cls.slurm_csv = cls.tmp / "book" / "local.csv", cls.tmp / "book" / "grades.csv"
        started = time.monotonic()
        cls.local = cls.gradebook("--csv", str(cls.local_csv))
        cls.local_s = time.monotonic() - started
        started = time.monotonic()
        cls.first = cls.gradebook("--csv", str(cls.slurm_csv), "--slurm", "--time=30")
        cls.first_job = cls.plan().jobs[-1]["array"] if cls.first.returncode == 0 else None
        CLUSTER.wait_for_queue()
        cls.slurm_s = time.monotonic() - started
        print(f"slurm: array job {cls.first_job}: {CLUSTER.final_states(str(cls.first_job))}", flush=True)
        print(f"timing: local gradebook {cls.local_s:.1f} s, through Slurm {cls.slurm_s:.1f} s (submit to CSV; "
              f"{os.cpu_count()} cores)", flush=True)
        record_timing(cls.local_s, cls.slurm_s)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def gradebook(cls, *args: str) -> subprocess.CompletedProcess:
        sandbox = ["--no-sandbox"] if NO_SANDBOX_HERE else []  # before --slurm: what follows it goes to sbatch
        return tool(cls.repo, "gradebook", str(cls.submissions), "--exercises", EXERCISES, "--seed", SEED,
                    *sandbox, *args)

    @classmethod
    def plan(cls) -> slurm.Plan:
        return slurm.Plan.load(slurm.class_folder(cls.slurm_csv))

    def test_1_the_slurm_gradebook_is_the_local_one(self):
        self.assertEqual(self.local.returncode, 0, self.local.stdout + self.local.stderr)
        self.assertEqual(self.first.returncode, 0, self.first.stdout + self.first.stderr)
        self.assertIn("3 submissions, 3 to grade", self.first.stdout)
        local, through_slurm = rows_of(self.local_csv), rows_of(self.slurm_csv)
        self.assertEqual([r[:3] for r in local[1:]], [["handout", "0", "4"], ["key", "4", "4"], ["wrong", "0", "4"]])
        self.assertEqual(through_slurm, local)
        print(f"csv: the Slurm gradebook's {len(through_slurm) - 1} rows equal the local gradebook's "
              f"(every column but wall_s): {[r[:2] for r in through_slurm[1:]]}", flush=True)
        for name in ("handout", "key", "wrong"):
            report = json.loads((self.tmp / "book" / "grades-reports" / f"{name}.json").read_text())
            self.assertEqual((report["student"], report["seed"]), (name, int(SEED)))
            self.assertTrue((self.tmp / "book" / "grades-reports" / f"{name}.md").is_file())

    def test_2_a_failed_task_is_its_row_and_a_second_submission_grades_only_it(self):
        reports = self.tmp / "book" / "grades-reports"
        (reports / "wrong.json").unlink()
        (reports / "wrong.md").unlink()
        # The task fails for real: no cmake (nor bubblewrap) on its PATH, so the tool stops with one line.
        failing = self.gradebook("--csv", str(self.slurm_csv), "--slurm", "--export=ALL,PATH=/nonexistent")
        self.assertEqual(failing.returncode, 0, failing.stdout + failing.stderr)
        self.assertIn("3 submissions, 1 to grade", failing.stdout)
        job = self.plan().jobs[-1]
        self.assertEqual(job["indices"], [2])
        CLUSTER.wait_for_queue()
        print(f"slurm: array job {job['array']} (wrong only, PATH without cmake): "
              f"{CLUSTER.final_states(str(job['array']))}", flush=True)
        # The collect job got the same PATH and failed too: the CSV written by hand, as the manual says.
        collected = tool(self.repo, "gradebook", "--collect", str(slurm.class_folder(self.slurm_csv)))
        self.assertEqual(collected.returncode, 0, collected.stdout + collected.stderr)
        self.assertIn("1 not graded (wrong)", collected.stdout)
        with self.slurm_csv.open(newline="") as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual(len(rows), 3)
        self.assertEqual((rows["wrong"]["status"], rows["wrong"]["total"], rows["wrong"]["01.1 status"]),
                         ("error", "0", "error"))
        self.assertRegex(rows["wrong"]["reason"], rf"^not graded: Slurm task {job['array']}_2 ended without a "
                                                  r"report: course: .*not found")
        print(f"csv: wrong's row after the failed task: {rows['wrong']['reason']}", flush=True)
        self.assertEqual((rows["key"]["status"], rows["key"]["total"]), ("graded", "4"))
        again = self.gradebook("--csv", str(self.slurm_csv), "--slurm")
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertIn("3 submissions, 1 to grade", again.stdout)
        CLUSTER.wait_for_queue()
        print(f"slurm: array job {self.plan().jobs[-1]['array']} (wrong again): "
              f"{CLUSTER.final_states(str(self.plan().jobs[-1]['array']))}", flush=True)
        self.assertEqual(rows_of(self.slurm_csv), rows_of(self.local_csv))
        print("csv: after the second submission the Slurm gradebook equals the local one again", flush=True)
        done = self.gradebook("--csv", str(self.slurm_csv), "--slurm")
        self.assertIn("3 submissions, 0 to grade", done.stdout)  # nothing left: the CSV is written, nothing submitted
        self.assertEqual(len(self.plan().jobs), 3)


class SbatchCommandTests(kit_fixture.FixtureCase):
    """What `gradebook --slurm` hands sbatch, read by a stand-in sbatch that records its arguments (no cluster)."""

    def submit(self, exercises: str) -> tuple[subprocess.CompletedProcess, list[list[str]]]:
        fake = self.tmp / "fake-slurm"
        fake.mkdir(exist_ok=True)
        calls = fake / f"calls-{exercises}.txt"
        (fake / "sbatch").write_text(f"#!/bin/sh\necho \"$*\" >> '{calls}'\necho 41\n")
        (fake / "squeue").write_text("#!/bin/sh\n")
        for tool_file in ("sbatch", "squeue"):
            os.chmod(fake / tool_file, 0o755)
        (self.tmp / "subs").mkdir(exist_ok=True)
        shutil.copytree(self.repo, self.tmp / "subs" / "key", ignore=shutil.ignore_patterns(".git"), dirs_exist_ok=True)
        sandbox = ["--no-sandbox"] if NO_SANDBOX_HERE else []
        result = subprocess.run(
            [sys.executable, str(self.repo / "scripts" / "course"), "gradebook", str(self.tmp / "subs"), "--csv",
             str(self.tmp / f"book-{exercises}.csv"), "--exercises", exercises, *sandbox, "--slurm", "-p", "gpu",
             "--time=20"], cwd=self.repo, capture_output=True, text=True,
            env=dict(kit_fixture.ENV, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}"))
        lines = calls.read_text().splitlines() if calls.exists() else []
        return result, [line.split() for line in lines]

    def test_a_gpu_exercise_asks_each_task_for_a_gpu_and_a_cpu_one_does_not(self):
        result, (array, collector) = self.submit("01.2")  # the fixture's GPU exercise
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("--gres=gpu:1", array)
        self.assertIn("--array=0", array)
        self.assertEqual(array[array.index("-p"):array.index("-p") + 3], ["-p", "gpu", "--time=20"])
        self.assertNotIn("--gres=gpu:1", collector)
        self.assertIn("--dependency=afterany:41", collector)
        self.assertIn("-p", collector)
        result, (array, _) = self.submit("01.1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("--gres=gpu:1", array)
        self.assertIn("1 tasks) and collect job 41", result.stdout)


class NoClusterTests(unittest.TestCase):
    """The parts that need no cluster."""

    def test_array_indices_as_ranges(self):
        self.assertEqual(slurm.index_ranges([0, 1, 2, 5, 7, 8]), "0-2,5,7-8")
        self.assertEqual(slurm.index_ranges([3]), "3")

    def test_a_timed_out_tasks_reason_is_slurms_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "task.log"
            log.write_text(f"gradebook: building\n{TIME_LIMIT_LINE}\ncourse: stopped by SIGTERM\n")
            self.assertEqual(slurm.last_words(log), TIME_LIMIT_LINE)
            log.write_text("Traceback\ncourse: cmake not found: install it or put it on PATH\n")
            self.assertEqual(slurm.last_words(log), "course: cmake not found: install it or put it on PATH")

    def test_a_report_of_another_seed_is_not_this_grades(self):
        with tempfile.TemporaryDirectory() as tmp:
            plan = slurm.Plan("s", ["ada"], ["ada"], ["01.1"], 7, 120.0, True, None, f"{tmp}/g.csv",
                              f"{tmp}/g-reports", False)
            Path(plan.reports).mkdir()
            report = {"seed": 8, "exercises": [{"id": "01.1"}]}
            (Path(plan.reports) / "ada.json").write_text(json.dumps(report))
            self.assertIsNone(slurm.result_of(plan, "ada"))
            report["seed"] = 7
            (Path(plan.reports) / "ada.json").write_text(json.dumps(report))
            self.assertEqual(slurm.result_of(plan, "ada"), report)


def record_timing(local_s: float, slurm_s: float) -> None:
    out = os.environ.get("COURSE_SLURM_TIMING")
    if not out:
        return
    version = subprocess.run(["sinfo", "-V"], capture_output=True, text=True, env=CLUSTER.env).stdout.strip()
    commit = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    try:
        runs = json.loads(Path(out).read_text())["runs"]
    except (OSError, ValueError, KeyError):
        runs = []
    runs.append({"date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
                 "commit": commit, "machine": platform.node(), "cores": os.cpu_count(), "slurm": version,
                 "sandboxed": not NO_SANDBOX_HERE, "local_s": round(local_s, 1), "slurm_s": round(slurm_s, 1)})
    text = json.dumps({
        "what": "scripts/tests/test_slurm.py: the same three submissions (key, untouched handout, known-wrong) of the "
                "kit's fixture course, CPU exercise " + EXERCISES + ", seed " + SEED + ", graded by `gradebook` "
                "(one at a time, all cores each) and by `gradebook --slurm` on a one-node Slurm of this machine "
                "(one core per task); slurm_s runs from the submitting command to the collect job's CSV, the "
                "instructor's trees built in it",
        "runs": runs}, indent=2) + "\n"
    Path(out + ".tmp").write_text(text)
    os.replace(out + ".tmp", out)


def main() -> int:
    global CLUSTER
    folder = Path(tempfile.mkdtemp(prefix="course-slurm-cluster-"))
    CLUSTER = Cluster(folder)
    try:
        why = CLUSTER.start()
        loader = unittest.TestLoader()
        suite = loader.loadTestsFromTestCase(NoClusterTests)
        suite.addTests(loader.loadTestsFromTestCase(SbatchCommandTests))
        if why is None:
            suite.addTests(loader.loadTestsFromTestCase(SlurmGradebookTests))
        verbosity = 2 if "-v" in sys.argv[1:] else 1
        result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
        if not result.wasSuccessful():
            return 1
        if why:
            print(f"skipped: Slurm cannot start here: {why}")
            return 77
        return 0
    finally:
        CLUSTER.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
