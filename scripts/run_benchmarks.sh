#!/usr/bin/env bash
# Runs chapters' bench.sh on a GPU machine, writing results/<gpu>/<chapter>.json and, for a chapter's
# other runs, results/<gpu>/<chapter>.<kind>.json (the one naming rule: make_figures.py --check refuses others).
#
#   scripts/run_benchmarks.sh BUILD_DIR RESULTS_DIR [CHAPTER...]   (default: every chapter with a bench.sh)
#
# The reduction chapters 03, 04 and 05 share one bench, reduce_ladder/bench.sh: it runs by default, or
# by naming reduce_ladder (or any of the three chapters) as CHAPTER.
#
# RESULTS_DIR is results/<gpu> (h100, h200, h200x2, ...). Each chapter's output goes to
# RESULTS_DIR/logs-<chapter>.txt as well as the terminal; a failing chapter does not stop the others.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
results=$2
shift 2
mkdir -p "$results"
results=$(cd "$results" && pwd)
if [ $# -eq 0 ]; then
  set -- $(cd "$root" && ls -d [0-9][0-9]_*/bench.sh reduce_ladder/bench.sh 2>/dev/null | xargs -n1 dirname)
fi
# The reduction chapters have no bench.sh of their own; the ladder's bench runs them, once.
declare -a chapters=()
for chapter in "$@"; do
  case "$chapter" in
    03_reduce_divergence | 04_reduce_interleaved | 05_reduce_unroll) chapter=reduce_ladder ;;
  esac
  [[ " ${chapters[*]} " == *" $chapter "* ]] || chapters+=("$chapter")
done
set -- "${chapters[@]}"
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on shared machines
declare -a summary=()
status=0
for chapter in "$@"; do
  t0=$SECONDS
  echo "=== $chapter"
  if (cd "$root" && bash "$chapter/bench.sh" "$build" "$results") 2>&1 | tee "$results/logs-$chapter.txt"; then
    summary+=("PASS  $chapter ($((SECONDS - t0)) s)")
  else
    summary+=("FAIL  $chapter ($((SECONDS - t0)) s)")
    status=1
  fi
done
echo "== benchmarks =="
printf '%s\n' "${summary[@]}"
exit $status
