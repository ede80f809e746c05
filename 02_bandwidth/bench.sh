#!/usr/bin/env bash
# bench.sh BUILD_DIR RESULTS_DIR: the chapter's benchmark on the GPU machine (after the build).
# Writes RESULTS_DIR/02_bandwidth.json and prints the tables, then how long it took: the sweep 1 KiB ..
# 1 GiB in x4 steps plus 32 MiB, every row (no --variants), 20 timed trials per point, H2D and D2H at
# once with each direction's own rate, when each copy call returns (4 KiB and 32 MiB; host to device and
# back, host to host, device to device); on a machine with 2 or more GPUs also the peer-to-peer matrix
# (256 MiB).
# Then the latency of one load (memory_latency, its default footprints) into RESULTS_DIR/02_bandwidth.latency.json.
set -euo pipefail
build_dir=${1:?usage: bench.sh BUILD_DIR RESULTS_DIR}
results_dir=${2:?usage: bench.sh BUILD_DIR RESULTS_DIR}
program="$build_dir/02_bandwidth/bandwidth"
latency="$build_dir/02_bandwidth/memory_latency"
for p in "$program" "$latency"; do [[ -x "$p" ]] || { echo "bench.sh: $p not built" >&2; exit 1; }; done
mkdir -p "$results_dir"

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
p2p=off
if (( gpus >= 2 )); then p2p=auto; fi
echo "02_bandwidth: $gpus GPU(s); peer-to-peer matrix: $p2p"

start=$SECONDS
"$program" --min-size 1KiB --max-size 1GiB --step 4 --size 33554432 \
  --reps 20 --warmup 3 --p2p "$p2p" --p2p-size 256MiB --json "$results_dir/02_bandwidth.json"
"$latency" --json "$results_dir/02_bandwidth.latency.json"
echo "02_bandwidth: done in $((SECONDS - start)) s"
