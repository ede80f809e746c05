#!/usr/bin/env python3
"""Turns profile.sh's Nsight Compute CSV into the chapter's profiler results file.

    python3 ncu_table.py CSV --run RUN_JSON --out PROFILE_JSON   # writes PROFILE_JSON
    python3 ncu_table.py CSV --names a,b,c                        # prints the table (names in launch order)
    python3 ncu_table.py --metrics                                # the metric list profile.sh gives ncu

profile.sh runs the program with --reps 1 --warmup 0 --json RUN_JSON under `ncu -k regex:...`, which
keeps only the rungs' main kernels (not the small finishing launch, not CUB's single-tile pass): each
rung then launches its kernel twice (the checked run, the timed run), in table order. Launch 2i+1 is
rung i. RUN_JSON, the profiled run's own results file, gives the rung order, n, block and the device,
so the profile file stands on its own: results/<gpu>/05_reduce_unroll.profile.json, read by figures.py.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

# metric -> (column name in the results, meaning)
METRICS = {
    "gpu__time_duration.sum": ("duration_ns", "kernel duration under the profiler"),
    "dram__bytes_read.sum": ("dram_bytes_read", "bytes read from DRAM"),
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct": ("gld_efficiency_pct", "global load efficiency"),
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct": ("gst_efficiency_pct", "global store efficiency"),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ("ld_sectors", "global load sectors"),
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ("ld_requests", "global load requests"),
    "smsp__sass_average_branch_targets_threads_uniform.pct": ("branch_efficiency_pct", "branch efficiency"),
    "smsp__sass_branch_targets_threads_divergent.sum": ("divergent_branches", "divergent branch targets"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": ("shared_ld_conflicts", "shared load bank conflicts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": ("shared_st_conflicts", "shared store bank conflicts"),
    "smsp__inst_executed.sum": ("instructions", "warp instructions executed"),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("achieved_occupancy_pct", "achieved occupancy"),
}


def number(text: str):
    text = (text or "").replace(",", "").strip()
    if text in ("", "n/a", "N/A"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def parse(csv_path: Path, names: list[str]) -> list[dict]:
    lines = csv_path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))  # skip ncu's "==PROF==" lines
    reader = csv.DictReader(lines[start:])
    launches = [row for row in reader if (row.get("ID") or "").strip().isdigit()]  # drops the units row
    if len(launches) != 2 * len(names):
        sys.exit(f"ncu_table: {len(launches)} profiled launches, expected {2 * len(names)} (2 per rung)")
    table = []
    for i, name in enumerate(names):
        row = launches[2 * i + 1]
        entry = {"kernel": name, "ncu_kernel_name": row.get("Kernel Name", ""), "grid": row.get("Grid Size", ""),
                 "block": row.get("Block Size", "")}
        for metric, (column, _) in METRICS.items():
            entry[column] = number(row.get(metric, ""))
        if entry["ld_sectors"] and entry["ld_requests"]:
            entry["sectors_per_request"] = entry["ld_sectors"] / entry["ld_requests"]
        table.append(entry)
    return table


def profile_document(run: dict, table: list[dict]) -> dict:
    """The profile results file: the profiled run's device and provenance, and the counters per rung."""
    config = run.get("config") or {}
    return {
        "schema": "cuda-lessons/profile/v1",
        "chapter": run.get("chapter"),
        **{key: run.get(key) for key in ("device", "toolkit", "driver", "date", "commit", "command_line")},
        "ncu": {"n": config["sizes"][0], "block": config["block"], "tool": "ncu --clock-control none",
                "metrics": {m: {"column": c, "meaning": d} for m, (c, d) in METRICS.items()},
                "kernels": table},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path, nargs="?", help="ncu --csv --page raw output")
    ap.add_argument("--run", type=Path, help="the profiled run's results file (rung order, n, block, device)")
    ap.add_argument("--out", type=Path, help="with --run: the profile results file to write")
    ap.add_argument("--names", help="comma-separated rung names in launch order (instead of --run)")
    ap.add_argument("--metrics", action="store_true", help="print the metrics for ncu --metrics and exit")
    args = ap.parse_args()
    if args.metrics:
        print(",".join(METRICS))
        return
    if not args.csv or bool(args.run) == bool(args.names) or bool(args.out) != bool(args.run):
        ap.error("give CSV and either --run RUN_JSON --out PROFILE_JSON or --names")
    if args.run:
        run = json.loads(args.run.read_text())
        sizes = (run.get("config") or {}).get("sizes") or []
        if len(sizes) != 1:
            sys.exit(f"ncu_table: the profiled run must have exactly one size, not {sizes}")
        names = [r["kernel"] for r in run["rows"] if r["n"] == sizes[0]]
    else:
        names = args.names.split(",")
    table = parse(args.csv, names)
    for t in table:
        print(f'{t["kernel"]:22} gld {t["gld_efficiency_pct"]}%  branch {t["branch_efficiency_pct"]}%  '
              f'divergent {t["divergent_branches"]}  conflicts ld/st {t["shared_ld_conflicts"]}/{t["shared_st_conflicts"]}')
    if args.run:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".tmp")  # written whole, then renamed: never a torn results file
        tmp.write_text(json.dumps(profile_document(run, table), indent=2) + "\n")
        tmp.replace(args.out)


if __name__ == "__main__":
    main()
