"""Chapter 03's generated README blocks: the results table (beside the book's K80 figures) and the
time-per-kernel plot. See ladder_figures.py for the shared code."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("ladder_figures_03", Path(__file__).with_name("ladder_figures.py"))
ladder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ladder)

PLOT = "reduce_divergence_time.png"


def tables(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return ladder.no_results(["results", "plot"])
    return {"results": ladder.all_tables(results), "plot": f"\\image html {PLOT}\n"}


def plots(results: dict[str, dict], out_dir: Path) -> list[str]:
    return ladder.plot_times(results, Path(out_dir), PLOT, "Chapter 03: divergence")
