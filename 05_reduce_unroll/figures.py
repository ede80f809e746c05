"""Chapter 05's generated README blocks: the whole ladder (beside the book's K80 figures), the
targets (fastest rung vs CUB, % of copy bandwidth), the Nsight Compute table, and two plots (time per
kernel; bandwidth vs size). Shared code: reduce_ladder/ladder_figures.py.

The profiler table comes from its own results file, results/<gpu>/05_reduce_unroll_profile.json
(written by profile.sh from the ncu CSV), beside the timings in results/<gpu>/05_reduce_unroll.json.
"""
from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

ladder = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py")))

RESULTS = Path(__file__).resolve().parents[1] / "results"
PROFILE = "05_reduce_unroll_profile.json"
TIME_PLOT = "reduce_unroll_time.png"
BANDWIDTH_PLOT = "reduce_unroll_bandwidth.png"
CUB = "cub_device_reduce"
BLOCKS = ["results", "target", "ncu", "plots"]


def target_table(slug: str, doc: dict) -> str:
    copy = doc.get("config", {}).get("copy_gbs", 0)
    out = [f"**{doc.get('device', {}).get('name', slug)}**:\n",
           "| n | fastest rung | time (ms) | CUB (ms) | vs CUB | GB/s | % of copy |", "|---|---|--:|--:|--:|--:|--:|"]
    for n in ladder.SIZES:
        rows = ladder.rows_at(doc, n)
        ours = [r for r in rows if r["kernel"] != CUB]
        cub = [r for r in rows if r["kernel"] == CUB]
        if not ours or not cub:
            continue
        best = min(ours, key=lambda r: r["time_ms"])
        out.append(f"| {ladder.size_label(n)} | `{best['kernel']}` | {best['time_ms']:.4f} | {cub[0]['time_ms']:.4f} | "
                   f"{cub[0]['time_ms'] / best['time_ms']:.3f}x | {best['gbs']:.0f} | {100 * best['gbs'] / copy:.1f} |")
    return "\n".join(out) + "\n"


def fmt(value, digits=1, suffix=""):
    return "n/a" if value is None else f"{value:,.{digits}f}{suffix}"


def load_profile(slug: str) -> dict | None:
    """The profiler results file of one GPU, or None where profile.sh has not run there."""
    path = RESULTS / slug / PROFILE
    return json.loads(path.read_text()) if path.exists() else None


def ncu_table(slug: str, profile: dict | None) -> str:
    ncu = (profile or {}).get("ncu")
    if not ncu:
        return f"*{slug}: no profiler table in the committed results (ncu did not run).*\n"
    out = [f"**{profile.get('device', {}).get('name', slug)}**, n = {ladder.size_label(ncu['n'])}, block {ncu['block']}, "
           f"`{ncu['tool']}`:\n",
           "| kernel | gld eff. % | gst eff. % | sectors/request | branch eff. % | divergent branches | "
           "shared ld conflicts | shared st conflicts | instructions (M) | occupancy % |",
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for k in ncu["kernels"]:
        inst = None if k.get("instructions") is None else k["instructions"] / 1e6
        out.append(f"| `{k['kernel']}` | {fmt(k.get('gld_efficiency_pct'))} | {fmt(k.get('gst_efficiency_pct'))} | "
                   f"{fmt(k.get('sectors_per_request'), 2)} | {fmt(k.get('branch_efficiency_pct'))} | "
                   f"{fmt(k.get('divergent_branches'), 0)} | {fmt(k.get('shared_ld_conflicts'), 0)} | "
                   f"{fmt(k.get('shared_st_conflicts'), 0)} | {fmt(inst, 2)} | {fmt(k.get('achieved_occupancy_pct'))} |")
    return "\n".join(out) + "\n"


def tables(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return ladder.no_results(BLOCKS)
    slugs = sorted(results)
    return {
        "results": ladder.all_tables(results),
        "target": "\n".join(target_table(s, results[s]) for s in slugs),
        "ncu": "\n".join(ncu_table(s, load_profile(s)) for s in slugs),
        "plots": f"\\image html {TIME_PLOT}\n\n\\image html {BANDWIDTH_PLOT}\n",
    }


def plots(results: dict[str, dict], out_dir: Path) -> list[str]:
    if not results:
        return []
    out_dir = Path(out_dir)
    names = ladder.plot_times(results, out_dir, TIME_PLOT, "Chapter 05: the whole ladder")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slug = sorted(results)[0]
    doc = results[slug]
    fig, ax = plt.subplots(figsize=(9, 5), constrained_layout=True)
    kernels = list(dict.fromkeys(r["kernel"] for r in doc["rows"]))
    for kernel in kernels:
        rows = sorted((r for r in doc["rows"] if r["kernel"] == kernel), key=lambda r: r["n"])
        style = "k--" if kernel == CUB else "-o"
        ax.plot([r["n"] for r in rows], [r["gbs"] for r in rows], style, label=kernel, markersize=3)
    copy = doc.get("config", {}).get("copy_gbs")
    if copy:
        ax.axhline(copy, color="grey", linestyle=":", label="copy bandwidth (read + write)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (ints)")
    ax.set_ylabel("GB/s (bytes read / time)")
    ax.set_title(f"Bandwidth vs size — {doc.get('device', {}).get('name', slug)}")
    ax.legend(fontsize=7, ncol=2)
    fig.savefig(out_dir / BANDWIDTH_PLOT, dpi=110)
    plt.close(fig)
    return names + [BANDWIDTH_PLOT]
