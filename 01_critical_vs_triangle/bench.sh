#!/usr/bin/env bash
# Chapter 01 benchmark: CPU only (the GPU machine's 16-core CPU; no GPU is used).
#   bash 01_critical_vs_triangle/bench.sh <build_dir> <results_dir>
# Thread sweep 1..nproc for every strategy at the study's sizes: 20 cells (32,000 atoms, LAMMPS in.lj),
# 35 (171,500) and, if time allows, 55 (665,500). Writes <results_dir>/01_critical_vs_triangle.json.
# Budget: about 6 minutes wall on 16 cores: the sweeps about 2.5 (size 55 is skipped when sizes 20 and 35
# took more than 150 s), LAMMPS beside this program about 2, the minimum-image and list-build steps both ways about a minute.
# Robustness over length: every (strategy, threads) is timed many times in interleaved rounds (critical,
# triangle, ... critical, triangle, ...) and reported as median with its min-max range; the MD loops that
# give timesteps/s are kept short (they time the same force code plus the integrator).
#
# LAMMPS beside it, when found: LAMMPS_LMP=/path/to/lmp, else `lmp` on PATH, else the bundle .lammps/lmp
# (01_critical_vs_triangle/lammps_bundle.sh); its bench/in.lj from LAMMPS_IN_LJ, else beside the wrapper, else
# LAMMPS' share folder. At every team size, LAMMPS' OPENMP package (-sf omp -pk omp N) runs in.lj unchanged
# (100 steps) and this program runs the same 100 steps of the same system, in turns (ours, LAMMPS, ours,
# LAMMPS, ...; LAMMPS_ROUNDS rounds, default 3) under the same thread pinning, so that a noisy machine hits
# both alike. Rows "strategy": "lammps_omp" carry the medians of both. No LAMMPS: one line, the rest runs.
set -euo pipefail
build_dir=${1:?usage: bench.sh <build_dir> <results_dir>}
results_dir=${2:?usage: bench.sh <build_dir> <results_dir>}
program="$build_dir/01_critical_vs_triangle/critical_vs_triangle"
here=$(cd "$(dirname "$0")" && pwd) root=$(cd "$(dirname "$0")/.." && pwd)
[[ -x "$program" ]] || { echo "bench.sh: $program not built" >&2; exit 1; }
mkdir -p "$results_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cores=$(nproc)
# Pin each thread to its own logical CPU, so the timeline shows the algorithm, not the scheduler.
export OMP_PROC_BIND=close OMP_PLACES=threads
start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)

# The CPU's topology: a VM's 16 "cores" may be 8 cores x 2 hyper-threads, which the idle times show.
lscpu > "$work/lscpu.txt" 2>/dev/null || true
grep -m2 -E '^(siblings|cpu cores)' /proc/cpuinfo > "$work/cpuinfo.txt" || true

# Default system: 40 MD steps per (strategy, threads) for timesteps/s; 15 interleaved force rounds.
"$program" --cells 20 --threads "$cores" --steps 40 --reps 15 --warmup 2 --json "$work/cells20.json"
echo "bench.sh: size 20 done at $((SECONDS - start)) s"

# The lesson step "periodic images once per list", timed both ways in turns (before: every pair takes the
# minimum image; after: only the pairs found across the box): critical, the force part and in.lj's 100-step
# loop, on 1 thread and on all cores. IMAGE_ROUNDS rounds (default 3).
images=$SECONDS
image_rounds=${IMAGE_ROUNDS:-3}
[[ "$image_rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench.sh: IMAGE_ROUNDS must be a count 1..99, got '$image_rounds'" >&2; exit 2; }
mkdir -p "$work/images"
for ((r = 1; r <= image_rounds; ++r)); do
  for mode in every-pair across-box; do
    "$program" --cells 20 --steps 100 --reference-steps 10 --threads "1,$cores" --variants critical --reps 9 --warmup 1 \
      --minimum-image "$mode" --json "$work/images/${mode}_r${r}.json" > "$work/images/${mode}_r${r}.txt"
  done
done
images=$((SECONDS - images))
echo "bench.sh: minimum image both ways done in $images s"

# The lesson step "a vectorized neighbour build", timed both ways in turns (before: the distance pass built for
# the baseline x86-64; after: at the CPU's widest vectors): the rebuilds' share of in.lj's 100-step loop and its
# timesteps/s, for the vectorized full list and the half list's thread_arrays, on 1 thread and on all cores.
# BUILD_ROUNDS rounds (default 3). Counted with the image step in the budget above.
builds=$SECONDS
build_rounds=${BUILD_ROUNDS:-3}
[[ "$build_rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench.sh: BUILD_ROUNDS must be a count 1..99, got '$build_rounds'" >&2; exit 2; }
mkdir -p "$work/listbuild"
for ((r = 1; r <= build_rounds; ++r)); do
  for mode in baseline vectorized; do
    "$program" --cells 20 --steps 100 --reference-steps 10 --threads "1,$cores" --variants thread_arrays,full_list_vectorized \
      --reps 3 --warmup 1 --list-build "$mode" --json "$work/listbuild/${mode}_r${r}.json" > "$work/listbuild/${mode}_r${r}.txt"
  done
done
builds=$((SECONDS - builds))
images=$((images + builds))
echo "bench.sh: list build both ways done in $builds s"

# LAMMPS: where it is, and its in.lj. Anything missing is one line, and the bench goes on without LAMMPS.
lmp="" in_lj=""
if [[ -n "${LAMMPS_LMP:-}" ]]; then
  if [[ -x "$LAMMPS_LMP" ]]; then lmp=$LAMMPS_LMP
  else echo "bench.sh: LAMMPS_LMP=$LAMMPS_LMP is not an executable file: LAMMPS not run"; fi
elif command -v lmp > /dev/null; then lmp=$(command -v lmp)
elif [[ -x "$root/.lammps/lmp" ]]; then lmp=$root/.lammps/lmp
else
  echo "bench.sh: LAMMPS not found (set LAMMPS_LMP, put lmp on PATH or run lammps_bundle.sh): LAMMPS not run"
fi
if [[ -n "$lmp" ]]; then
  lmp=$(cd "$(dirname "$lmp")" && pwd)/$(basename "$lmp")  # absolute: LAMMPS runs in its own folder
  real=$(readlink -f "$lmp")
  for candidate in "${LAMMPS_IN_LJ:-}" "$(dirname "$lmp")/in.lj" "$(dirname "$real")/share/lammps/bench/in.lj" \
                   "$(dirname "$real")/../share/lammps/bench/in.lj" /usr/share/lammps/bench/in.lj; do
    if [[ -n "$candidate" && -f "$candidate" ]]; then in_lj=$(readlink -f "$candidate"); break; fi
  done
  if [[ -z "$in_lj" ]]; then
    echo "bench.sh: LAMMPS found ($lmp) but not its bench/in.lj (set LAMMPS_IN_LJ): LAMMPS not run"
    lmp=""
  fi
fi
side_by_side=0
if [[ -n "$lmp" ]]; then
  side_by_side=$SECONDS
  rounds=${LAMMPS_ROUNDS:-3}
  [[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench.sh: LAMMPS_ROUNDS must be a count 1..99, got '$rounds'" >&2; exit 2; }
  echo "bench.sh: LAMMPS $lmp on $in_lj, $rounds rounds at 1..$cores threads, in turns with this program"
  mkdir -p "$work/lammps"
  # Ours: the three half-list strategies with Newton's third law and the vectorized full list (atomic and the
  # scalar full_list are never the fastest in the sweep), 100 steps as in.lj's run; the serial reference is
  # cut to 10 steps, enough to check the forces off the lattice, since here only the loops count.
  for ((t = 1; t <= cores; ++t)); do
    for ((r = 1; r <= rounds; ++r)); do
      "$program" --cells 20 --steps 100 --reference-steps 10 --threads "$t,$t" --variants critical,triangle,thread_arrays,full_list_vectorized \
        --reps 1 --warmup 0 --json "$work/lammps/ours_t${t}_r${r}.json" > "$work/lammps/ours_t${t}_r${r}.txt"
      log="$work/lammps/lammps_t${t}_r${r}.log"
      status=0
      (cd "$work/lammps" && OMP_NUM_THREADS=$t "$lmp" -sf omp -pk omp "$t" -in "$in_lj" -log "$log" -screen none \
         > "$log.out" 2>&1) || status=$?
      if (( status != 0 )); then
        echo "bench.sh: LAMMPS failed at $t threads, round $r (exit $status)$(cat "$log.out" "$log" 2>/dev/null | grep . | tail -n 1 | sed 's/^/: /')"
      fi
    done
  done
  side_by_side=$((SECONDS - side_by_side))
  echo "bench.sh: LAMMPS side by side done in $side_by_side s"
fi

# The study's sizes: fewer MD steps (the force part is what the study times), 9 rounds.
"$program" --cells 35 --threads "$cores" --steps 10 --reps 9 --warmup 1 --json "$work/cells35.json"
sweeps=$((SECONDS - start - side_by_side - images))
if (( sweeps < 150 )); then
  big_threads=$(for t in 1 2 4 8 11; do (( t < cores )) && printf '%s,' "$t"; done; echo "$cores")
  "$program" --cells 55 --threads "$big_threads" --steps 5 --reps 4 --warmup 1 --json "$work/cells55.json"
else
  echo "bench.sh: sizes 20 and 35 took $sweeps s: skipping size 55 to stay within 5 minutes"
fi

# One results file: the first run's header, every run's rows and timelines.
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
python3 - "$results_dir/01_critical_vs_triangle.json" "$work" "$here" "${lmp:-}" "${in_lj:-}" "$load_start" "$load_end" \
  "$work"/cells*.json <<'PY'
import json, os, sys
out, work, here, lmp, in_lj, load_start, load_end = sys.argv[1:8]
paths = sorted(sys.argv[8:], key=lambda p: int(p.rsplit("cells", 1)[1].split(".")[0]))
docs = [json.load(open(p)) for p in paths]
merged = dict(docs[0])
merged["command_line"] = " ; ".join(d["command_line"] for d in docs)
merged["config"] = dict(docs[0]["config"], runs=[d["config"] for d in docs])
# Topology from lscpu (or /proc/cpuinfo): threads per core > 1 means logical CPUs share cores.
def fields(path, sep=":"):
    try:
        return {k.strip(): v.strip() for k, _, v in (l.partition(sep) for l in open(path)) if v}
    except OSError:
        return {}
lscpu, cpuinfo = fields(os.path.join(work, "lscpu.txt")), fields(os.path.join(work, "cpuinfo.txt"))
topology = {key: lscpu[name] for key, name in (("threads_per_core", "Thread(s) per core"),
            ("cores_per_socket", "Core(s) per socket"), ("sockets", "Socket(s)"), ("cpus", "CPU(s)"),
            ("model_name", "Model name"), ("hypervisor", "Hypervisor vendor"), ("numa_nodes", "NUMA node(s)"))
            if name in lscpu}
if "siblings" in cpuinfo and "cpu cores" in cpuinfo:
    topology["cpuinfo_siblings"], topology["cpuinfo_cpu_cores"] = cpuinfo["siblings"], cpuinfo["cpu cores"]
merged["config"]["cpu_topology"] = topology
# How busy the machine was (1, 5 and 15-minute load averages, at the start and the end): other work on the
# cores slows both sides of the LAMMPS comparison alike, but widens every range.
merged["config"]["load_average"] = {"start": load_start, "end": load_end}
print("cpu topology:", topology)
merged["rows"] = [row for d in docs for row in d["rows"]]
merged["extra"] = dict(docs[0]["extra"])
merged["extra"]["timelines"] = [t for d in docs for t in d["extra"].get("timelines", [])]
merged["extra"]["step0_by_cells"] = {str(d["config"]["cells"]): d["extra"]["step0"] for d in docs}
# The minimum-image step: per mode and team, the medians over the rounds of the force part (each round's
# own median of 9) and of the loop's timesteps/s, with their ranges.
import glob, re
runs = {}
for path in glob.glob(os.path.join(work, "images", "*.json")):
    mode = re.match(r"(.*)_r\d+\.json$", os.path.basename(path)).group(1)
    for row in json.load(open(path))["rows"]:
        if row["strategy"] == "critical":
            runs.setdefault((mode, row["threads"]), []).append(row)
def spread(values):
    v = sorted(values)
    return {"median": v[len(v) // 2], "min": v[0], "max": v[-1]}
merged["extra"]["minimum_image_step"] = {
    "strategy": "critical", "cells": 20, "steps": 100, "order": "per round: every-pair, then across-box",
    "rows": [{"minimum_image": mode, "threads": t, "rounds": len(rows),
              "force_ms": spread([r["force_ms"] for r in rows]),
              "loop_steps_per_s": spread([r["loop_steps_per_s"] for r in rows])}
             for (mode, t), rows in sorted(runs.items())]}
# The vectorized-build step: per mode, strategy and team, medians over the rounds of the rebuilds' time per step
# (ms) and of the loop's timesteps/s, with their ranges.
builds = {}
for path in glob.glob(os.path.join(work, "listbuild", "*.json")):
    mode = re.match(r"(.*)_r\d+\.json$", os.path.basename(path)).group(1)
    for row in json.load(open(path))["rows"]:
        if row["strategy"] != "serial" and "loop_neighbour_s" in row:
            builds.setdefault((mode, row["strategy"], row["threads"]), []).append(row)
merged["extra"]["list_build_step"] = {
    "cells": 20, "steps": 100, "order": "per round: baseline, then vectorized",
    "rows": [{"list_build": mode, "strategy": strategy, "threads": t, "rounds": len(rows),
              # steps = loop seconds x steps/s
              "rebuild_ms_per_step": spread([1e3 * r["loop_neighbour_s"] / (r["loop_seconds"] * r["loop_steps_per_s"])
                                            for r in rows]),
              "loop_steps_per_s": spread([r["loop_steps_per_s"] for r in rows])}
             for (mode, strategy, t), rows in sorted(builds.items())]}
# LAMMPS beside this program (lammps_side_by_side.py): its rows and its version in the header.
if lmp:
    sys.path.insert(0, here)
    import lammps_side_by_side
    header, rows = lammps_side_by_side.collect(os.path.join(work, "lammps"), lmp, in_lj, os.path.dirname(here))
    if rows:
        merged["lammps"] = header
        merged["rows"] += rows
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
print(f"wrote {out}: {len(merged['rows'])} rows from {len(docs)} runs"
      + (f", LAMMPS {merged['lammps']['version']}" if "lammps" in merged else ", no LAMMPS"))
PY
echo "bench.sh: done in $((SECONDS - start)) s"
