"""Chapter 04's generated parts: the results table beside the book's K80 figures and the time plot, from
the ladder's figure code, and the inline numbers of its lesson, from its results and the profile of
the whole ladder (results/<gpu>/05_reduce_unroll_profile.json).
"""
from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

ladder = SimpleNamespace(**runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py")))

tables, plots = ladder.results_and_time_plot("reduce_interleaved_time.png", "Chapter 04: interleaved")


def compute(doc: dict, profile: dict | None, slug: str) -> dict[str, str]:
    out = ladder.step_values(doc, "interleaved")
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


values = ladder.chapter_values(
    ["device", "step_2_24", "step_2_28", "pct_copy_2_28", "ld_conflicts_less", "ld_conflicts", "ld_per_block",
     "instr_less", "instr", "sectors_per_request", "gld_efficiency"], compute)
