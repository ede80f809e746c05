"""Tables, inline values and plots shared by the reduction ladder's three chapters.

Each chapter's figures.py loads this file by path (reduce_ladder/ladder_figures.py). Pure Python for
the tables and values (json in, Markdown out); matplotlib only inside the plot functions.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

SCRIPTS = str(Path(__file__).resolve().parents[1] / "scripts")
if SCRIPTS not in sys.path:  # make_figures.py puts scripts/ there; a test that loads this file may not
    sys.path.insert(0, SCRIPTS)
import figures_lib  # noqa: E402  (results files by the naming rule, Markdown tables)

RESULTS = figures_lib.RESULTS
# Chapter 05's profiler results (profile.sh, results/<gpu>/05_reduce_unroll.profile.json): read by every
# chapter whose lesson cites a counter.
PROFILE_CHAPTER, PROFILE_KIND = "05_reduce_unroll", "profile"
LIBRARY = "cub_device_reduce"

# The book the ladder follows: its kernels, their names and the order of the rungs.
BOOK = "*Professional CUDA C Programming* (Cheng, Grossman, McKercher; Wrox, 2014), chapter 3"
# The K80 timings come from another document: a blog post that ran kernels named as the book names them
# on its author's own Tesla K80, a GPU NVIDIA released after the book. Its numbers, typed here as the post
# prints them (2^24 ints, blocks of 512), are quoted in a table of their own and never set beside ours:
# another GPU, and the book's in-place 32-bit kernels.
BLOG = ("the blog post (a walk through the book's chapter-3 reduction kernels, timed by its author on his "
        "own Tesla K80)")
BLOG_K80 = {
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
BLOG_FIRST_MS = BLOG_K80["neighbored"][1]
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


def results_table(slug: str, doc: dict) -> str:
    """Our measurements only, seven columns (the source's K80 figures have their own table, blog_table)."""
    device = figures_lib.device_name(doc, slug)
    copy = doc.get("config", {}).get("copy_gbs", 0)
    out = [f"**{device}** (`results/{slug}`), block {doc.get('config', {}).get('block', '?')}, "
           f"measured copy bandwidth {copy:.0f} GB/s (read + write), median of "
           f"{doc.get('config', {}).get('reps', '?')} runs.\n"]
    for n in SIZES:
        rows = rows_at(doc, n)
        if not rows:
            continue
        out += [f"\nn = {size_label(n)} ints ({n * 4 / 2**20:.0f} MiB):\n",
                "| kernel | time (ms) | step | cumulative | grid × block | GB/s | % of copy |",
                "|---|--:|--:|--:|--:|--:|--:|"]
        for r in rows:
            shape = "library" if r["grid"] == 0 else f"{r['grid']} × {r['block']}"
            out.append(f"| `{r['kernel']}` | {r['time_ms']:.4f} | {r['step_speedup']:.2f}x | "
                       f"{r['cumulative_speedup']:.2f}x | {shape} | {r['gbs']:.0f} | {r['pct_copy']:.1f} |")
    return "\n".join(out) + "\n"


def all_tables(results: dict[str, dict]) -> str:
    if not results:
        return no_results(["x"])["x"]
    return "\n".join(results_table(slug, results[slug]) for slug in sorted(results))


def blog_table(kernels: list[str]) -> str:
    """The K80 timings of `kernels` as the blog post prints them, in a table of their own: the post's kernel
    name, its time, its grid, and its speed-up over its first kernel. Quoted, not measured here."""
    out = ["| our rung | the post's kernel | K80 time (ms) | grid | × its first kernel |",
           "|---|---|--:|--:|--:|"]
    for kernel in kernels:
        name, time_ms, grid = BLOG_K80[kernel]
        out.append(f"| `{kernel}` | `{name}` | {time_ms:.3f} | {grid} | {BLOG_FIRST_MS / time_ms:.2f}x |")
    out.append("\nQuoted from the blog post named above, 2^24 ints, blocks of 512; not measured here, and not comparable with "
               "our tables: another GPU, and kernels named as the book names them, which add in place in global "
               "memory, in 32 bits.")
    return "\n".join(out) + "\n"


def load_profile(slug: str) -> dict | None:
    """Chapter 05's profiler results of one GPU (Nsight Compute counters per rung at 2^24 ints, block
    512), or None where profile.sh has not run there."""
    return figures_lib.load_sibling(slug, PROFILE_CHAPTER, PROFILE_KIND)


def profiled(profile: dict | None, kernel: str) -> dict | None:
    """One rung's counters from a profile results file."""
    kernels = ((profile or {}).get("ncu") or {}).get("kernels", [])
    return next((k for k in kernels if k["kernel"] == kernel), None)


def profiled_grid(entry: dict) -> int:
    """ncu writes the grid as "(528, 1, 1)"."""
    return int(str(entry["grid"]).strip("()").split(",")[0])


def chapter_values(names: list[str], compute):
    """A chapter's values(results): compute(doc, profile, slug) gives the inline numbers from the first
    GPU's results and its profile (None where profile.sh has not run); "blog" names the K80 source document
    on every page, with or without results; slug names that GPU's results
    folder, for the numbers an answer key quotes from the ladder's other files there (sibling_results,
    grading_perf, stub_timing). A name it cannot give reads as such, never as a stale number."""

    def values(results: dict[str, dict]) -> dict[str, str]:
        source = {"blog": BLOG}  # the K80 source document, named the same way on every page
        if not results:
            return {name: source.get(name, "(no results committed)") for name in names}
        slug = sorted(results)[0]
        got = source | compute(results[slug], load_profile(slug), slug)
        return {name: got.get(name, "(not in the committed results)") for name in names}

    return values


# -- What an answer key quotes beside the chapter's own results -------------------------------------
# The same GPU's results of another rung of the ladder (chapter 05 times every rung), and the grader's
# records (results/<gpu>/grading/): key.json grades the answer key, handout.json the untouched handout.
# Each optimize exercise's `perf` there holds times in seconds per repetition, clocked by the grader from
# outside the probe process (less the `none` side), and every round of key.json also clocks the untouched
# stub. Missing files give None.

def sibling_results(slug: str, chapter: str) -> dict | None:
    """results/<slug>/<chapter>.json, or None."""
    return figures_lib.load_sibling(slug, chapter)


def grading_entry(slug: str, exercise: str, record: str = "key") -> dict | None:
    """One exercise's entry in results/<slug>/grading/<record>.json (record: "key" or "handout"), or None."""
    path = RESULTS / slug / "grading" / f"{record}.json"
    if not path.exists():
        return None
    return next((e for e in json.loads(path.read_text()).get("exercises", []) if e.get("id") == exercise), None)


def grading_perf(slug: str, exercise: str, record: str = "key") -> dict | None:
    """The grader's timing of one optimize exercise in one grading record: its perf entry (time and
    reference_time in seconds per repetition, ratio, stub_ratio, reps, rounds) with the points it scored,
    or None where the record has no timing of it."""
    entry = grading_entry(slug, exercise, record)
    if entry is None or not entry.get("perf"):
        return None
    return entry["perf"] | {"points": entry["points"], "max_points": entry["max_points"]}


def stub_timing(slug: str, exercise: str) -> dict | None:
    """The untouched stub of one optimize exercise as the grader clocked it, in seconds per repetition:
    where the handout's grade timed it (the student there IS the stub) its time, reference_time and
    ratio from handout.json; else the stub side of key.json: the record's `stub_ratio` (the median
    round's) with that round's `stub` and `stub_reference`. Also the points the untouched handout scored
    (handout.json), the record's file name (source), and whether the handout timed it; None where neither
    record has it."""
    handout = grading_perf(slug, exercise, "handout")
    handout_entry = grading_entry(slug, exercise, "handout")
    points = None if handout_entry is None else handout_entry.get("points")
    if handout is not None and "time" in handout:
        return {"time": handout["time"], "reference_time": handout["reference_time"], "ratio": handout["ratio"],
                "points": points, "max_points": handout["max_points"], "source": "handout.json", "in_handout": True}
    key = grading_perf(slug, exercise, "key")
    rounds = [] if key is None else [r for r in key.get("rounds", []) if r.get("stub") and r.get("stub_reference")]
    if not rounds or "stub_ratio" not in key:
        return None
    # The record's stub_ratio is the median round's (scoring.verdict); quote that round's two times.
    median = min(rounds, key=lambda r: abs(r["stub"] / r["stub_reference"] - key["stub_ratio"]))
    return {"time": median["stub"], "reference_time": median["stub_reference"], "ratio": key["stub_ratio"],
            "points": points, "max_points": key["max_points"], "source": "key.json", "in_handout": False}


def seconds_as_ms(seconds: float) -> str:
    """A grader time (seconds per repetition) in ms, four decimals as the ladder's tables print."""
    return ms(seconds * 1e3)


def ms(value: float) -> str:
    """A median time as the ladder's tables print it."""
    return f"{value:.4f} ms"


def count(value: float) -> str:
    """A profiler count in full, as the answer keys quote it."""
    return f"{value:,.0f}"


def step_values(doc: dict, kernel: str) -> dict[str, str]:
    """The device, and one rung's step speed-up over the rung before it at 2^24 and 2^28."""
    big, huge = SIZES
    return {"device": doc["device"]["name"],
            "step_2_24": times(row(doc, kernel, big)["step_speedup"]),
            "step_2_28": times(row(doc, kernel, huge)["step_speedup"])}


def key_run_values(doc: dict, kernels: tuple[str, ...]) -> dict[str, str]:
    """The answer keys' common head: which run they quote (device, block, repetitions) and each of
    `kernels`' median time at 2^24 and 2^28 (`<kernel>_ms_2_24`, `<kernel>_ms_2_28`)."""
    config = doc.get("config", {})
    out = {"key_runs": f"{doc['device']['name']}, block {config.get('block', '?')}, median of "
                       f"{config.get('reps', '?')} runs"}
    for n in SIZES:
        label = size_label(n).replace("^", "_")
        for kernel in kernels:
            out[f"{kernel}_ms_{label}"] = ms(row(doc, kernel, n)["time_ms"])
    return out


def times(ratio: float) -> str:
    return f"{ratio:.2f}×"


def millions(count: float) -> str:
    return f"{count / 1e6:.2f} M"


# -- The library comparison ---------------------------------------------------------------------------
# Repeated runs of one kernel spread widely at small sizes (the spread table below says how widely), and the
# results record each row's median, fastest and slowest run. The only verdict such data allow without
# assuming a distribution: a rung is *ahead* of the library at a size when its slowest run beats the
# library's fastest run (the two ranges lie apart), *behind* when the library's slowest run beats its
# fastest, and *level* when the ranges overlap, whatever the medians say.

def verdict(ours: dict, library: dict) -> str:
    if ours["max_ms"] < library["min_ms"]:
        return "ahead"
    if library["max_ms"] < ours["min_ms"]:
        return "behind"
    return "level"


def spread_rows(doc: dict) -> list[dict]:
    """Per size: the median and the largest coefficient of variation (standard deviation / mean of a row's
    runs) over the rows of that size, and the row with the largest."""
    out = []
    for n in sorted({r["n"] for r in doc.get("rows", [])}):
        rows = [r for r in rows_at(doc, n) if r.get("cv") is not None]
        if not rows:
            continue
        cvs = sorted(r["cv"] for r in rows)
        middle = len(cvs) // 2
        median = cvs[middle] if len(cvs) % 2 else (cvs[middle - 1] + cvs[middle]) / 2
        widest = max(rows, key=lambda r: r["cv"])
        out.append({"n": n, "median_cv": median, "max_cv": widest["cv"], "widest": widest["kernel"],
                    "rows": len(rows)})
    return out


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


def size_list(sizes: list[int]) -> str:
    """Every size, in order: "2^10, 2^14 and 2^30"; none -> "no size"."""
    labels = [size_label(n) for n in sorted(sizes)]
    if not labels:
        return "no size"
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def size_span(sizes: list[int]) -> str:
    """2^16, 2^18, 2^20 -> "2^16 to 2^20"; one size -> "2^16"; two -> "2^16 and 2^18"; sizes that are not
    one even run (2^10, 2^28, 2^30) -> size_list's "2^10, 2^28 and 2^30"."""
    ordered = sorted(sizes)
    if len(ordered) > 2 and len({b // a for a, b in zip(ordered, ordered[1:])}) > 1:
        return size_list(ordered)
    labels = [size_label(n) for n in ordered]
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


TIME_CAPTION = ("Median time of each rung at 2^24 and 2^28 ints, linear bars from zero: compare bar lengths, and "
                "read each rung's speed-up over the first rung in its label.")


def results_and_time_plot(plot: str, title: str, blog_kernels: list[str]):
    """tables() and plots() of a chapter whose lesson shows the ladder's results table ("results"), the
    time-per-kernel plot ("plot") and the blog post's K80 timings of its own rungs ("blog_k80")."""

    def tables(results: dict[str, dict]) -> dict[str, str]:
        blog = {"blog_k80": blog_table(blog_kernels)}  # a quoted source: there with or without our results
        if not results:
            return no_results(["results", "plot"]) | blog
        return {"results": all_tables(results), "plot": f"\\image html {plot} \"{TIME_CAPTION}\"\n"} | blog

    def plots(results: dict[str, dict], out_dir: Path) -> list[str]:
        return plot_times(results, Path(out_dir), plot, title)

    return tables, plots


def graded_values(slug: str, exercise: str) -> dict[str, str]:
    """An optimize exercise's timings for its answer key, all clocked by the grader, per repetition: the
    solution as key.json records it (solution_ms, solution_reference_ms, solution_ratio = T / T_ref,
    solution_points, zero_line: the ratio at which that grade's points reach 0) and the untouched stub (stub_ms, stub_reference_ms, stub_ratio, stub_points,
    stub_source: the record quoted, stub_where: in which grade it was clocked; see stub_timing).
    Names that no committed file gives are left out (chapter_values then says so)."""
    out = {}
    solution = grading_perf(slug, exercise)
    if solution is not None:
        out |= {"solution_ms": seconds_as_ms(solution["time"]),
                "solution_reference_ms": seconds_as_ms(solution["reference_time"]),
                "solution_ratio": times(solution["time"] / solution["reference_time"]),
                "solution_points": f"{solution['points']} of {solution['max_points']} points"}
        if "stub_ratio" in solution:  # the stub-relative rule: no points at r >= r0 / 1.1 (scoring.zero_point)
            # imported here, not at the top: a diagram that loads this file must not depend on the grader
            from course_lib import scoring
            out["zero_line"] = times(scoring.zero_point(solution["stub_ratio"]))
    stub = stub_timing(slug, exercise)
    if stub is not None:
        out |= {"stub_ms": seconds_as_ms(stub["time"]), "stub_reference_ms": seconds_as_ms(stub["reference_time"]),
                "stub_ratio": times(stub["ratio"]),
                "stub_source": f"`results/{slug}/grading/{stub['source']}`",
                "stub_where": ("in the grade of the untouched handout" if stub["in_handout"]
                               else "beside the solution in the answer key's grade"),
                "stub_points": stub_points(stub["points"], stub["max_points"])}
    return out


def stub_points(points: int | None, max_points: int | None) -> str:
    """What the untouched handout scored (handout.json): "0 of 20 points", or why it is not known."""
    if points is None:
        return "(points not in the committed handout grade)"
    return f"{points} of {max_points} points" if max_points else f"{points} points"


def _self_check() -> None:
    """Made-up rows with a known story, for the verdict and spread rules above (python3 ladder_figures.py):
    medians far apart but ranges overlapping read "level"; ranges apart read "ahead" / "behind"."""
    def r(kernel, n, median, low, high, cv=0.1):
        return {"kernel": kernel, "n": n, "time_ms": median, "min_ms": low, "max_ms": high, "cv": cv,
                "pct_copy": 1.0, "grid": 1, "block": 512}
    doc = {"rows": [r("single_pass_x4", 1024, 1.0, 0.9, 1.5, 0.2), r(LIBRARY, 1024, 2.0, 1.4, 2.5, 0.3),
                    r("single_pass_x4", 4096, 1.0, 0.9, 1.1), r(LIBRARY, 4096, 2.0, 1.2, 2.5),
                    r("single_pass_x4", 16384, 3.0, 2.6, 3.5), r(LIBRARY, 16384, 1.0, 0.9, 2.5)]}
    got = [(v["n"], v["single_verdict"]) for v in versus_library(doc)]
    assert got == [(1024, "level"), (4096, "ahead"), (16384, "behind")], got
    spread = spread_rows(doc)
    assert [(s["n"], round(s["median_cv"], 2), s["widest"]) for s in spread] == [
        (1024, 0.25, LIBRARY), (4096, 0.1, "single_pass_x4"), (16384, 0.1, "single_pass_x4")], spread
    print("ladder_figures: verdict and spread rules hold on made-up rows")


if __name__ == "__main__":
    _self_check()
