#!/usr/bin/env bash
# Chapter 01 benchmark: CPU only (the GPU machine's 16-core CPU; no GPU is used).
#   bash 01_critical_vs_triangle/bench.sh <build_dir> <results_dir>
# Thread sweep 1..nproc for every strategy at the study's sizes: 20 cells (32,000 atoms, LAMMPS in.lj),
# 35 (171,500) and, if time allows, 55 (665,500). Writes <results_dir>/01_critical_vs_triangle.json.
# Budget: 4 minutes wall on 16 cores (about 2 expected); size 55 is skipped past 150 s.
set -euo pipefail
build_dir=${1:?usage: bench.sh <build_dir> <results_dir>}
results_dir=${2:?usage: bench.sh <build_dir> <results_dir>}
program="$build_dir/01_critical_vs_triangle/critical_vs_triangle"
[[ -x "$program" ]] || { echo "bench.sh: $program not built" >&2; exit 1; }
mkdir -p "$results_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cores=$(nproc)
# Pin each thread to its own logical CPU, so the timeline shows the algorithm, not the scheduler.
export OMP_PROC_BIND=close OMP_PLACES=threads
start=$SECONDS

# Default system: 100 MD steps per (strategy, threads), as LAMMPS' in.lj runs.
"$program" --cells 20 --threads "$cores" --strategy all --steps 100 --reps 10 --warmup 2 --json "$work/cells20.json"
# The study's sizes: fewer MD steps (the force part is what the study times).
"$program" --cells 35 --threads "$cores" --strategy all --steps 20 --reps 6 --warmup 1 --json "$work/cells35.json"
if (( SECONDS - start < 150 )); then
  big_threads="1,2,4,8,11,$cores"
  "$program" --cells 55 --threads "$big_threads" --strategy all --steps 5 --reps 4 --warmup 1 --json "$work/cells55.json"
else
  echo "bench.sh: $((SECONDS - start)) s used: skipping size 55 to stay within 4 minutes"
fi

# One results file: the first run's header, every run's rows and timelines.
python3 - "$results_dir/01_critical_vs_triangle.json" "$work"/cells*.json <<'PY'
import json, sys
out, paths = sys.argv[1], sorted(sys.argv[2:], key=lambda p: int(p.rsplit("cells", 1)[1].split(".")[0]))
docs = [json.load(open(p)) for p in paths]
merged = dict(docs[0])
merged["command_line"] = " ; ".join(d["command_line"] for d in docs)
merged["config"] = dict(docs[0]["config"], runs=[d["config"] for d in docs])
# The issue compares with LAMMPS in.lj on the course's 2-core development VM (43 timesteps/s serial, 56 on
# 2 MPI ranks). That comparison cannot be run here (other machine), so the chapter author's measurement
# on that VM is recorded with its provenance: `critical_vs_triangle --threads 2 --strategy
# thread_arrays,full_list,triangle --reps 3 --warmup 1 --steps 100`, three runs, medians (ranges: the
# VM's second vCPU is at times taken by the host, which no code can fix).
merged["config"]["measured_on_2core_dev_machine"] = {
    "cpu": "AMD EPYC (KVM, 2 vCPUs)", "atoms": 32000, "steps": 100, "runs": 3,
    "serial_steps_per_s": 71.6, "serial_range": [65.8, 81.4],
    "best_strategy_2": "triangle / thread_arrays", "best_steps_per_s_2": 147.1, "best_range_2": [50.9, 159.3],
    "lammps_steps_per_s": {"1": 43, "2": 56}}
merged["rows"] = [row for d in docs for row in d["rows"]]
merged["extra"] = dict(docs[0]["extra"])
merged["extra"]["timelines"] = [t for d in docs for t in d["extra"].get("timelines", [])]
merged["extra"]["step0_by_cells"] = {str(d["config"]["cells"]): d["extra"]["step0"] for d in docs}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
import os
os.replace(tmp, out)
print(f"wrote {out}: {len(merged['rows'])} rows from {len(docs)} runs")
PY
echo "bench.sh: done in $((SECONDS - start)) s"
