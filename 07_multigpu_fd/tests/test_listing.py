#!/usr/bin/env python3
"""wave_fd --list-variants: the program's kernels as data (the one source of kernel facts for the figures and
the compiler report). Run by ctest (wave_fd.list_variants, label cpu) as

    python3 07_multigpu_fd/tests/test_listing.py <build>/07_multigpu_fd/wave_fd

Without a GPU the listing holds the launch facts only, exits 0 and says that the runtime part needs a
GPU (on stdout, or stderr under --csv); with one, every listed kernel also carries what the runtime reports.
Both are checked here."""
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path


def main(program: str) -> int:
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="wave_fd_listing_test.") as tmp:
        out = Path(tmp) / "variants.json"
        done = subprocess.run([program, "--list-variants", "--json", str(out)], capture_output=True, text=True)
        check(done.returncode == 0, f"--list-variants exits {done.returncode}: {done.stderr.strip()}")
        check(out.is_file(), "--list-variants --json FILE writes FILE")
        if failures:
            print("\n".join("FAILED: " + f for f in failures), file=sys.stderr)
            return 1
        doc = json.loads(out.read_text())
        said = done.stdout + done.stderr

    rows = [r for r in doc["rows"] if r.get("table") == "variants"]
    extra = doc["extra"]
    runtime = extra.get("runtime_listed")
    check(isinstance(runtime, bool), "extra.runtime_listed is true or false")
    rungs = [r for r in rows if r["role"] == "rung"]
    candidates = [r for r in rows if r["role"] == "candidate"]
    ceilings = [r for r in rows if r["role"] == "ceiling"]
    names = [r["name"] for r in rows]
    check(len(names) == len(set(names)), "every listed name is unique")
    check(len(rungs) >= 13, f"the ladder's rungs are listed ({len(rungs)})")
    check(len(candidates) >= 4 and len(ceilings) == 1, "the tuning candidates and the stream ceiling are listed")
    check(extra.get("default_rung") in {r["name"] for r in rungs}, "the default rung is a rung")
    build = extra.get("build", {})
    check("-std=c++" in build.get("cuda_flags", "") and build.get("nvcc"), f"the build flags and nvcc are listed: {build}")
    check(isinstance(extra.get("stencil", {}).get("halo"), int), "the stencil's halo is listed")

    for r in rows:
        if r.get("kernel") is None:
            check(r["name"] == "shared_tile" and "exercise" in r.get("note", ""),
                  f"{r['name']}: only exercise 07.3's rung lists no kernel")
            continue
        bx, by = r["block"]
        check(r["threads"] == bx * by > 0, f"{r['name']}: threads = block x * block y")
        check(f"ceil(nx / {r['cells_per_block_x']})" in r["grid"], f"{r['name']}: the grid formula uses its columns per block")
        check(r["kernel"].split("<")[0] in ("step_naive_global", "step_shared_line", "step_tiled_l1", "step_tiled_vec4",
                                             "step_pipelined", "stream_ceiling_kernel"),
              f"{r['name']}: a kernel of the chapter ({r['kernel']})")
        check(r["shape"].startswith(f"{r['threads']} threads"), f"{r['name']}: the shape in words starts with its threads")
        if r["ring"]:
            check(r["dynamic_smem_bytes"] > 0, f"{r['name']}: a copy ring lives in dynamic shared memory")
        if runtime:
            rt_ok = r.get("registers", 0) > 0 and r.get("blocks_per_sm", 0) >= 1 and r.get("limited_by")
            check(rt_ok, f"{r['name']}: the runtime part (registers, blocks per SM, what limits them) is listed")
            if rt_ok:
                check(r["warps_per_sm"] == r["blocks_per_sm"] * math.ceil(r["threads"] / 32), f"{r['name']}: warps per SM")
                check(r["blocks_per_sm"] == min(v for v in r["limits"].values() if v is not None),
                      f"{r['name']}: blocks per SM is the smallest limit")
        else:
            check(r.get("runtime", "absent") is None and "registers" not in r,
                  f"{r['name']}: no runtime facts without a GPU")
    if not runtime:
        check("needs a GPU" in said, f"without a GPU the program says the runtime part needs one: {said.strip()[:200]}")

    # A tuned rung's shape before tuning is one of its candidates; its candidates keep its steps per pass.
    for rung in rungs:
        if rung.get("family") is None:
            continue
        family = [c for c in candidates if c["family"] == rung["family"]]
        check(family, f"{rung['name']}: its family has candidates")
        check(any(c["kernel"] == rung["kernel"] and c["grid"] == rung["grid"] for c in family),
              f"{rung['name']}: its untuned shape is one of its candidates")
        check(all(c["steps_per_pass"] == rung["steps_per_pass"] for c in family), f"{rung['name']}: steps per pass")

    # The listing runs nothing else: combined with a run, one line and exit 2.
    done = subprocess.run([program, "--list-variants", "--ladder"], capture_output=True, text=True)
    check(done.returncode == 2 and "--list-variants" in done.stderr, f"--list-variants --ladder is refused: {done.stderr}")

    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    if not failures:
        print(f"listing ok: {len(rungs)} rungs, {len(candidates)} candidates, runtime part {'listed' if runtime else 'not listed (no GPU)'}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: test_listing.py WAVE_FD")
    sys.exit(main(sys.argv[1]))
