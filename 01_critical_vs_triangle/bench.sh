#!/usr/bin/env bash
# Chapter 01 benchmark: CPU only (the GPU machine's 16-core CPU; no GPU is used).
#   bash 01_critical_vs_triangle/bench.sh <build_dir> <results_dir>
# Thread sweep 1..nproc for every strategy at the study's sizes: 20 cells (32,000 atoms, LAMMPS in.lj),
# 35 (171,500) and, if time allows, 55 (665,500). Writes <results_dir>/01_critical_vs_triangle.json.
# Budget: 4 minutes wall on 16 cores (about 2.5 expected); size 55 is skipped past 150 s.
# Robustness over length: every (strategy, threads) is timed many times in interleaved rounds (critical,
# triangle, ... critical, triangle, ...) and reported as median with its min-max range; the MD loops that
# give timesteps/s are kept short (they time the same force code plus the integrator).
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

# The CPU's topology: a VM's 16 "cores" may be 8 cores x 2 hyper-threads, which the idle times show.
lscpu > "$work/lscpu.txt" 2>/dev/null || true
grep -m2 -E '^(siblings|cpu cores)' /proc/cpuinfo > "$work/cpuinfo.txt" || true

# Default system: 40 MD steps per (strategy, threads) for timesteps/s; 15 interleaved force rounds.
"$program" --cells 20 --threads "$cores" --steps 40 --reps 15 --warmup 2 --json "$work/cells20.json"
# The study's sizes: fewer MD steps (the force part is what the study times), 9 rounds.
"$program" --cells 35 --threads "$cores" --steps 10 --reps 9 --warmup 1 --json "$work/cells35.json"
if (( SECONDS - start < 150 )); then
  big_threads="1,2,4,8,11,$cores"
  "$program" --cells 55 --threads "$big_threads" --steps 5 --reps 4 --warmup 1 --json "$work/cells55.json"
else
  echo "bench.sh: $((SECONDS - start)) s used: skipping size 55 to stay within 4 minutes"
fi

# One results file: the first run's header, every run's rows and timelines.
python3 - "$results_dir/01_critical_vs_triangle.json" "$work" "$work"/cells*.json <<'PY'
import json, os, sys
out, work, paths = sys.argv[1], sys.argv[2], sorted(sys.argv[3:], key=lambda p: int(p.rsplit("cells", 1)[1].split(".")[0]))
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
print("cpu topology:", topology)
merged["rows"] = [row for d in docs for row in d["rows"]]
merged["extra"] = dict(docs[0]["extra"])
merged["extra"]["timelines"] = [t for d in docs for t in d["extra"].get("timelines", [])]
merged["extra"]["step0_by_cells"] = {str(d["config"]["cells"]): d["extra"]["step0"] for d in docs}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
print(f"wrote {out}: {len(merged['rows'])} rows from {len(docs)} runs")
PY
echo "bench.sh: done in $((SECONDS - start)) s"
