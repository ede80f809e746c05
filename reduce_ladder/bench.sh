#!/usr/bin/env bash
# The reduction ladder's benchmark: one run for its three chapters, on the GPU machine after the build.
#
#   bash reduce_ladder/bench.sh BUILD_DIR RESULTS_DIR
#
# Writes RESULTS_DIR/03_reduce_divergence.json and 04_reduce_interleaved.json (2^24 and 2^28 ints),
# 05_reduce_unroll.json (the whole ladder at 2^10 … 2^30 ints, with CUB) and, where Nsight Compute is
# installed, 05_reduce_unroll.profile.json (05_reduce_unroll/profile.sh). Each program writes only its
# own chapter's file. A chapter whose folder is not in the tree is skipped.
# Budget: about 2 minutes on an H100 (three programs ~40 s, ncu ~60 s); 3 minutes at most.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
results=$2
mkdir -p "$results"

# chapter folder, program, sizes: every chapter at block 512, the book's block size.
run_chapter() {
  local chapter=$1 program=$2 sizes=$3
  shift 3
  if [ ! -d "$root/$chapter" ]; then
    echo "== $chapter: not in this tree, skipped"
    return
  fi
  echo "== $chapter"
  "$build/$chapter/$program" --n "$sizes" --block 512 --json "$results/$chapter.json" "$@"
}

run_chapter 03_reduce_divergence reduce_divergence 2^24,2^28
run_chapter 04_reduce_interleaved reduce_interleaved 2^24,2^28
# 100 runs per median: at 2^10 a run is a few microseconds, and 05 compares its fastest rung with CUB there.
run_chapter 05_reduce_unroll reduce_unroll 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30 --reps 100

profile="$root/05_reduce_unroll/profile.sh"
if [ ! -f "$profile" ]; then
  exit 0
elif command -v ncu >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ncu ]; then
  echo "== Nsight Compute (2^24, block 512)"
  if timeout 150 bash "$profile" "$build" "$results/05_reduce_unroll.profile.json"; then
    echo "profiler table written to $results/05_reduce_unroll.profile.json"
  else
    echo "WARNING: Nsight Compute failed; no 05_reduce_unroll.profile.json written" >&2
  fi
else
  echo "WARNING: ncu not found; no profiler table" >&2
fi
