#!/usr/bin/env bash
# GPU validation, for anyone on a GPU machine (an instructor checking a lab machine, and us before every
# resolve): configure + build from clean, every test with REQUIRE_GPU=1, then compute-sanitizer
# memcheck, racecheck and synccheck over every chapter program at a small size. Fails on any report.
#
#   scripts/gpu_validate.sh [build-dir]        (default: build-validate; extra CMake args in $CMAKE_ARGS)
#
# STAGES (default "build tests sanitize") runs part of it, for machines that limit a session's length:
# STAGES="build tests" first, then STAGES=sanitize on the same build folder (which it then reuses).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-validate}
logdir=${LOG_DIR:-$build/validate-logs}
jobs=${JOBS:-$(nproc)}
stages=" ${STAGES:-build tests sanitize} "
for stage in $stages; do
  case $stage in build|tests|sanitize) ;; *) echo "gpu_validate.sh: unknown stage '$stage' (build, tests, sanitize)" >&2; exit 2;; esac
done
wants() { [[ $stages == *" $1 "* ]]; }
declare -a summary=()
failed=0
step() {  # step NAME COMMAND...: runs, logs to $logdir/NAME.log, records PASS/FAIL
  local name=$1; shift
  local log="$logdir/$name.log"
  local t0=$SECONDS
  if "$@" >"$log" 2>&1; then
    summary+=("PASS  $name ($((SECONDS - t0)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - t0)) s): see $log")
    failed=1
    tail -n 30 "$log"
  fi
}

if wants build; then
  rm -rf "$build"
  mkdir -p "$logdir"
  # shellcheck disable=SC2086
  step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
  step build cmake --build "$build" -j "$jobs"
  if [ $failed -ne 0 ]; then
    printf '%s\n' "${summary[@]}"
    exit 1
  fi
elif [ ! -f "$build/sanitize_commands.txt" ]; then
  echo "gpu_validate.sh: $build holds no build: run the build stage first" >&2
  exit 2
fi
mkdir -p "$logdir"
if wants tests; then
  step tests env REQUIRE_GPU=1 ctest --test-dir "$build" -LE tour --output-on-failure -j 1
fi

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
wants sanitize && while IFS=$'\t' read -r name cmd; do
  [ -n "$name" ] || continue
  for tool in memcheck racecheck synccheck; do
    # shellcheck disable=SC2086
    step "sanitize-$tool-$name" "$sanitizer" --tool "$tool" --error-exitcode 99 \
      $( [ "$tool" = memcheck ] && echo --leak-check full ) $cmd
  done
done <"$build/sanitize_commands.txt"

echo
echo "== GPU validation summary, stages:$stages($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)) =="
printf '%s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then echo "RESULT: FAILED"; exit 1; fi
echo "RESULT: all passed"
