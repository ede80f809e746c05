"""Chapter 03: the ladder's results table and time plot (reduce_ladder/ladder_figures.py), and the
numbers its prose cites, from its results and the ladder's profile (chapter 05's profile.sh profiles
every rung, these two included).
"""
from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

ladder = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py")))

tables, plots = ladder.results_and_time_plot("reduce_divergence_time.png", "Chapter 03: divergence",
                                             ["neighbored", "neighbored_less"])


def compute(doc: dict, profile: dict | None, slug: str) -> dict[str, str]:
    huge = ladder.SIZES[1]
    out = ladder.step_values(doc, "neighbored_less") | answer_key_values(doc, profile, slug)
    out["pct_copy_less_2_28"] = f"{ladder.row(doc, 'neighbored_less', huge)['pct_copy']:.0f} %"
    # The exact sum every rung was checked against at 2^28, as a power of ten: what a 32-bit int (at
    # most 2.1·10^9) could not hold.
    total = ladder.row(doc, "neighbored", huge)["sum"]
    exponent = len(str(abs(total))) - 1
    out["sum_2_28"] = f"{total / 10**exponent:.1f}·10^{exponent}"
    neighbored = ladder.profiled(profile, "neighbored")
    less = ladder.profiled(profile, "neighbored_less")
    if neighbored is None or less is None:
        return out
    blocks = ladder.profiled_grid(neighbored)
    return out | {
        "instr_neighbored": f"{neighbored['instructions'] / 1e6:.0f} M",
        "instr_less": f"{less['instructions'] / 1e6:.0f} M",
        "instr_ratio": ladder.times(neighbored["instructions"] / less["instructions"]),
        "ld_conflicts_neighbored": ladder.millions(neighbored["shared_ld_conflicts"]),
        "ld_conflicts_less": ladder.millions(less["shared_ld_conflicts"]),
        "ld_per_block_neighbored": f"{neighbored['shared_ld_conflicts'] / blocks:.0f}",
        "ld_per_block_less": f"{less['shared_ld_conflicts'] / blocks:.0f}",
        "st_conflicts_neighbored": ladder.millions(neighbored["shared_st_conflicts"]),
        "st_conflicts_less": ladder.millions(less["shared_st_conflicts"]),
        "profile_blocks": f"{blocks:,}",
    }


def answer_key_values(doc: dict, profile: dict | None, slug: str) -> dict[str, str]:
    """What instructor/answer_key.md quotes: this chapter's times, chapter 05's `unroll2` against
    `interleaved` (the idea of exercise 03.3 on chapter 04's tree), the profile's counts in full, and
    exercise 03.3's solution and untouched stub as the grader clocked them."""
    big = ladder.SIZES[0]
    out = ladder.key_run_values(doc, ("neighbored", "neighbored_less"))
    unroll = ladder.sibling_results(slug, "05_reduce_unroll")
    if unroll is not None and ladder.row(unroll, "unroll2", big) and ladder.row(unroll, "interleaved", big):
        unroll2, interleaved = ladder.row(unroll, "unroll2", big), ladder.row(unroll, "interleaved", big)
        out |= {"unroll2_ms_2_24": ladder.ms(unroll2["time_ms"]),
                "interleaved_ms_2_24": ladder.ms(interleaved["time_ms"]),
                "unroll2_vs_interleaved": ladder.times(unroll2["time_ms"] / interleaved["time_ms"])}
    for kernel in ("neighbored", "neighbored_less", "interleaved"):
        counted = ladder.profiled(profile, kernel)
        if counted is not None:
            out[f"ld_conflicts_{kernel}_count"] = ladder.count(counted["shared_ld_conflicts"])
    return out | {f"x2_{name}": text for name, text in ladder.graded_values(slug, "03.3").items()}


KEY_VALUES = ["key_runs", "neighbored_ms_2_24", "neighbored_less_ms_2_24", "neighbored_ms_2_28",
              "neighbored_less_ms_2_28", "unroll2_ms_2_24", "interleaved_ms_2_24", "unroll2_vs_interleaved",
              "ld_conflicts_neighbored_count", "ld_conflicts_neighbored_less_count",
              "ld_conflicts_interleaved_count"] + [
    f"x2_{kind}_{what}" for kind in ("solution", "stub") for what in ("ms", "reference_ms", "ratio", "points")] + [
    "x2_stub_source", "x2_stub_where", "x2_zero_line"]

values = ladder.chapter_values(
    ["blog", "device", "step_2_24", "step_2_28", "pct_copy_less_2_28", "sum_2_28", "instr_neighbored", "instr_less",
     "instr_ratio", "ld_conflicts_neighbored", "ld_conflicts_less", "ld_per_block_neighbored",
     "ld_per_block_less", "st_conflicts_neighbored", "st_conflicts_less", "profile_blocks"] + KEY_VALUES, compute)
