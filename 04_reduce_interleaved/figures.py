"""Chapter 04's generated README parts: the results table (beside the book's K80 figures), the
time-per-kernel plot (both from the ladder's shared figure code, reduce_ladder/ladder_figures.py), and
the measured numbers the lesson's prose cites (values), from this chapter's results and from the
ladder's profiler results (chapter 05's profile.sh profiles every rung, this one included).
"""
from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

ladder = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py")))

tables, plots = ladder.results_and_time_plot("reduce_interleaved_time.png", "Chapter 04: interleaved")

VALUES = ["device", "step_2_24", "step_2_28", "pct_copy_2_28", "ld_conflicts_less", "ld_conflicts",
          "ld_per_block", "instr_less", "instr", "sectors_per_request", "gld_efficiency"]


def values(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return {name: "(no results committed)" for name in VALUES}
    slug = sorted(results)[0]
    doc = results[slug]
    big, huge = ladder.SIZES
    out = {
        "device": doc["device"]["name"],
        "step_2_24": ladder.times(ladder.row(doc, "interleaved", big)["step_speedup"]),
        "step_2_28": ladder.times(ladder.row(doc, "interleaved", huge)["step_speedup"]),
        "pct_copy_2_28": f"{ladder.row(doc, 'interleaved', huge)['pct_copy']:.0f} %",
    }
    profile = ladder.load_profile(slug)
    less = ladder.profiled(profile, "neighbored_less")
    interleaved = ladder.profiled(profile, "interleaved")
    if less is None or interleaved is None:
        return out | {name: "(no profile committed)" for name in VALUES if name not in out}
    return out | {
        "ld_conflicts_less": ladder.millions(less["shared_ld_conflicts"]),
        "ld_conflicts": ladder.millions(interleaved["shared_ld_conflicts"]),
        "ld_per_block": f"{interleaved['shared_ld_conflicts'] / ladder.profiled_grid(interleaved):.1f}",
        "instr_less": f"{less['instructions'] / 1e6:.0f} M",
        "instr": f"{interleaved['instructions'] / 1e6:.0f} M",
        "sectors_per_request": f"{interleaved['sectors_per_request']:.2f}",
        "gld_efficiency": f"{interleaved['gld_efficiency_pct']:.0f} %",
    }
