#!/usr/bin/env bash
# bench.sh <build_dir> <results_dir>: the chapter's measurements on the GPU machine.
#   1 GPU  (H100 or one H200, ~2 min of a 4 min budget): the tune table and the kernel ladder at 16384²
#          (the stream ceiling first; 12 steps: whole passes of every temporal rung), two wavefield
#          snapshots, and 5 slabs on the one GPU checked bit for bit against one slab.
#   2+ GPUs (2 or 4 H200s, ~4 min): strong and weak scaling 1 … N GPUs at 16384², with and without
#          overlap, bit-for-bit checks, for the default one-step rung and for temporal_3 (slabs exchange a
#          12-row halo once per 3-step pass; 24 steps: whole passes); the NCCL backend with N processes,
#          with and without overlap, both rungs.
# Each run writes its own results file, once, and nothing rewrites it: <results_dir>/07_multigpu_fd.json
# for the ladder (1 GPU) or the scaling (2+ GPUs), <results_dir>/07_multigpu_fd.<kind>.json for each other
# run (07_multigpu_fd.variants.json: the kernel listing, wave_fd --list-variants). figures.py reads them all
# (its RUN_KINDS lists the kinds in the order they are made here).
set -euo pipefail
build_dir=${1:?usage: bench.sh <build_dir> <results_dir>}
results_dir=${2:?usage: bench.sh <build_dir> <results_dir>}
prog="$build_dir/07_multigpu_fd/wave_fd"
mkdir -p "$results_dir"
rm -f "$results_dir"/07_multigpu_fd.json "$results_dir"/07_multigpu_fd.*.json  # no file of an earlier run survives
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on these machines
gpus=$(nvidia-smi -L | wc -l)
# The GPUs this run may use: CUDA_VISIBLE_DEVICES, where set, narrows what nvidia-smi lists.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then gpus=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .); fi
echo "07_multigpu_fd: $gpus GPU(s)"

run() {  # run <kind or ""> <seconds> <args...>: one invocation, one results file
  local kind=$1 limit=$2
  shift 2
  timeout "$limit" "$prog" "$@" --json "$results_dir/07_multigpu_fd${kind:+.$kind}.json"
}

# The kernels as data (launch shapes; registers, shared and local memory, blocks per SM on this GPU): the one
# source of kernel facts for figures.py and compiler_report.py. A second of work, on any number of GPUs.
run variants 30 --list-variants

if [ "$gpus" -lt 2 ]; then
  run "" 200 --ladder --tune --nx 16384 --ny 16384 --steps 12 --warmup 1 --reps 5
  for velocity in layered constant; do
    run "snapshot_$velocity" 30 --nx 2048 --ny 2048 --steps 1500 --warmup 0 --reps 1 --velocity "$velocity" \
      --sponge 40 --snapshot "$results_dir/07_snapshot_$velocity.npy"
  done
  run slabs 30 --nx 4099 --ny 3001 --slabs 5 --steps 20 --warmup 0 --reps 2 --check
  rm -f "$results_dir"/07_snapshot_*.npy "$results_dir"/07_snapshot_*.npy.json  # embedded in the JSON
else
  run "" 150 --scaling --gpus "$gpus" --nx 16384 --ny 16384 --steps 20 --warmup 1 --reps 5
  run scaling_temporal 150 --scaling --gpus "$gpus" --variants temporal_3 --nx 16384 --ny 16384 --steps 24 \
    --warmup 1 --reps 5
  run slabs 30 --nx 4099 --ny 3001 --gpus 2 --slabs 5 --steps 20 --warmup 0 --reps 2 --check
  run slabs_temporal 30 --nx 4099 --ny 3001 --gpus 2 --slabs 5 --variants temporal_3 --steps 20 --warmup 0 --reps 2 \
    --check
  if ldd "$prog" | grep -q libnccl; then  # the NCCL backend is built only where NCCL was found
    run nccl_overlap 60 --backend nccl --launch "$gpus" --nx 16384 --ny 16384 --steps 20 --warmup 1 --reps 5 --check
    run nccl_no_overlap 60 --backend nccl --launch "$gpus" --nx 16384 --ny 16384 --steps 20 --warmup 1 --reps 5 \
      --check --no-overlap
    run nccl_temporal_overlap 60 --backend nccl --launch "$gpus" --variants temporal_3 --nx 16384 --ny 16384 \
      --steps 24 --warmup 1 --reps 5 --check
    run nccl_temporal_no_overlap 60 --backend nccl --launch "$gpus" --variants temporal_3 --nx 16384 --ny 16384 \
      --steps 24 --warmup 1 --reps 5 --check --no-overlap
  fi
fi
echo "wrote $results_dir/07_multigpu_fd*.json"
