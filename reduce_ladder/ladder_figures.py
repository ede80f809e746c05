"""Tables and plots shared by the reduction ladder's three chapters.

Each chapter's figures.py loads this file by path (reduce_ladder/ladder_figures.py). Pure Python for
the tables (json in, Markdown out); matplotlib only inside the plot functions.
"""
from __future__ import annotations

from pathlib import Path

# The source's table (CUDA C programming book, Tesla K80, 2^24 ints, block 512): the book's
# numbers, typed here as the source printed them, to stand beside ours. Never our measurements.
BOOK_K80 = {
    "neighbored": ("reduceNeighbored", 8.459, 32768),
    "neighbored_less": ("reduceNeighboredLess", 7.832, 32768),
    "interleaved": ("reduceInterleaved", 5.033, 32768),
    "unroll2": ("reduceUnrolling2", 2.877, 16384),
    "unroll4": ("reduceUnrolling4", 1.452, 8192),
    "unroll8": ("reduceUnrolling8", 0.892, 4096),
    "unroll8_last_warp": ("reduceUnrollWarps8", 0.813, 4096),
    "unroll8_complete": ("reduceCompleteUnrollWarps8", 0.789, 4096),
    "unroll8_templated": ("reduceCompleteUnroll<512>", 0.777, 4096),
}
BOOK_FIRST_MS = 8.459
SIZES = (1 << 24, 1 << 28)


def size_label(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def no_results(names) -> dict[str, str]:
    return {name: "*No results committed yet: run `bash reduce_ladder/bench.sh build results/<gpu>` on a GPU.*\n"
            for name in names}


def rows_at(doc: dict, n: int) -> list[dict]:
    return [r for r in doc.get("rows", []) if r.get("n") == n]


def results_table(slug: str, doc: dict, with_book: bool = True) -> str:
    device = doc.get("device", {}).get("name", slug)
    copy = doc.get("config", {}).get("copy_gbs", 0)
    out = [f"**{device}** (`results/{slug}`), block {doc.get('config', {}).get('block', '?')}, "
           f"measured copy bandwidth {copy:.0f} GB/s (read + write), median of "
           f"{doc.get('config', {}).get('reps', '?')} runs.\n"]
    for n in SIZES:
        rows = rows_at(doc, n)
        if not rows:
            continue
        book = with_book and n == 1 << 24
        head = "| kernel | time (ms) | step | cumulative | grid | block | GB/s | % of copy |"
        rule = "|---|--:|--:|--:|--:|--:|--:|--:|"
        if book:
            head += " K80 (book) ms | K80 cumulative |"
            rule += "--:|--:|"
        out += [f"\nn = {size_label(n)} ints ({n * 4 / 2**20:.0f} MiB):\n", head, rule]
        for r in rows:
            grid = "library" if r["grid"] == 0 else str(r["grid"])
            block = "library" if r["block"] == 0 else str(r["block"])
            line = (f"| `{r['kernel']}` | {r['time_ms']:.4f} | {r['step_speedup']:.2f}x | "
                    f"{r['cumulative_speedup']:.2f}x | {grid} | {block} | {r['gbs']:.0f} | {r['pct_copy']:.1f} |")
            if book:
                b = BOOK_K80.get(r["kernel"])
                line += f" {b[1]:.3f} | {BOOK_FIRST_MS / b[1]:.2f}x |" if b else " | |"
            out.append(line)
    return "\n".join(out) + "\n"


def all_tables(results: dict[str, dict], with_book: bool = True) -> str:
    if not results:
        return no_results(["x"])["x"]
    return "\n".join(results_table(slug, results[slug], with_book) for slug in sorted(results))


def plot_times(results: dict[str, dict], out_dir: Path, name: str, title: str) -> list[str]:
    """Bar chart: median time per kernel at 2^24 and 2^28 (log scale), one figure per chapter."""
    if not results:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slug = sorted(results)[0]
    doc = results[slug]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    for ax, n in zip(axes, SIZES):
        rows = rows_at(doc, n)
        ax.barh([r["kernel"] for r in rows][::-1], [r["time_ms"] for r in rows][::-1], color="#4c72b0")
        ax.set_xscale("log")
        ax.set_xlabel("median time (ms, log scale)")
        ax.set_title(f"n = {size_label(n)} ints")
    fig.suptitle(f"{title} — {doc.get('device', {}).get('name', slug)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    return [name]


def results_and_time_plot(plot: str, title: str):
    """tables() and plots() of a chapter whose lesson shows the ladder's results table ("results") and
    the time-per-kernel plot ("plot")."""

    def tables(results: dict[str, dict]) -> dict[str, str]:
        if not results:
            return no_results(["results", "plot"])
        return {"results": all_tables(results), "plot": f"\\image html {plot}\n"}

    def plots(results: dict[str, dict], out_dir: Path) -> list[str]:
        return plot_times(results, Path(out_dir), plot, title)

    return tables, plots
