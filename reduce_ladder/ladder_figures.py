"""Tables, inline values and plots shared by the reduction ladder's three chapters.

Each chapter's figures.py loads this file by path (reduce_ladder/ladder_figures.py). Pure Python for
the tables and values (json in, Markdown out); matplotlib only inside the plot functions.
"""
from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"
# Chapter 05's profiler results (profile.sh): read by every chapter whose lesson cites a counter.
PROFILE = "05_reduce_unroll_profile.json"
LIBRARY = "cub_device_reduce"

# The book the ladder follows, named wherever its figures stand beside ours.
BOOK = "*Professional CUDA C Programming* (Cheng, Grossman, McKercher; Wrox, 2014), chapter 3"
# The book's table (Tesla K80, 2^24 ints, block 512): the book's numbers, typed here as the source
# printed them, to stand beside ours. Never our measurements.
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


def row(doc: dict, kernel: str, n: int) -> dict | None:
    return next((r for r in rows_at(doc, n) if r["kernel"] == kernel), None)


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
        if book:
            out.append(f"\nK80 columns: quoted from {BOOK} (Tesla K80), not measured here.")
    return "\n".join(out) + "\n"


def all_tables(results: dict[str, dict], with_book: bool = True) -> str:
    if not results:
        return no_results(["x"])["x"]
    return "\n".join(results_table(slug, results[slug], with_book) for slug in sorted(results))


def load_profile(slug: str) -> dict | None:
    """Chapter 05's profiler results of one GPU (Nsight Compute counters per rung at 2^24 ints, block
    512), or None where profile.sh has not run there."""
    path = RESULTS / slug / PROFILE
    return json.loads(path.read_text()) if path.exists() else None


def profiled(profile: dict | None, kernel: str) -> dict | None:
    """One rung's counters from a profile results file."""
    kernels = ((profile or {}).get("ncu") or {}).get("kernels", [])
    return next((k for k in kernels if k["kernel"] == kernel), None)


def profiled_grid(entry: dict) -> int:
    """ncu writes the grid as "(528, 1, 1)"."""
    return int(str(entry["grid"]).strip("()").split(",")[0])


def chapter_values(names: list[str], compute):
    """A chapter's values(results): compute(doc, profile) gives the inline numbers from the first GPU's
    results and its profile (None where profile.sh has not run); a name it cannot give reads as such,
    never as a stale number."""

    def values(results: dict[str, dict]) -> dict[str, str]:
        if not results:
            return {name: "(no results committed)" for name in names}
        slug = sorted(results)[0]
        got = compute(results[slug], load_profile(slug))
        return {name: got.get(name, "(no profile committed)") for name in names}

    return values


def step_values(doc: dict, kernel: str) -> dict[str, str]:
    """The device, and one rung's step speed-up over the rung before it at 2^24 and 2^28."""
    big, huge = SIZES
    return {"device": doc["device"]["name"],
            "step_2_24": times(row(doc, kernel, big)["step_speedup"]),
            "step_2_28": times(row(doc, kernel, huge)["step_speedup"])}


def times(ratio: float) -> str:
    return f"{ratio:.2f}×"


def millions(count: float) -> str:
    return f"{count / 1e6:.2f} M"


# -- The library comparison ---------------------------------------------------------------------------
# A rung is *ahead* of the library at a size when its median run beats the library's fastest run of
# the same sweep, *behind* when the library's median beats its fastest run, and *level* otherwise:
# a gap smaller than the run-to-run spread is not a result.

def verdict(ours: dict, library: dict) -> str:
    if ours["time_ms"] < library["min_ms"]:
        return "ahead"
    if library["time_ms"] < ours["min_ms"]:
        return "behind"
    return "level"


def one_launch(rows: list[dict]) -> list[dict]:
    """The single-pass rungs: their last block finishes the sum, one launch in all."""
    return [r for r in rows if r["kernel"].startswith("single_pass")]


def versus_library(doc: dict) -> list[dict]:
    """Per size of a sweep that has the library row: our fastest rung, our fastest one-launch rung, the
    library, and the verdict of each against it."""
    out = []
    for n in sorted({r["n"] for r in doc.get("rows", [])}):
        rows = rows_at(doc, n)
        library = next((r for r in rows if r["kernel"] == LIBRARY), None)
        ours = [r for r in rows if r["kernel"] != LIBRARY]
        single = one_launch(ours)
        if library is None or not ours or not single:
            continue
        fastest = min(ours, key=lambda r: r["time_ms"])
        best_single = min(single, key=lambda r: r["time_ms"])
        out.append({"n": n, "fastest": fastest, "single": best_single, "library": library,
                    "fastest_verdict": verdict(fastest, library), "single_verdict": verdict(best_single, library)})
    return out


def size_span(sizes: list[int]) -> str:
    """2^16, 2^18, 2^20 -> "2^16 to 2^20"; one size -> "2^16"; two -> "2^16 and 2^18"."""
    labels = [size_label(n) for n in sorted(sizes)]
    if not labels:
        return "no size"
    if len(labels) == 1:
        return labels[0]
    if len(labels) == 2:
        return f"{labels[0]} and {labels[1]}"
    return f"{labels[0]} to {labels[-1]}"


def plot_times(results: dict[str, dict], out_dir: Path, name: str, title: str) -> list[str]:
    """Median time per kernel at 2^24 and 2^28, one figure per chapter. Linear bars from zero, each
    labelled with its time and its speed-up over the first rung, so that a bar twice as long is twice
    as slow (a log axis with bars from the axis minimum made 1.7x look like 20x)."""
    if not results:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slug = sorted(results)[0]
    doc = results[slug]
    kernels = list(dict.fromkeys(r["kernel"] for r in doc["rows"]))
    fig, axes = plt.subplots(1, 2, figsize=(12, max(3.0, 1.4 + 0.42 * len(kernels))), sharey=True,
                             constrained_layout=True)
    for ax, n in zip(axes, SIZES):
        rows = {r["kernel"]: r for r in rows_at(doc, n)}
        shown = [k for k in kernels if k in rows]
        first = rows[shown[0]]["time_ms"]
        ys = range(len(shown))
        ms = [rows[k]["time_ms"] for k in shown]
        ax.barh(list(ys), ms, color=["#8c8c8c" if k == LIBRARY else "#4c72b0" for k in shown])
        for y, k, t in zip(ys, shown, ms):
            ax.annotate(f"{t:#.3g} ms  ({first / t:.2f}x)", (t, y), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=8)
        ax.set_xlim(0, max(ms) * 1.45)  # room for the labels
        ax.set_xlabel("median time (ms, linear; label: speed-up over the first rung)")
        ax.set_title(f"n = {size_label(n)} ints")
        ax.set_yticks(list(ys), shown)
        ax.grid(axis="x", alpha=0.3)
    axes[0].invert_yaxis()  # the ladder reads top-down, as in the table (once: the y axis is shared)
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
