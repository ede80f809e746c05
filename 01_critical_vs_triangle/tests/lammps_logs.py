"""lammps_logs.py: bench.sh reads LAMMPS' logs robustly (lammps_side_by_side.py).

A complete log gives its loop rate, version and step-0 thermo; a log cut short, a failed run, a run of other
length, atom count or thread count, and an empty file are each left out with one line naming the log, and the
rows come from the runs that remain (the median of those, this program's fastest strategy beside it).
The logs here are made up in LAMMPS' layout; LAMMPS is not needed. Exit 1, naming what differs."""
import json
import pathlib
import sys
import tempfile

chapter = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(chapter))
import lammps_side_by_side as side  # noqa: E402

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


def log(seconds=2.0, steps=100, atoms=32000, threads=2, finished=True):
    text = (f"LAMMPS (1 Jan 2000 - Made up)\n  using {threads} OpenMP thread(s) per MPI task\n"
            "   Step          Temp          E_pair         E_mol          TotEng         Press     \n"
            "         0   1.44          -6.7733681      0             -4.6134356     -5.0197073    \n")
    if finished:
        text += (f"       {steps}   0.75   -5.75   0   -4.62   0.2\n"
                 f"Loop time of {seconds} on {threads} procs for {steps} steps with {atoms} atoms\n\n"
                 f"95.5% CPU use with 1 MPI tasks x {threads} OpenMP threads\n\nMPI task timing breakdown:\n"
                 "Section |  min time  |  avg time  |  max time  |%varavg| %total\n"
                 "---------------------------------------------------------------\n"
                 "Pair    | 1.3        | 1.4        | 1.5        |   0.0 | 70.00\n"
                 "Comm    | 0.3        | 0.4        | 0.5        |   0.0 | 20.00\n"
                 "Other   |            | 0.2        |            |       | 10.00\n")
    return text


run = side.parse_log(log(seconds=2.5))
expect("loop seconds", run["loop_seconds"], 2.5)
expect("version", run["version"], "1 Jan 2000 - Made up")
expect("threads", run["omp_threads"], 2)
expect("step-0 pressure", run["thermo"].get(0, {}).get("Press"), -5.0197073)
expect("step-100 E_pair", run["thermo"].get(100, {}).get("E_pair"), -5.75)
expect("LAMMPS' own breakdown", run["sections_s"], {"Pair": 1.4, "Comm": 0.4, "Other": 0.2})
for name, text in (("cut short", log(finished=False)), ("empty", ""), ("not a number", log(seconds="nan")),
                   ("garbage", "Segmentation fault\n")):
    try:
        side.parse_log(text)
        failures.append(f"a log {name} was read as a complete run")
    except side.LogProblem:
        pass

with tempfile.TemporaryDirectory() as folder:
    folder = pathlib.Path(folder)
    for t in (1, 2):
        for r, (critical, thread_arrays) in enumerate(((50.0, 60.0), (52.0, 58.0), (40.0, 61.0)), start=1):
            rows = [{"strategy": "serial", "threads": 1, "atoms": 32000, "loop_steps_per_s": 999.0},
                    {"strategy": "critical", "threads": t, "atoms": 32000, "loop_steps_per_s": critical * t},
                    {"strategy": "thread_arrays", "threads": t, "atoms": 32000, "loop_steps_per_s": thread_arrays * t}]
            (folder / f"ours_t{t}_r{r}.json").write_text(json.dumps({"config": {"steps": 100, "cells": 20}, "rows": rows}))
    # One thread: three good runs (2.0, 2.5, 4.0 s). Two threads: one good run, then one cut short, one of 50
    # steps, one on 4 threads, one of another system, an empty log.
    for r, seconds in enumerate((2.0, 2.5, 4.0), start=1):
        (folder / f"lammps_t1_r{r}.log").write_text(log(seconds, threads=1))
    (folder / "lammps_t2_r1.log").write_text(log(1.0, threads=2))
    (folder / "lammps_t2_r2.log").write_text(log(1.0, threads=2, finished=False))
    (folder / "lammps_t2_r3.log").write_text(log(0.5, steps=50, threads=2))
    (folder / "lammps_t2_r4.log").write_text(log(1.0, threads=4))
    (folder / "lammps_t2_r5.log").write_text(log(1.0, atoms=4000, threads=2))
    (folder / "lammps_t2_r6.log").write_text("")
    said = []
    header, rows = side.collect(str(folder), str(folder / "lmp"), str(folder / "in.lj"), say=said.append)
    expect("lines for the runs left out", len(said), 5)
    if not all("threads, round" in line and "left out" in line for line in said):
        failures.append(f"a run left out without naming its log: {said}")
    expect("version", header["version"], "1 Jan 2000 - Made up")
    expect("step 0 in the header", header.get("step0", {}).get("E_pair"), -6.7733681)
    by_threads = {row["threads"]: row for row in rows}
    expect("rows", sorted(by_threads), [1, 2])
    one, two = by_threads.get(1, {}), by_threads.get(2, {})
    expect("LAMMPS median on 1 thread (100 / 2.5 s)", one.get("loop_steps_per_s"), 40.0)
    expect("LAMMPS range on 1 thread", (one.get("loop_steps_per_s_min"), one.get("loop_steps_per_s_max")), (25.0, 50.0))
    expect("rounds kept on 2 threads", two.get("rounds"), 1)
    expect("our fastest strategy", one.get("ours_strategy"), "thread_arrays")
    expect("its median", one.get("ours_loop_steps_per_s"), 60.0)
    expect("ratio on 1 thread", one.get("ratio"), 60.0 / 40.0)
    expect("ratio on 2 threads", two.get("ratio"), 120.0 / 100.0)
    expect("strategy name", {row["strategy"] for row in rows}, {"lammps_omp"})
    expect("LAMMPS' Comm on 1 thread (median)", one.get("lammps_sections_s", {}).get("Comm"), 0.4)

for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
