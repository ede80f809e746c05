"""Chapter 03's generated README parts: the results table (beside the book's K80 figures), the
time-per-kernel plot (both from the ladder's shared figure code, reduce_ladder/ladder_figures.py), and
the measured numbers the lesson's prose cites (values), from this chapter's results and from the
ladder's profiler results (chapter 05's profile.sh profiles every rung, these two included).
"""
from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

ladder = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py")))

tables, plots = ladder.results_and_time_plot("reduce_divergence_time.png", "Chapter 03: divergence")

VALUES = ["device", "step_2_24", "step_2_28", "pct_copy_less_2_28", "sum_2_28", "instr_neighbored",
          "instr_less", "instr_ratio", "ld_conflicts_neighbored", "ld_conflicts_less",
          "ld_per_block_neighbored", "ld_per_block_less", "st_conflicts_neighbored", "st_conflicts_less",
          "profile_blocks"]


def values(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return {name: "(no results committed)" for name in VALUES}
    slug = sorted(results)[0]
    doc = results[slug]
    big, huge = ladder.SIZES
    out = {
        "device": doc["device"]["name"],
        "step_2_24": ladder.times(ladder.row(doc, "neighbored_less", big)["step_speedup"]),
        "step_2_28": ladder.times(ladder.row(doc, "neighbored_less", huge)["step_speedup"]),
        "pct_copy_less_2_28": f"{ladder.row(doc, 'neighbored_less', huge)['pct_copy']:.0f} %",
    }
    # The exact sum the benchmark checked at 2^28, written as a power of ten: what a 32-bit int
    # (at most 2.1·10^9) could not hold.
    total = ladder.row(doc, "neighbored", huge)["sum"]
    exponent = len(str(abs(total))) - 1
    out["sum_2_28"] = f"{total / 10**exponent:.1f}·10^{exponent}"

    profile = ladder.load_profile(slug)
    neighbored = ladder.profiled(profile, "neighbored")
    less = ladder.profiled(profile, "neighbored_less")
    if neighbored is None or less is None:
        return out | {name: "(no profile committed)" for name in VALUES if name not in out}
    blocks = ladder.profiled_grid(neighbored)
    out |= {
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
    return out
