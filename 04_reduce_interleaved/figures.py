"""Chapter 04's generated parts: the results table beside the book's K80 figures and the time plot, from
the ladder's figure code, and the inline numbers of its lesson, from its results and the profile of
the whole ladder (results/<gpu>/05_reduce_unroll.profile.json).
"""
from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

ladder = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py")))

tables, plots = ladder.results_and_time_plot("reduce_interleaved_time.png", "Chapter 04: interleaved",
                                             ["neighbored", "neighbored_less", "interleaved"])


def compute(doc: dict, profile: dict | None, slug: str) -> dict[str, str]:
    out = ladder.step_values(doc, "interleaved") | answer_key_values(doc, profile, slug)
    out["pct_copy_2_28"] = f"{ladder.row(doc, 'interleaved', ladder.SIZES[1])['pct_copy']:.0f} %"
    less = ladder.profiled(profile, "neighbored_less")
    interleaved = ladder.profiled(profile, "interleaved")
    if less is None or interleaved is None:
        return out
    return out | {
        "ld_conflicts_less": ladder.millions(less["shared_ld_conflicts"]),
        "ld_conflicts": ladder.millions(interleaved["shared_ld_conflicts"]),
        "ld_per_block": f"{interleaved['shared_ld_conflicts'] / ladder.profiled_grid(interleaved):.1f}",
        "instr_less": f"{less['instructions'] / 1e6:.0f} M",
        "instr": f"{interleaved['instructions'] / 1e6:.0f} M",
        "sectors_per_request": f"{interleaved['sectors_per_request']:.2f}",
        "gld_efficiency": f"{interleaved['gld_efficiency_pct']:.0f} %",
    }


def neighbours(rows: list[dict], time_ms: float) -> str:
    """Where a time falls among the rungs of one size: the nearest faster and nearest slower rung."""
    faster = max((r for r in rows if r["time_ms"] <= time_ms), key=lambda r: r["time_ms"], default=None)
    slower = min((r for r in rows if r["time_ms"] > time_ms), key=lambda r: r["time_ms"], default=None)
    quote = lambda r: f"`{r['kernel']}` ({ladder.ms(r['time_ms'])})"  # noqa: E731
    if faster and slower:
        return f"between {quote(faster)} and {quote(slower)}"
    if slower:
        return f"faster than every rung, {quote(slower)} the nearest"
    return f"slower than every rung, {quote(faster)} the nearest"


def answer_key_values(doc: dict, profile: dict | None, slug: str) -> dict[str, str]:
    """What instructor/answer_key.md quotes: this chapter's times, chapter 05's rungs at 2^24 and 2^28,
    the profile's branch counters, and exercise 04.3's solution and untouched stub as the grader clocked them."""
    big, huge = ladder.SIZES
    out = ladder.key_run_values(doc, ("neighbored_less", "interleaved"))
    out |= {f"grid_stride_{name}": text for name, text in ladder.graded_values(slug, "04.3").items()}
    unroll = ladder.sibling_results(slug, "05_reduce_unroll")
    if unroll is not None and all(ladder.row(unroll, k, n) for k in ("unroll2", "interleaved") for n in (big, huge)):
        for n in (big, huge):
            label = ladder.size_label(n).replace("^", "_")
            unroll2, interleaved = ladder.row(unroll, "unroll2", n), ladder.row(unroll, "interleaved", n)
            out |= {f"unroll2_ms_{label}": ladder.ms(unroll2["time_ms"]),
                    f"ch05_interleaved_ms_{label}": ladder.ms(interleaved["time_ms"]),
                    f"unroll2_step_{label}": ladder.times(interleaved["time_ms"] / unroll2["time_ms"])}
        walk = ladder.row(unroll, "int4_grid_stride", big)
        if walk is not None:
            out["int4_grid_stride_ms_2_24"] = ladder.ms(walk["time_ms"])
        graded = ladder.grading_perf(slug, "04.3")
        if graded is not None:
            # the grader's time is in seconds per repetition; the rungs' in ms
            out["grid_stride_among_ch05"] = neighbours(ladder.rows_at(unroll, big), graded["time"] * 1e3)
    counted = {k: ladder.profiled(profile, k) for k in ("neighbored", "neighbored_less", "interleaved")}
    if all(counted.values()):
        interleaved = counted["interleaved"]
        blocks = ladder.profiled_grid(interleaved)
        less = counted["neighbored_less"]["divergent_branches"]
        out |= {"branch_efficiency": f"{interleaved['branch_efficiency_pct']:.1f} %",
                "divergent": ladder.count(interleaved["divergent_branches"]),
                "divergent_model": f"{blocks:,} blocks × 5 steps = {5 * blocks:,}",
                "divergent_vs_less": "the same as `neighbored_less`" if less == interleaved["divergent_branches"]
                else f"against {ladder.count(less)} for `neighbored_less`",
                "divergent_neighbored": ladder.count(counted["neighbored"]["divergent_branches"])}
    return out


KEY_VALUES = ["key_runs", "neighbored_less_ms_2_24", "interleaved_ms_2_24", "neighbored_less_ms_2_28",
              "interleaved_ms_2_28", "unroll2_ms_2_24", "ch05_interleaved_ms_2_24", "unroll2_step_2_24",
              "unroll2_ms_2_28", "ch05_interleaved_ms_2_28", "unroll2_step_2_28", "int4_grid_stride_ms_2_24",
              "grid_stride_among_ch05", "branch_efficiency", "divergent", "divergent_model", "divergent_vs_less",
              "divergent_neighbored"] + [
    f"grid_stride_{kind}_{what}" for kind in ("solution", "stub") for what in ("ms", "reference_ms", "ratio", "points")] + [
    "grid_stride_stub_source", "grid_stride_stub_where", "grid_stride_zero_line"]

values = ladder.chapter_values(
    ["blog", "device", "step_2_24", "step_2_28", "pct_copy_2_28", "ld_conflicts_less", "ld_conflicts", "ld_per_block",
     "instr_less", "instr", "sectors_per_request", "gld_efficiency"] + KEY_VALUES, compute)
