#!/usr/bin/env bash
# Nsight Compute on every rung of the ladder at 2^24 ints, block 512: the book's second table (global
# load/store efficiency, branch efficiency, divergent branches, shared bank conflicts) for our kernels.
#
#   bash 05_reduce_unroll/profile.sh BUILD_DIR OUT.csv [RESULTS_JSON]
#
# One ncu run, --clock-control none (the clocks the timings ran at). -k keeps the rungs' main kernels
# (the small finishing launch and CUB's single-tile pass are left out); --reps 1 --warmup 0 makes each
# rung launch its kernel exactly twice. With RESULTS_JSON, ncu_table.py merges the table into it.
set -euo pipefail
build=$1
out=$2
results=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=$(python3 -c "import sys; sys.path.insert(0, '$here'); import ncu_table; print(','.join(ncu_table.METRICS))")
kernels='regex:neighbored_kernel|interleaved_kernel|unroll_kernel|last_warp_kernel|complete_unroll_kernel|templated_kernel|shuffle_unroll8_kernel|persistent_kernel|DeviceReduceKernel'
program="$build/05_reduce_unroll/reduce_unroll"
"$ncu_bin" --clock-control none --csv --page raw --metrics "$metrics" -k "$kernels" --launch-skip 0 \
  "$program" --n 2^24 --block 512 --reps 1 --warmup 0 > "$out"
if [ -n "$results" ]; then
  python3 "$here/ncu_table.py" "$out" --merge "$results" --n 16777216 --block 512
fi
