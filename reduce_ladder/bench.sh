#!/usr/bin/env bash
# The reduction ladder's benchmark (chapters 03, 04 and 05), on the GPU machine after the build:
#
#   bash reduce_ladder/bench.sh BUILD_DIR RESULTS_DIR
#
# Writes RESULTS_DIR/03_reduce_divergence.json, 04_reduce_interleaved.json and 05_reduce_unroll.json
# (the whole ladder at 2^16 … 2^28 ints with CUB, plus the Nsight Compute table in extra.ncu).
# Budget: about 2 minutes on an H100 (three programs ~40 s, ncu ~60 s); 3 minutes at most.
set -euo pipefail
build=$(cd "$1" && pwd)
results=$2
mkdir -p "$results"
root=$(cd "$(dirname "$0")/.." && pwd)

echo "== 03_reduce_divergence"
"$build/03_reduce_divergence/reduce_divergence" --n 2^24,2^28 --block 512 --json "$results/03_reduce_divergence.json"
echo "== 04_reduce_interleaved"
"$build/04_reduce_interleaved/reduce_interleaved" --n 2^24,2^28 --block 512 --json "$results/04_reduce_interleaved.json"
echo "== 05_reduce_unroll"
"$build/05_reduce_unroll/reduce_unroll" --n 2^16,2^18,2^20,2^22,2^24,2^26,2^28 --block 512 \
  --json "$results/05_reduce_unroll.json"

if command -v ncu >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ncu ]; then
  echo "== Nsight Compute (2^24, block 512)"
  csv=$(mktemp /tmp/reduce_ncu.XXXXXX.csv)
  if timeout 150 bash "$root/05_reduce_unroll/profile.sh" "$build" "$csv" "$results/05_reduce_unroll.json"; then
    echo "profiler table merged into $results/05_reduce_unroll.json (extra.ncu)"
  else
    echo "WARNING: Nsight Compute failed; 05_reduce_unroll.json has no profiler table" >&2
    tail -20 "$csv" >&2 || true
  fi
  rm -f "$csv"
else
  echo "WARNING: ncu not found; no profiler table" >&2
fi
