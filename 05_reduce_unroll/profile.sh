#!/usr/bin/env bash
# Nsight Compute on every rung of the ladder at 2^24 ints, block 512: the book's second table (global
# load/store efficiency, branch efficiency, divergent branches, shared bank conflicts) for our kernels.
#
#   bash 05_reduce_unroll/profile.sh BUILD_DIR PROFILE_JSON     # e.g. results/h100/05_reduce_unroll.profile.json
#
# One ncu run, --clock-control none (the clocks the timings ran at). -k keeps the rungs' main kernels
# (the small finishing launch and CUB's single-tile pass are left out); --reps 1 --warmup 0 makes each
# rung launch its kernel exactly twice. The profiled run writes its own results file (rung order,
# device); ncu_table.py turns it and the ncu CSV into PROFILE_JSON, the chapter's profiler results,
# which figures.py reads. Nothing else is rewritten.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
here=$(cd "$(dirname "$0")" && pwd)
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
work=$(mktemp -d /tmp/reduce_ncu.XXXXXX)
trap 'rm -rf "$work"' EXIT
metrics=$(python3 "$here/ncu_table.py" --metrics)
kernels='regex:neighbored_kernel|interleaved_kernel|unroll_kernel|last_warp_kernel|complete_unroll_kernel|templated_kernel|shuffle_unroll8_kernel|persistent_kernel|DeviceReduceKernel'
if ! "$ncu_bin" --clock-control none --csv --page raw --metrics "$metrics" -k "$kernels" --launch-skip 0 \
    "$build/05_reduce_unroll/reduce_unroll" --n 2^24 --block 512 --reps 1 --warmup 0 --json "$work/run.json" \
    > "$work/ncu.csv"; then
  tail -20 "$work/ncu.csv" >&2 || true
  exit 1
fi
python3 "$here/ncu_table.py" "$work/ncu.csv" --run "$work/run.json" --out "$out"
