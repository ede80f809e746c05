#!/usr/bin/env bash
# bench.sh BUILD_DIR RESULTS_DIR: chapter 00's benchmark on the GPU machine (after the build).
# Writes RESULTS_DIR/00_first_kernel.json: the whole ladder at sizes well past the L2 cache (2^26 floats,
# 256 MiB, per 1-D array; an 8192 x 8192 matrix, 256 MiB, per 2-D array), every kernel checked against the
# CPU first, 20 timed runs after 3 warm-up runs, and the memory levels (--levels). Then copy_strided at
# the strides 1, 2, 4, 8, 16 and 32 (one run of the program per stride, only that row) into
# RESULTS_DIR/00_first_kernel.strides.json. Budget: under a minute on an H100 (most of it the CPU references).
set -euo pipefail
build_dir=${1:?usage: bench.sh BUILD_DIR RESULTS_DIR}
results_dir=${2:?usage: bench.sh BUILD_DIR RESULTS_DIR}
program="$build_dir/00_first_kernel/first_kernel"
[[ -x "$program" ]] || { echo "bench.sh: $program not built" >&2; exit 1; }
mkdir -p "$results_dir"

start=$SECONDS
"$program" --n 2^26 --width 8192 --height 8192 --stride 32 --block 256 --reps 20 --warmup 3 --levels \
  --json "$results_dir/00_first_kernel.json"

# The stride sweep: how the strided copy's bandwidth falls as the lanes of a warp spread over more sectors.
sweep=$(mktemp -d)
trap 'rm -rf "$sweep"' EXIT
for stride in 1 2 4 8 16 32; do
  "$program" --variants copy_strided --n 2^26 --stride "$stride" --reps 20 --warmup 3 \
    --json "$sweep/$stride.json" > /dev/null
done
python3 - "$results_dir/00_first_kernel.strides.json" "$sweep" <<'PY'
import json, os, sys
out, folder = sys.argv[1:3]
runs = {}
for stride in ("1", "2", "4", "8", "16", "32"):
    runs[stride] = json.load(open(os.path.join(folder, stride + ".json")))
first = runs["1"]
merged = {key: first[key] for key in ("schema", "device", "date", "driver", "toolkit", "commit")}
merged |= {"chapter": "00_first_kernel",
           "what": "`first_kernel --variants copy_strided --n 2^26 --stride S`, one results file of the program per stride",
           "runs": runs}
with open(out + ".tmp", "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
os.replace(out + ".tmp", out)
for stride, doc in runs.items():
    row = doc["rows"][0]
    print(f"copy_strided, stride {stride:>2}: {row['gbs']:8.1f} GB/s")
PY
echo "00_first_kernel: done in $((SECONDS - start)) s"
