#!/usr/bin/env bash
# Chapter 06 benchmark: every scenario at the default size (256 MiB each way), timelines included.
#   bash 06_streams/bench.sh <build_dir> <results_dir>   ->  <results_dir>/06_streams.json (+ 06_streams.trace.json)
# Then the pipeline sweep at small sizes (64 KiB and 1 MiB each way) -> <results_dir>/06_streams.small.json.
# Budget: about 1 minute on an H100 (2 minutes at most); one GPU is enough.
set -euo pipefail
build_dir=${1:?usage: bench.sh <build_dir> <results_dir>}
results_dir=${2:?usage: bench.sh <build_dir> <results_dir>}
program="$build_dir/06_streams/streams"
[[ -x "$program" ]] || { echo "bench.sh: $program not built" >&2; exit 1; }
mkdir -p "$results_dir"
nvidia-smi -L | head -n 1 || true

# Only CUDA_DEVICE_MAX_CONNECTIONS from the scenarios themselves: the issue_order scenario sets it in
# its child processes; an inherited value would change the other scenarios.
unset CUDA_DEVICE_MAX_CONNECTIONS
timeout 170 "$program" --variants all --reps 10 --warmup 2 --gantt-width 96 \
  --json "$results_dir/06_streams.json" --trace "$results_dir/06_streams.trace.json"

python3 - "$results_dir/06_streams.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["extra"].get("summary", {})
b, f = s.get("balanced_pipeline"), s.get("false_dependency")
if b:
    print(f"balanced pipeline: best N={b['best_chunks']}, measured {b['measured_speedup']:.2f}x vs model "
          f"{b['model_speedup']:.2f}x -> measured/model = {b['ratio_to_model']:.3f} (target >= 0.90; K calibrated to the both-copies time)")
for key, v in (f or {}).items():
    print(f"false dependency ({key}: {v['connections']} connections, {v['streams']} streams): depth-first / "
          f"breadth-first = {v['depth_over_breadth']:.2f}x")
PY

# The pipeline at small sizes: one run of the program per size, gathered into one file ("runs": size -> its
# results JSON, timelines dropped), written atomically.
small=$(mktemp -d)
trap 'rm -rf "$small"' EXIT
for size in 64KiB 1MiB; do
  timeout 60 "$program" --variants pipeline --reps 10 --warmup 2 --size "$size" --json "$small/$size.json" > /dev/null
done
python3 - "$results_dir/06_streams.small.json" "$small" <<'PY'
import json, os, sys
out, folder = sys.argv[1:3]
runs = {}
for size in ("64KiB", "1MiB"):
    doc = json.load(open(os.path.join(folder, size + ".json")))
    doc["extra"].pop("timelines", None)
    runs[size] = doc
first = runs["64KiB"]
merged = {key: first[key] for key in ("schema", "device", "date", "driver", "toolkit", "commit")}
merged |= {"chapter": "06_streams", "what": "the pipeline sweep of `streams --variants pipeline` at small sizes "
           "(--size 64KiB and 1MiB), one results file of the program per size", "runs": runs}
with open(out + ".tmp", "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
os.replace(out + ".tmp", out)
for size, doc in runs.items():
    best = max(doc["extra"]["sweep"], key=lambda p: p["speedup"])
    print(f"pipeline at {size}: best N={best['chunks']}, {best['speedup']:.2f}x over the unstreamed pass")
PY
