"""LAMMPS beside this program: turns bench.sh's interleaved runs into results rows.

bench.sh runs, at every team size t and in rounds r, this program (`ours_t{t}_r{r}.json`, its --json) and then
LAMMPS' OPENMP package on in.lj (`lammps_t{t}_r{r}.log`, LAMMPS' -log). collect() reads them all and gives
  - the results header's "lammps": version, command, the in.lj it ran, its step-0 thermo;
  - one row per team size, "strategy": "lammps_omp": LAMMPS' whole-loop timesteps/s (100 steps / "Loop
    time", median and min-max over the rounds) and, from the same rounds, this program's fastest strategy
    there (the strategy with the highest median), with their ratio, and both loops' breakdowns (LAMMPS'
    Pair/Neigh/Comm/Modify/...; ours: forces as "Pair", rebuilds as "Neigh", the rest as "Other").
A LAMMPS run that failed, or whose log says something else than the run asked for (another step count, atom
count or thread count), is left out with one line naming the log and why; the bench carries on.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys

STRATEGY = "lammps_omp"
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


def _runs(folder: str, prefix: str, suffix: str):
    """(threads, round, path) of every file prefix_t{T}_r{R}suffix in the folder, in that order."""
    pattern = re.compile(re.escape(prefix) + r"_t(\d+)_r(\d+)" + re.escape(suffix) + "$")
    found = []
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        m = pattern.match(name)
        if m:
            found.append((int(m.group(1)), int(m.group(2)), os.path.join(folder, name)))
    return sorted(found)


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


def collect(folder: str, lmp: str, in_lj: str, root: str | None = None,
            say=lambda line: print(line, file=sys.stderr)):
    """(header, rows) from the runs in `folder`; `say` gets one line per run left out. `root`: the repository,
    to show lmp's and in.lj's paths relative to it."""
    ours = {}  # threads -> strategy -> [steps/s per round]
    ours_sections = {}  # threads -> strategy -> section -> [seconds per round], in LAMMPS' terms
    steps = atoms = cells = None
    for threads, _, path in _runs(folder, "ours", ".json"):
        with open(path) as f:
            doc = json.load(f)
        for row in doc["rows"]:
            if row["strategy"] == "serial" or row["threads"] != threads or "loop_steps_per_s" not in row:
                continue
            ours.setdefault(threads, {}).setdefault(row["strategy"], []).append(row["loop_steps_per_s"])
            if "loop_force_s" in row:  # the loop's breakdown: forces ("Pair"), rebuilds ("Neigh"), the rest
                split = {"Pair": row["loop_force_s"], "Neigh": row["loop_neighbour_s"],
                         "Other": row["loop_seconds"] - row["loop_force_s"] - row["loop_neighbour_s"]}
                for name, seconds in split.items():
                    ours_sections.setdefault(threads, {}).setdefault(row["strategy"], {}).setdefault(name, []).append(seconds)
            atoms = row["atoms"]
        steps, cells = doc["config"]["steps"], doc["config"]["cells"]

    lammps, sections, first = {}, {}, None
    for threads, rnd, path in _runs(folder, "lammps", ".log"):
        where = f"bench.sh: LAMMPS at {threads} threads, round {rnd} ({os.path.basename(path)})"
        try:
            with open(path, errors="replace") as f:
                run = parse_log(f.read())
        except (OSError, LogProblem) as problem:
            say(f"{where}: {problem}; left out")
            continue
        wrong = [f"{what} {got} (expected {want})" for what, got, want in
                 (("steps", run["steps"], steps), ("atoms", run["atoms"], atoms),
                  ("OpenMP threads", run["omp_threads"], threads), ("MPI tasks", run["mpi_tasks"], 1))
                 if want is not None and got != want]
        if wrong:
            say(f"{where}: ran {', '.join(wrong)}; left out")
            continue
        lammps.setdefault(threads, []).append(run["steps"] / run["loop_seconds"])
        for name, seconds in run["sections_s"].items():
            sections.setdefault(threads, {}).setdefault(name, []).append(seconds)
        first = first or run

    header = {"version": first["version"] if first else None, "executable": _shown(lmp, root),
              "command": "lmp -sf omp -pk omp N -in in.lj", "in_lj": _shown(in_lj, root), "in_lj_sha256": _sha256(in_lj),
              "steps": steps, "order": "per team size, in rounds: this program, then LAMMPS"}
    bundle = os.path.join(os.path.dirname(lmp), "VERSION")
    if os.path.isfile(bundle):
        with open(bundle) as f:
            header["packages"] = f.read().strip()
    if first and 0 in first["thermo"]:
        header["step0"] = first["thermo"][0]

    rows = []
    for threads in sorted(set(lammps) & set(ours)):
        rates = lammps[threads]
        by_strategy = {s: _median(v) for s, v in sorted(ours[threads].items())}
        best = max(by_strategy, key=lambda s: (by_strategy[s], s))
        mine, theirs = ours[threads][best], _median(rates)
        rows.append({"strategy": STRATEGY, "threads": threads, "cells": cells, "atoms": atoms, "steps": steps,
                     "rounds": len(rates), "loop_steps_per_s": theirs, "loop_steps_per_s_min": min(rates),
                     "loop_steps_per_s_max": max(rates), "ns_per_atom_step": 1e9 / (theirs * atoms),
                     "ours_strategy": best, "ours_loop_steps_per_s": by_strategy[best],
                     "ours_loop_steps_per_s_min": min(mine), "ours_loop_steps_per_s_max": max(mine),
                     "ours_rounds": len(mine), "ours_by_strategy": by_strategy,
                     "ratio": by_strategy[best] / theirs,
                     # LAMMPS' breakdown of its loop (Pair, Neigh, Comm, Modify, ...), medians over the rounds
                     "lammps_sections_s": {k: _median(v) for k, v in sorted(sections.get(threads, {}).items())},
                     # ... and this program's, for the fastest strategy: forces, rebuilds, the rest
                     "ours_sections_s": {k: _median(v) for k, v in
                                         sorted(ours_sections.get(threads, {}).get(best, {}).items())}})
    for threads in sorted(set(ours) - set(lammps)):
        say(f"bench.sh: no LAMMPS run at {threads} threads finished: no lammps_omp row there")
    return header, rows
