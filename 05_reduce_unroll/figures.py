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

TIME_PLOT = "reduce_unroll_time.png"
BANDWIDTH_PLOT = "reduce_unroll_bandwidth.png"
CUB = ladder.LIBRARY
BLOCKS = ["results", "target", "ncu", "plots"]


def target_table(slug: str, doc: dict) -> str:
    """Per size: our fastest rung, our fastest one-launch rung, and CUB, with the verdict of the
    one-launch rung against CUB (ladder.verdict: a gap inside the run-to-run spread is "level")."""
    reps = doc.get("config", {}).get("reps", "?")
    out = [f"**{doc.get('device', {}).get('name', slug)}** (`results/{slug}`), median of {reps} runs; CUB's "
           f"fastest run in brackets. *ahead*: the rung's median beats CUB's fastest run; *behind*: CUB's "
           f"median beats the rung's fastest run; *level*: neither.\n",
           "| n | fastest rung | ms | % of copy | fastest one-launch rung | ms | CUB ms | one launch vs CUB |",
           "|---|---|--:|--:|---|--:|--:|---|"]
    for v in ladder.versus_library(doc):
        fastest, single, cub = v["fastest"], v["single"], v["library"]
        out.append(f"| {ladder.size_label(v['n'])} | `{fastest['kernel']}` | {fastest['time_ms']:.4f} | "
                   f"{fastest['pct_copy']:.1f} | `{single['kernel']}` | {single['time_ms']:.4f} | "
                   f"{cub['time_ms']:.4f} ({cub['min_ms']:.4f}) | {cub['time_ms'] / single['time_ms']:.2f}x, "
                   f"**{v['single_verdict']}** |")
    return "\n".join(out) + "\n"


def fmt(value, digits=1, suffix=""):
    return "n/a" if value is None else f"{value:,.{digits}f}{suffix}"


def no_branches(k: dict) -> bool:
    """Branch efficiency is uniform branch targets / all branch targets. A kernel with any branch target
    shows a share above 0 or divergent targets above 0; 0 % with 0 divergent means 0 of 0: undefined,
    which ncu prints as 0."""
    return k.get("branch_efficiency_pct") == 0 and k.get("divergent_branches") == 0


def ncu_table(slug: str, profile: dict | None) -> str:
    ncu = (profile or {}).get("ncu")
    if not ncu:
        return f"*{slug}: no profiler table in the committed results (ncu did not run).*\n"
    out = [f"**{profile.get('device', {}).get('name', slug)}**, n = {ladder.size_label(ncu['n'])}, block {ncu['block']}, "
           f"`{ncu['tool']}`:\n",
           "| kernel | gld eff. % | gst eff. % | gst eff. model % | sectors/request | branch eff. % | "
           "divergent branches | shared ld conflicts | shared st conflicts | instructions (M) | occupancy % |",
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for k in ncu["kernels"]:
        inst = None if k.get("instructions") is None else k["instructions"] / 1e6
        branch = "n/a (0 of 0)" if no_branches(k) else fmt(k.get("branch_efficiency_pct"))
        out.append(f"| `{k['kernel']}` | {fmt(k.get('gld_efficiency_pct'))} | {fmt(k.get('gst_efficiency_pct'), 2)} | "
                   f"{store_efficiency_model(k):.2f} | {fmt(k.get('sectors_per_request'), 2)} | {branch} | "
                   f"{fmt(k.get('divergent_branches'), 0)} | {fmt(k.get('shared_ld_conflicts'), 0)} | "
                   f"{fmt(k.get('shared_st_conflicts'), 0)} | {fmt(inst, 2)} | {fmt(k.get('achieved_occupancy_pct'))} |")
    return "\n".join(out) + "\n"


def store_efficiency_model(k: dict) -> float:
    """What the store-efficiency counter should read: useful bytes / (32-byte sectors · 32). Every block
    stores one 8-byte partial from one thread (8 of a sector's 32 bytes); a single-pass rung's last
    block also stores the 8-byte result and resets the 4-byte ticket."""
    grid = ladder.profiled_grid(k)
    if k["kernel"].startswith("single_pass"):
        return 100.0 * (grid * 8 + 8 + 4) / ((grid + 2) * 32)
    return 100.0 * 8 / 32


def compute(doc: dict, profile: dict | None, slug: str) -> dict[str, str]:
    """The numbers the lesson's prose cites: where one launch stands against CUB, the targets, and what
    the profile says about CUB's grid, the store and branch counters."""
    compared = ladder.versus_library(doc)
    by_verdict = {v: [c["n"] for c in compared if c["single_verdict"] == v] for v in ("ahead", "level", "behind")}
    ratios = [c["library"]["time_ms"] / c["single"]["time_ms"] for c in compared if c["single_verdict"] == "ahead"]
    last = compared[-1]
    fastest, cub = last["fastest"], last["library"]
    launches = "one launch" if fastest["kernel"].startswith("single_pass") else "two launches"
    single_2_24 = min(ladder.one_launch(ladder.rows_at(doc, 1 << 24)), key=lambda r: r["time_ms"])
    out = {
        "device": doc["device"]["name"],
        "ahead_sizes": ladder.size_span(by_verdict["ahead"]),
        "level_sizes": ladder.size_span(by_verdict["level"]),
        "behind_sizes": ladder.size_span(by_verdict["behind"]),
        "ahead_range": f"{min(ratios):.2f}× to {max(ratios):.2f}×" if ratios else "nowhere",
        "sweep_span": ladder.size_span([c["n"] for c in compared]),
        # Our fastest rung's median against CUB's median, size by size (no spread allowance).
        "fastest_slower_sizes": ladder.size_list([c["n"] for c in compared
                                                  if c["fastest"]["time_ms"] > c["library"]["time_ms"]]),
        "largest": ladder.size_label(last["n"]),
        "fastest_largest": f"`{fastest['kernel']}` ({launches})",
        "largest_margin": f"{100 * abs(cub['time_ms'] / fastest['time_ms'] - 1):.1f} %",
        "largest_cub_spread": f"{100 * (cub['max_ms'] - cub['min_ms']) / cub['time_ms']:.1f} %",
        "single_2_24_us": f"{1000 * single_2_24['time_ms']:.0f} µs",
        "unroll8_pct_largest": f"{ladder.row(doc, 'unroll8', last['n'])['pct_copy']:.0f} %",
        "copy_tbs": f"{doc['config']['copy_gbs'] / 1000:.1f} TB/s",
        "l2_mib": f"{doc['device']['l2_bytes'] / 2**20:.0f} MiB",
        "sm_count": f"{doc['device']['sm_count']}",
    }
    out |= answer_key_values(doc, slug)
    kernels = ((profile or {}).get("ncu") or {}).get("kernels")
    cub_k = ladder.profiled(profile, CUB)
    single = ladder.profiled(profile, "single_pass_x4")
    if not kernels or cub_k is None or single is None:
        return out
    cub_grid = ladder.profiled_grid(cub_k)
    cub_block = int(str(cub_k["block"]).strip("()").split(",")[0])
    sp_grid = ladder.profiled_grid(single)
    unroll = {f"{k['sectors_per_request']:.2f}" for k in kernels if k["kernel"].startswith("unroll")}
    stores = [f"{k['gst_efficiency_pct']:.0f} %" for k in kernels]
    return out | {
        "cub_grid": f"{cub_grid:,}",
        "cub_block": f"{cub_block}",
        "cub_fit": f"{2048 // cub_block}",  # 2048 resident threads per SM: sm_90's limit
        "cub_per_sm": f"{cub_grid / doc['device']['sm_count']:.0f}",
        "cub_sectors": f"{cub_k['sectors_per_request']:.2f}",
        "unroll_sectors": " or ".join(sorted(unroll)),
        "gst_most": max(set(stores), key=stores.count),  # what most rungs read
        "no_branch_kernels": ", ".join(f"`{k['kernel']}`" for k in kernels if no_branches(k)) or "none",
        "sp_gst_formula": f"({sp_grid}·8 + 8 + 4) / (({sp_grid} + 2)·32)",
        "sp_gst_model": f"{store_efficiency_model(single):.2f} %",
        "sp_gst": f"{single['gst_efficiency_pct']:.2f} %",
    }


# Little's law (Question 3 and its answer): the DRAM latency chapter 02's memory_latency measured on the same GPU
# (results/<gpu>/02_bandwidth_latency.json), and sm_90's limit of resident threads per SM.
LATENCY_RESULTS = "02_bandwidth_latency.json"
THREADS_PER_SM = 2048


def dram_latency_ns(slug: str) -> float | None:
    """The latency of one DRAM load on this GPU as chapter 02 defines it (its smallest footprint at least four
    times the L2), or None where memory_latency has not run there."""
    path = ladder.RESULTS / slug / LATENCY_RESULTS
    if not path.exists():
        return None
    doc = json.loads(path.read_text())
    beyond = [r for r in doc["rows"] if r["bytes"] >= 4 * doc["device"]["l2_bytes"]]
    return min(beyond, key=lambda r: r["bytes"])["ns_per_load"] if beyond else None


def pct(row: dict) -> str:
    return f"{row['pct_copy']:.1f} %"


def exercise_points(exercise: str) -> int | None:
    """An exercise's points, as exercises.json gives them; None where it does not list the exercise (a
    handout of other exercises, which has no answer key to fill either)."""
    listed = json.loads((Path(__file__).resolve().parent / "exercises.json").read_text())
    return next((e["points"] for e in listed if e["id"] == exercise), None)


def answer_key_values(doc: dict, slug: str) -> dict[str, str]:
    """What instructor/answer_key.md quotes: the rungs past half the copy bandwidth, the best rung of each
    size, what the warp tail saves, Little's law with the measured copy bandwidth, 05.3 as the grader
    timed it, and what the 05.3 stub should cost by Little's law."""
    config = doc.get("config", {})
    out = {"key_runs": f"{doc['device']['name']}, block {config.get('block', '?')}, median of "
                       f"{config.get('reps', '?')} runs, measured copy bandwidth {config.get('copy_gbs', 0):.0f} GB/s"}
    first_half = {}
    for n in ladder.SIZES:
        label = ladder.size_label(n).replace("^", "_")
        rows = [r for r in ladder.rows_at(doc, n) if r["kernel"] != CUB]
        past = next(i for i, r in enumerate(rows) if r["pct_copy"] >= 50)
        first_half[n] = rows[past]["kernel"]
        best = min(rows, key=lambda r: r["time_ms"])
        out |= {f"half_pct_{label}": pct(rows[past]),
                f"before_half_{label}": f"`{rows[past - 1]['kernel']}`: {pct(rows[past - 1])}",
                f"best_pct_{label}": pct(best),
                f"best_{label}": f"`{best['kernel']}`, {ladder.ms(best['time_ms'])}"}
        for kernel in ("unroll8", "unroll8_last_warp"):
            out[f"{kernel}_ms_{label}"] = ladder.ms(ladder.row(doc, kernel, n)["time_ms"])
        out[f"unroll8_pct_{label}"] = pct(ladder.row(doc, "unroll8", n))
        saved = 1 - ladder.row(doc, "unroll8_last_warp", n)["time_ms"] / ladder.row(doc, "unroll8", n)["time_ms"]
        out[f"last_warp_saves_{label}"] = f"{100 * saved:.0f} %"
        single, cub = ladder.row(doc, "single_pass_x8", n), ladder.row(doc, CUB, n)
        out |= {f"single_pass_x8_ms_{label}": ladder.ms(single["time_ms"]), f"cub_ms_{label}": ladder.ms(cub["time_ms"]),
                f"single_pass_x8_vs_cub_{label}": ladder.times(single["time_ms"] / cub["time_ms"])}
    big, huge = ladder.SIZES
    names = {first_half[big], first_half[huge]}
    out["first_half"] = (f"`{first_half[big]}` is the first rung past 50 % of the copy bandwidth at both sizes"
                         if len(names) == 1 else f"The first rung past 50 % of the copy bandwidth is `{first_half[big]}` "
                         f"at 2^24 and `{first_half[huge]}` at 2^28")
    best_huge = min((r for r in ladder.rows_at(doc, huge) if r["kernel"] != CUB), key=lambda r: r["time_ms"])
    out["beyond_copy"] = ("above 100 % because the copy counts read + write traffic, which costs a little more "
                          "than reading alone" if best_huge["pct_copy"] > 100 else "near 100 %, the copy's speed")
    best_big = min((r for r in ladder.rows_at(doc, big) if r["kernel"] != CUB), key=lambda r: r["time_ms"])
    out["best_2_24_us"] = f"{1000 * best_big['time_ms']:.0f} µs"
    # Little's law: bytes in flight = bandwidth x latency.
    latency_ns = dram_latency_ns(slug)
    if latency_ns is None:
        return out  # its names then read "(not in the committed results)"
    needed = config["copy_gbs"] * 1e9 * latency_ns * 1e-9
    sm_count = doc["device"]["sm_count"]
    out |= {"dram_ns": f"{latency_ns:.0f} ns",
            "little_bytes": f"{needed / 1e6:.2f} MB",
            "little_threads_16": f"{round(needed / 16, -2):,.0f}",
            "little_threads_128": f"{round(needed / 128, -2):,.0f}",
            "resident_threads": f"{sm_count} SMs × {THREADS_PER_SM} = {sm_count * THREADS_PER_SM:,}"}
    # The 05.3 stub: one 4-byte load in flight per thread of single_pass_x8's grid at 2^28.
    grid = ladder.row(doc, "single_pass_x8", huge)
    in_flight = grid["grid"] * grid["block"] * 4
    points = exercise_points("05.3")
    out |= {"stub_in_flight": f"{in_flight / 1e6:.1f} MB", "stub_share": f"{100 * in_flight / needed:.0f} %"}
    timed = ladder.stub_timing(slug, "05.3")  # the handout check's timing of the stub, where committed
    if timed is not None:
        # What Little's law then says the loads waited: the stub's bytes in flight over its bandwidth.
        bandwidth = huge * 4 / (timed["time"] * 1e-3)
        out |= {"stub_ratio": ladder.times(timed["ratio"]), "stub_source": f"`results/{slug}/grading/{timed['source']}`",
                "stub_loaded_ns": f"{in_flight / bandwidth * 1e9:.0f} ns"}
        if points is not None and timed["points"] is not None:
            out["stub_points"] = f"{timed['points']} of {points} points"
    return out | {f"single_pass_{name}": text for name, text in ladder.graded_values(slug, "05.3").items()}


KEY_VALUES = ["key_runs", "first_half", "half_pct_2_24", "before_half_2_24", "half_pct_2_28", "before_half_2_28",
              "best_pct_2_24", "best_2_24", "best_pct_2_28", "best_2_28", "beyond_copy", "best_2_24_us",
              "unroll8_ms_2_24", "unroll8_last_warp_ms_2_24", "last_warp_saves_2_24", "unroll8_ms_2_28",
              "unroll8_last_warp_ms_2_28", "last_warp_saves_2_28", "unroll8_pct_2_24", "unroll8_pct_2_28",
              "single_pass_x8_ms_2_24", "cub_ms_2_24", "single_pass_x8_vs_cub_2_24", "single_pass_x8_ms_2_28",
              "cub_ms_2_28", "single_pass_x8_vs_cub_2_28", "dram_ns", "little_bytes", "little_threads_16",
              "little_threads_128", "resident_threads", "stub_in_flight", "stub_share", "stub_ratio",
              "stub_points", "stub_source", "stub_loaded_ns", "single_pass_solution_ms", "single_pass_solution_reference_ms",
              "single_pass_solution_ratio", "single_pass_solution_points"]

values = ladder.chapter_values(
    ["device", "ahead_sizes", "level_sizes", "behind_sizes", "ahead_range", "sweep_span", "fastest_slower_sizes",
     "fastest_largest", "largest",
     "largest_margin", "largest_cub_spread", "single_2_24_us", "unroll8_pct_largest", "copy_tbs", "l2_mib",
     "cub_grid", "cub_block", "cub_per_sm", "sm_count", "no_branch_kernels", "sp_gst_formula", "sp_gst_model",
     "sp_gst", "cub_sectors", "cub_fit", "unroll_sectors", "gst_most"] + KEY_VALUES, compute)


def tables(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return ladder.no_results(BLOCKS)
    slugs = sorted(results)
    return {
        "results": ladder.all_tables(results),
        "target": "\n".join(target_table(s, results[s]) for s in slugs),
        "ncu": "\n".join(ncu_table(s, ladder.load_profile(s)) for s in slugs),
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
    fig, ax = plt.subplots(figsize=(11, 5.5), constrained_layout=True)
    kernels = list(dict.fromkeys(r["kernel"] for r in doc["rows"]))
    # Fifteen lines: a colour each (tab20 has 20) and a marker per part of the ladder (the book's tree
    # rungs, its unroll rungs, past the book), so that no two lines look alike.
    colours = plt.get_cmap("tab20").colors
    for i, kernel in enumerate(kernels):
        rows = sorted((r for r in doc["rows"] if r["kernel"] == kernel), key=lambda r: r["n"])
        if kernel == CUB:
            style = dict(color="black", linestyle="--", marker="s")
        else:
            style = dict(color=colours[(2 * i) % 20 + (2 * i) // 20], marker="o^Dv"[min(3, i // 4)])
        ax.plot([r["n"] for r in rows], [r["gbs"] for r in rows], label=kernel, markersize=4, linewidth=1.2, **style)
    copy = doc.get("config", {}).get("copy_gbs")
    if copy:
        ax.axhline(copy, color="grey", linestyle=":", label="copy bandwidth (read + write)")
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("n (ints)")
    ax.set_ylabel("GB/s (bytes read / median time)")
    ax.set_title(f"Bandwidth vs size — {doc.get('device', {}).get('name', slug)}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # outside: the lines stay visible
    fig.savefig(out_dir / BANDWIDTH_PLOT, dpi=110)
    plt.close(fig)
    return names + [BANDWIDTH_PLOT]
