"""Chapter 05's generated README blocks: the whole ladder, the blog post's K80 timings in a table of their
own, the targets (one launch vs CUB, judged by the runs' ranges), the run-to-run spread, the Nsight Compute
table (in two parts), and two plots (time per kernel; bandwidth vs size). Shared code:
reduce_ladder/ladder_figures.py.

The profiler table comes from its own results file, results/<gpu>/05_reduce_unroll.profile.json
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
BLOCKS = ["results", "target", "spread", "ncu_memory", "ncu_execution", "plots"]
BLOG_KERNELS = [kernel for kernel in ladder.BLOG_K80]  # the whole of the post's table: every rung it has
# sm_90's limit of resident threads per SM (the CUDA programming guide's table of compute capabilities).
THREADS_PER_SM = 2048
PLOT_CAPTIONS = {
    TIME_PLOT: "Median time of every rung at 2^24 and 2^28 ints, linear bars from zero: compare the bar "
               "lengths; each label gives the rung's speed-up over the first rung.",
    BANDWIDTH_PLOT: "Bytes read per second against the array size, one line per rung, the copy bandwidth "
                    "dotted: see at which size each rung's line approaches the dotted one.",
}


def target_table(slug: str, doc: dict) -> str:
    """Per size: our fastest one-launch rung and CUB, each as median [fastest - slowest run], the ratio of
    the medians, the verdict (ladder.verdict: ahead or behind only when the two ranges lie apart), and our
    fastest rung of any kind with its share of the copy bandwidth. Seven columns."""
    reps = doc.get("config", {}).get("reps", "?")
    out = [f"**{doc.get('device', {}).get('name', slug)}** (`results/{slug}`), {reps} runs per row: median "
           f"[fastest – slowest run], ms. *ahead*: the rung's slowest run beats CUB's fastest; *behind*: CUB's "
           f"slowest beats the rung's fastest; *level*: the ranges overlap.\n",
           "| n | one-launch rung | its runs (ms) | CUB's runs (ms) | CUB / rung, medians | verdict | fastest rung, % of copy |",
           "|---|---|--:|--:|--:|---|---|"]
    for v in ladder.versus_library(doc):
        fastest, single, cub = v["fastest"], v["single"], v["library"]
        out.append(f"| {ladder.size_label(v['n'])} | `{single['kernel']}` | {runs(single)} | {runs(cub)} | "
                   f"{cub['time_ms'] / single['time_ms']:.2f}x | **{v['single_verdict']}** | "
                   f"`{fastest['kernel']}`, {fastest['pct_copy']:.1f} |")
    return "\n".join(out) + "\n"


def runs(row: dict) -> str:
    """A row's median and the range of its runs, as the targets table prints them."""
    return f"{row['time_ms']:.4f} [{row['min_ms']:.4f} – {row['max_ms']:.4f}]"


def spread_table(slug: str, doc: dict) -> str:
    """Per size: how widely repeated runs of one kernel spread (ladder.spread_rows)."""
    reps = doc.get("config", {}).get("reps", "?")
    out = [f"**{doc.get('device', {}).get('name', slug)}** (`results/{slug}`): coefficient of variation "
           f"(standard deviation / mean) of each row's {reps} runs, over the rows of one size.\n",
           "| n | rows | median cv | largest cv | its rung |", "|---|--:|--:|--:|---|"]
    for r in ladder.spread_rows(doc):
        out.append(f"| {ladder.size_label(r['n'])} | {r['rows']} | {100 * r['median_cv']:.1f} % | "
                   f"{100 * r['max_cv']:.1f} % | `{r['widest']}` |")
    return "\n".join(out) + "\n"


def fmt(value, digits=1, suffix=""):
    return "n/a" if value is None else f"{value:,.{digits}f}{suffix}"


def no_branches(k: dict) -> bool:
    """Branch efficiency is uniform branch targets / all branch targets. A kernel with any branch target
    shows a share above 0 or divergent targets above 0; 0 % with 0 divergent means 0 of 0: undefined,
    which ncu prints as 0."""
    return k.get("branch_efficiency_pct") == 0 and k.get("divergent_branches") == 0


def ncu_head(slug: str, profile: dict) -> str:
    ncu = profile["ncu"]
    return (f"**{profile.get('device', {}).get('name', slug)}**, n = {ladder.size_label(ncu['n'])}, block "
            f"{ncu['block']}, `{ncu['tool']}`:\n")


def ncu_memory_table(slug: str, profile: dict | None) -> str:
    """The profiler's view of global memory: load and store efficiency (with the store model), sectors per
    request. Five columns."""
    if not (profile or {}).get("ncu"):
        return f"*{slug}: no profiler table in the committed results (ncu did not run).*\n"
    out = [ncu_head(slug, profile),
           "| kernel | gld eff. % | gst eff. % | gst eff. model % | sectors/request |", "|---|--:|--:|--:|--:|"]
    for k in profile["ncu"]["kernels"]:
        out.append(f"| `{k['kernel']}` | {fmt(k.get('gld_efficiency_pct'))} | {fmt(k.get('gst_efficiency_pct'), 2)} | "
                   f"{store_efficiency_model(k):.2f} | {fmt(k.get('sectors_per_request'), 2)} |")
    return "\n".join(out) + "\n"


def ncu_execution_table(slug: str, profile: dict | None) -> str:
    """The profiler's view of execution: branches, shared-memory bank conflicts, instructions, occupancy.
    Seven columns (chapters 03 and 04 quote its instructions and conflicts)."""
    if not (profile or {}).get("ncu"):
        return f"*{slug}: no profiler table in the committed results (ncu did not run).*\n"
    out = [ncu_head(slug, profile),
           "| kernel | branch eff. % | divergent branches | shared ld conflicts | shared st conflicts | "
           "instructions (M) | occupancy % |",
           "|---|--:|--:|--:|--:|--:|--:|"]
    for k in profile["ncu"]["kernels"]:
        inst = None if k.get("instructions") is None else k["instructions"] / 1e6
        branch = "n/a (0 of 0)" if no_branches(k) else fmt(k.get("branch_efficiency_pct"))
        out.append(f"| `{k['kernel']}` | {branch} | {fmt(k.get('divergent_branches'), 0)} | "
                   f"{fmt(k.get('shared_ld_conflicts'), 0)} | {fmt(k.get('shared_st_conflicts'), 0)} | "
                   f"{fmt(inst, 2)} | {fmt(k.get('achieved_occupancy_pct'))} |")
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
    """The numbers the lesson's prose cites: the run-to-run spread, where one launch stands against CUB
    (by the ranges of the runs, and by the medians), the block waves of the unroll rungs, and what the
    profile says about CUB's grid, the store and branch counters."""
    compared = ladder.versus_library(doc)
    by_verdict = {v: [c["n"] for c in compared if c["single_verdict"] == v] for v in ("ahead", "level", "behind")}
    ratio = lambda c: c["library"]["time_ms"] / c["single"]["time_ms"]  # noqa: E731
    ahead = [ratio(c) for c in compared if c["single_verdict"] == "ahead"]
    medians_faster = [c for c in compared if ratio(c) > 1]
    last = compared[-1]
    fastest, cub = last["fastest"], last["library"]
    launches = "one launch" if fastest["kernel"].startswith("single_pass") else "two launches"
    single_2_24 = min(ladder.one_launch(ladder.rows_at(doc, 1 << 24)), key=lambda r: r["time_ms"])
    out = {
        "device": doc["device"]["name"],
        "ahead_sizes": ladder.size_span(by_verdict["ahead"]),
        "level_sizes": ladder.size_span(by_verdict["level"]),
        "behind_sizes": ladder.size_span(by_verdict["behind"]) if by_verdict["behind"] else "none of the sizes",
        "ahead_range": ratio_span(ahead),
        "medians_faster_sizes": ladder.size_span([c["n"] for c in medians_faster]),
        "medians_faster_range": ratio_span([ratio(c) for c in medians_faster]),
        "medians_ratio_2_24": ladder.times(next(ratio(c) for c in compared if c["n"] == 1 << 24)),
        "sweep_span": ladder.size_span([c["n"] for c in compared]),
        # Our fastest rung's median against CUB's median, size by size (no spread allowance).
        "fastest_slower_sizes": ladder.size_list(slower) if (slower := [c["n"] for c in compared
                                                                         if c["fastest"]["time_ms"] > c["library"]["time_ms"]])
                                else "none",
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
    out |= spread_values(doc) | wave_values(doc)
    # The blog post's last rung, as its own K80 bandwidth (a quoted source, set beside that GPU's data sheet).
    _, blog_ms, _ = ladder.BLOG_K80["unroll8_templated"]
    out["blog_last"] = f"{blog_ms:.3f} ms for 2^26 bytes, about {2**26 / (blog_ms * 1e-3) / 1e9:.0f} GB/s"
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
        "cub_fit": f"{THREADS_PER_SM // cub_block}",
        "cub_waves": waves_text(*divmod(cub_grid, doc["device"]["sm_count"] * (THREADS_PER_SM // cub_block)),
                                doc["device"]["sm_count"] * (THREADS_PER_SM // cub_block)),
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
# (results/<gpu>/02_bandwidth.latency.json).
LATENCY_CHAPTER, LATENCY_KIND = "02_bandwidth", "latency"


def ratio_span(ratios: list[float]) -> str:
    """1.04, 2.20 -> "1.04× to 2.20×"; one ratio -> "2.20×"."""
    if not ratios:
        return "nowhere"
    low, high = f"{min(ratios):.2f}×", f"{max(ratios):.2f}×"
    return low if low == high else f"{low} to {high}"


def spread_values(doc: dict) -> dict[str, str]:
    """The spread as the lesson states it: the sizes at which a row's runs typically spread by 10 % or more
    (median cv), how far, the largest cv of the sweep, and where the spread falls under 1 %."""
    spread = ladder.spread_rows(doc)
    wide = [r for r in spread if r["median_cv"] >= 0.10]
    narrow = [r for r in spread if r["median_cv"] < 0.01]
    widest = max(spread, key=lambda r: r["max_cv"])
    pct = lambda x: f"{100 * x:.0f} %" if x >= 0.01 else f"{100 * x:.1f} %"  # noqa: E731
    span = lambda xs: pct(min(xs)) if pct(min(xs)) == pct(max(xs)) else f"{pct(min(xs))} to {pct(max(xs))}"  # noqa: E731
    return {
        "cv_wide_sizes": ladder.size_span([r["n"] for r in wide]),
        "cv_wide_range": span([r["median_cv"] for r in wide]) if wide else "under 10 %",
        "cv_max": f"{pct(widest['max_cv'])} (`{widest['widest']}` at {ladder.size_label(widest['n'])})",
        "cv_narrow_sizes": ladder.size_span([r["n"] for r in narrow]),
        "cv_narrow_range": span([r["median_cv"] for r in narrow]) if narrow else "nowhere under 1 %",
    }


def wave_shape(doc: dict, kernel: str, n: int) -> dict:
    """How one rung's grid lands on the GPU (the waves model): as many blocks at once as the SMs hold
    (sm_count from the results' device, at most THREADS_PER_SM / block per SM), the grid in full waves of
    that many, and a last wave (the tail) of the rest."""
    r = ladder.row(doc, kernel, n)
    sm_count = doc["device"]["sm_count"]
    per_sm = THREADS_PER_SM // r["block"]
    wave = sm_count * per_sm
    full, tail = divmod(r["grid"], wave)
    return {"kernel": kernel, "n": n, "grid": r["grid"], "block": r["block"], "sm_count": sm_count,
            "per_sm": per_sm, "wave": wave, "full": full, "tail": tail}


# The rungs the waves section and its diagram show: a two-pass unroll rung (a grid that grows with n) and
# the persistent rung (a grid of one wave, from the occupancy API), both at the lesson's first size.
WAVE_RUNGS = ("unroll8", "int4_grid_stride")


def waves_text(full: int, tail: int, wave: int) -> str:
    """7, 400, 528 -> "7 full waves and a tail of 400 blocks (76 % of a wave)"."""
    return f"{full} full wave{'s' if full != 1 else ''}" + (
        f" and a tail of {tail:,} blocks ({100 * tail / wave:.0f} % of a wave)" if tail else ", no tail")


def wave_values(doc: dict) -> dict[str, str]:
    big, huge = ladder.SIZES
    unroll, persistent = (wave_shape(doc, k, big) for k in WAVE_RUNGS)
    unroll_huge = wave_shape(doc, WAVE_RUNGS[0], huge)
    waves = lambda w: waves_text(w["full"], w["tail"], w["wave"])  # noqa: E731
    return {
        "wave_per_sm": f"{unroll['per_sm']}",
        "wave_size": f"{unroll['sm_count']} × {unroll['per_sm']} = {unroll['wave']:,}",
        "wave_unroll_grid": f"{unroll['grid']:,}",
        "wave_unroll": waves(unroll),
        "wave_unroll_idle": f"{unroll['wave'] - unroll['tail']:,}" if unroll["tail"] else "0",
        "wave_unroll_huge_grid": f"{unroll_huge['grid']:,}",
        "wave_unroll_huge": waves(unroll_huge),
        "wave_persistent_grid": f"{persistent['grid']:,}",
        "wave_persistent": waves(persistent),
    }


def dram_latency_ns(slug: str) -> float | None:
    """The latency of one DRAM load on this GPU as chapter 02 defines it (its smallest footprint at least four
    times the L2), or None where memory_latency has not run there."""
    doc = ladder.figures_lib.load_sibling(slug, LATENCY_CHAPTER, LATENCY_KIND)
    if doc is None:
        return None
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
    timed = ladder.stub_timing(slug, "05.3")  # the grader's clock on the untouched stub, where committed
    if timed is not None:
        # What Little's law then says the loads waited: the stub's bytes in flight over its bandwidth
        # (2^28 ints read once per repetition; the grader's time is in seconds per repetition).
        bandwidth = huge * 4 / timed["time"]
        loaded_ns = in_flight / bandwidth * 1e9
        out |= {"stub_ratio": ladder.times(timed["ratio"]), "stub_source": f"`results/{slug}/grading/{timed['source']}`",
                "stub_ms": ladder.seconds_as_ms(timed["time"]), "stub_loaded_ns": f"{loaded_ns:.0f} ns",
                "stub_loaded_vs_unloaded": ladder.times(loaded_ns / latency_ns)}
        if timed["points"] is not None:
            out["stub_points"] = ladder.stub_points(timed["points"], timed["max_points"] or points)
    return out | {f"single_pass_{name}": text for name, text in ladder.graded_values(slug, "05.3").items()}


KEY_VALUES = ["key_runs", "first_half", "half_pct_2_24", "before_half_2_24", "half_pct_2_28", "before_half_2_28",
              "best_pct_2_24", "best_2_24", "best_pct_2_28", "best_2_28", "beyond_copy", "best_2_24_us",
              "unroll8_ms_2_24", "unroll8_last_warp_ms_2_24", "last_warp_saves_2_24", "unroll8_ms_2_28",
              "unroll8_last_warp_ms_2_28", "last_warp_saves_2_28", "unroll8_pct_2_24", "unroll8_pct_2_28",
              "single_pass_x8_ms_2_24", "cub_ms_2_24", "single_pass_x8_vs_cub_2_24", "single_pass_x8_ms_2_28",
              "cub_ms_2_28", "single_pass_x8_vs_cub_2_28", "dram_ns", "little_bytes", "little_threads_16",
              "little_threads_128", "resident_threads", "stub_in_flight", "stub_share", "stub_ratio",
              "stub_points", "stub_source", "stub_ms", "stub_loaded_ns", "stub_loaded_vs_unloaded",
              "single_pass_stub_where", "single_pass_zero_line", "single_pass_solution_ms",
              "single_pass_solution_reference_ms", "single_pass_solution_ratio", "single_pass_solution_points"]

values = ladder.chapter_values(
    ["blog", "device", "ahead_sizes", "level_sizes", "behind_sizes", "ahead_range", "sweep_span", "fastest_slower_sizes",
     "medians_faster_sizes", "medians_faster_range", "medians_ratio_2_24", "cub_waves", "blog_last",
     "cv_wide_sizes", "cv_wide_range", "cv_max", "cv_narrow_sizes", "cv_narrow_range",
     "wave_per_sm", "wave_size", "wave_unroll_grid", "wave_unroll", "wave_unroll_idle", "wave_unroll_huge_grid",
     "wave_unroll_huge", "wave_persistent_grid", "wave_persistent",
     "fastest_largest", "largest",
     "largest_margin", "largest_cub_spread", "single_2_24_us", "unroll8_pct_largest", "copy_tbs", "l2_mib",
     "cub_grid", "cub_block", "cub_per_sm", "sm_count", "no_branch_kernels", "sp_gst_formula", "sp_gst_model",
     "sp_gst", "cub_sectors", "cub_fit", "unroll_sectors", "gst_most"] + KEY_VALUES, compute)


def tables(results: dict[str, dict]) -> dict[str, str]:
    blog = {"blog_k80": ladder.blog_table(BLOG_KERNELS)}  # a quoted source: there with or without our results
    if not results:
        return ladder.no_results(BLOCKS) | blog
    slugs = sorted(results)
    return blog | {
        "results": ladder.all_tables(results),
        "target": "\n".join(target_table(s, results[s]) for s in slugs),
        "spread": "\n".join(spread_table(s, results[s]) for s in slugs),
        "ncu_memory": "\n".join(ncu_memory_table(s, ladder.load_profile(s)) for s in slugs),
        "ncu_execution": "\n".join(ncu_execution_table(s, ladder.load_profile(s)) for s in slugs),
        "plots": "\n".join(f'\\image html {name} "{caption}"\n' for name, caption in PLOT_CAPTIONS.items()),
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
