"""Chapter 03's generated README blocks: the results table (beside the book's K80 figures) and the
time-per-kernel plot, both from the ladder's shared figure code (reduce_ladder/ladder_figures.py)."""
import runpy
from pathlib import Path

_ladder = runpy.run_path(str(Path(__file__).resolve().parents[1] / "reduce_ladder" / "ladder_figures.py"))
tables, plots = _ladder["results_and_time_plot"]("reduce_divergence_time.png", "Chapter 03: divergence")
