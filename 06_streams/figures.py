"""Tables and plots of chapter 06 (streams) from committed results (see CONTRIBUTING.md)."""
from __future__ import annotations

import json
import pathlib
import sys

SCRIPTS = str(pathlib.Path(__file__).resolve().parents[1] / "scripts")
if SCRIPTS not in sys.path:  # make_figures.py puts scripts/ there; a test that loads this file may not
    sys.path.insert(0, SCRIPTS)
import figures_lib  # noqa: E402  (results files by the naming rule, Markdown tables)

BLOCKS = ("streams_summary", "streams_scenarios", "streams_sweep", "streams_small", "streams_timelines")
# The pipeline sweep at small sizes: one results file of the program per --size, gathered in
# results/<gpu>/06_streams.small.json ("runs": size -> the program's results JSON).
SMALL_KIND = "small"
NO_RESULTS = "No results are committed yet: run `bash 06_streams/bench.sh build results/<gpu>` on a GPU."
MISSING = "(not measured)"
# PCIe per lane and direction, in theory: GT/s by generation, and the line code's payload share. Not a
# measurement: the ceiling a measured copy is held against.
PCIE_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0}
PCIE_CODE = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130}


def _fmt(value, kind):
    if value is None:
        return "-"
    if kind == "ratio":
        return f"{value:.2f}x"
    if kind == "ms":
        return f"{value:.3f}"
    return f"{value:.2f}"


def _device(doc):
    return figures_lib.device_name(doc, "unknown GPU")


def _summary(results):
    lines = ["| GPU | best N | pipeline speedup (measured) | model | measured / model | "
             "false dependency: depth-first / breadth-first, 1 queue |", "|---|---:|---:|---:|---:|---:|"]
    for slug in sorted(results):
        extra = results[slug].get("extra", {})
        s = extra.get("summary", {})
        b, f = s.get("balanced_pipeline", {}), s.get("false_dependency", {})
        lines.append(f"| {_device(results[slug])} | {b.get('best_chunks', '-')} | "
                     f"{_fmt(b.get('measured_speedup'), 'ratio')} | {_fmt(b.get('model_speedup'), 'ratio')} | "
                     f"{_fmt(b.get('ratio_to_model'), 'plain')} | {_fmt(f.get('one_queue', {}).get('depth_over_breadth'), 'ratio')} |")
    return "\n".join(lines)


def _scenarios(results):
    parts = []
    for slug in sorted(results):
        doc = results[slug]
        cal = doc.get("extra", {}).get("calibration", {})
        dev = doc.get("device", {})
        engines = (f"{dev['async_engine_count']} copy engines reported by the device (asyncEngineCount), "
                   if "async_engine_count" in dev else "")
        parts.append(f"**{_device(doc)}**: H2D {_fmt(cal.get('h2d_ms'), 'ms')} ms, D2H {_fmt(cal.get('d2h_ms'), 'ms')} ms, "
                     f"both at once {_fmt(cal.get('both_copies_ms'), 'ms')} ms, kernel {_fmt(cal.get('kernel_ms'), 'ms')} ms "
                     f"({cal.get('kernel_iterations', '-')} FMAs per element); {engines}"
                     f"{cal.get('copy_engines', '-')} in the model (one per copy direction).\n")
        parts.append("| scenario | variant | measured ms | model ms | speedup | model speedup | overlap |")
        parts.append("|---|---|---:|---:|---:|---:|---:|")
        for r in doc.get("rows", []):
            if r.get("scenario") == "pipeline":
                continue  # the sweep has its own table
            parts.append(f"| {r['scenario']} | {r['variant']} | {_fmt(r.get('measured_ms'), 'ms')} | "
                         f"{_fmt(r.get('model_ms'), 'ms')} | {_fmt(r.get('speedup'), 'ratio')} | "
                         f"{_fmt(r.get('model_speedup'), 'ratio')} | {_fmt(r.get('overlap'), 'plain')} |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _sweep(results):
    parts = []
    for slug in sorted(results):
        sweep = results[slug].get("extra", {}).get("sweep", [])
        if not sweep:
            continue
        parts.append(f"**{_device(results[slug])}**\n")
        # Seven columns: the chunks and the streams they run on share one.
        parts.append("| N · streams | measured ms | model ms | duplex-aware model ms | speedup | model speedup | measured / model |")
        parts.append("|---:|---:|---:|---:|---:|---:|---:|")
        for p in sweep:
            parts.append(f"| {p['chunks']} · {p['streams']} | {_fmt(p['measured_ms'], 'ms')} | {_fmt(p['model_ms'], 'ms')} | "
                         f"{_fmt(p.get('duplex_model_ms'), 'ms')} | {_fmt(p['speedup'], 'ratio')} | "
                         f"{_fmt(p['model_speedup'], 'ratio')} | {_fmt(p['ratio_to_model'], 'plain')} |")
        parts.append("")
        parts.append(f'\\image html 06_streams_sweep_{slug}.png "{SWEEP_CAPTION}"\n')
    return "\n".join(parts).rstrip() or NO_RESULTS


def load_small(slug):
    """The small-size pipeline sweeps of one GPU: {size label: results JSON}, or {} where not run."""
    doc = figures_lib.load_sibling(slug, "06_streams", SMALL_KIND)
    return doc["runs"] if doc else {}


def _by_size(runs):
    return sorted(runs.items(), key=lambda kv: kv[1]["config"]["size_bytes"])


def _small(results):
    parts = []
    for slug in sorted(results):
        runs = load_small(slug)
        if not runs:
            continue
        parts.append(f"**{_device(results[slug])}**: the same pipeline, `--size` "
                     + " and ".join(f"`{tag}`" for tag, _ in _by_size(runs))
                     + " per direction (`streams --variants pipeline --size 64KiB`; the kernel calibrated at each size the "
                     "same way as above).\n")
        sizes = _by_size(runs)
        parts.append("| N | " + " | ".join(f"{tag}: measured ms | speedup | model speedup" for tag, _ in sizes) + " |")
        parts.append("|---:|" + "---:|---:|---:|" * len(sizes))
        sweeps = [{p["chunks"]: p for p in doc["extra"]["sweep"]} for _, doc in sizes]
        for n in sorted(set().union(*sweeps)):
            cells = []
            for sweep in sweeps:
                p = sweep.get(n)
                cells.append("- | - | -" if p is None else f"{_fmt(p['measured_ms'], 'ms')} | "
                             f"{_fmt(p['speedup'], 'ratio')} | {_fmt(p['model_speedup'], 'ratio')}")
            parts.append(f"| {n} | " + " | ".join(cells) + " |")
        parts.append("")
    return "\n".join(parts).rstrip() or NO_RESULTS


def _small_values(slug):
    """small_copies.<size>.<what>: the unchunked time, the best N and its speedup, the model's, and where the
    speedup falls below 1 (splitting costs more than it overlaps)."""
    out = {}
    for tag, doc in _by_size(load_small(slug)):
        sweep = sorted(doc["extra"]["sweep"], key=lambda p: p["chunks"])
        best = max(sweep, key=lambda p: p["speedup"])
        model_best = max(sweep, key=lambda p: p["model_speedup"])
        # The smallest N from which every split is slower than the unstreamed pass.
        losing = [p["chunks"] for i, p in enumerate(sweep) if p["chunks"] > 1 and all(q["speedup"] < 1 for q in sweep[i:])]
        cal = doc["extra"]["calibration"]
        out |= {f"small_copies.{tag}.serial_us": f"{doc['extra']['serial_ms'] * 1e3:.0f}",
                f"small_copies.{tag}.h2d_us": f"{cal['h2d_ms'] * 1e3:.1f}",
                f"small_copies.{tag}.serial_ms": f"{doc['extra']['serial_ms']:.4f}",
                f"small_copies.{tag}.n1_speedup": _times(next(p for p in sweep if p["chunks"] == 1)["speedup"]),
                f"small_copies.{tag}.best_n": str(best["chunks"]),
                f"small_copies.{tag}.best_speedup": f"{best['speedup']:.2f}×",
                f"small_copies.{tag}.model_best_speedup": f"{model_best['model_speedup']:.2f}×",
                f"small_copies.{tag}.first_losing_n": str(min(losing)) if losing else "none",
                f"small_copies.{tag}.largest_n": str(sweep[-1]["chunks"]),
                f"small_copies.{tag}.largest_speedup": f"{sweep[-1]['speedup']:.2f}×"}
    return out


def _timeline_figures(doc, slug):
    """(image name, timeline names) of each timeline figure: one time axis per figure, so that bars compare
    within it; the pageable pipeline (tens of ms) gets its own, so the chunked ones stay readable."""
    names = [t["name"] for t in doc.get("extra", {}).get("timelines", [])]
    memory = [n for n in names if n in ("pageable host memory", "pinned host memory")]
    pipeline = [n for n in names if n.startswith("pipeline N=")]
    issue = [n for n in names if n.startswith("1 queue, ") and not n.endswith("(model)")]
    issue += [n for n in names if n.startswith("8 queues, 4 streams") and n.endswith("depth_first")]
    figures = ((f"06_streams_pageable_timelines_{slug}.png", memory),
               (f"06_streams_pipeline_timelines_{slug}.png", pipeline),
               (f"06_streams_issue_order_timelines_{slug}.png", issue))
    return [(image, chosen) for image, chosen in figures if chosen]


# Captions of the result plots: one sentence each, saying where to look.
SWEEP_CAPTION = ("The pipeline's time against the number of chunks N, measured and modelled: look at where the measured "
                 "curve leaves the model and turns up, the per-chunk cost the model leaves out.")
TIMELINE_CAPTIONS = {
    "pageable": "The same pipeline from pageable and from pinned host memory, on one time axis: look at the pageable "
                "staircase, one operation at a time, against the pinned bars that run side by side.",
    "pipeline": "The recorded pipeline for several chunk counts: look at how the bars of different streams overlap, "
                "and at the copies in that start together but end one after another.",
    "issue_order": "Chains of three kernels in four streams, timed by the kernels themselves, in each issue order on one "
                   "hardware queue and depth-first on eight: look at the chains waiting in a line in depth-first order "
                   "on one queue, and running side by side breadth-first or on eight queues.",
}


def _timeline_caption(image):
    kind = next(k for k in ("issue_order", "pageable", "pipeline") if image.startswith(f"06_streams_{k}"))
    return TIMELINE_CAPTIONS[kind]


def _timelines(results):
    parts = [f'\\image html {image} "{_timeline_caption(image)}"\n' for slug in sorted(results)
             for image, _ in _timeline_figures(results[slug], slug)]
    return "\n".join(parts).rstrip() or NO_RESULTS


def _row(doc, scenario, variant):
    return next(r for r in doc.get("rows", []) if r.get("scenario") == scenario and r.get("variant") == variant)


def _orders(setting):
    return {o["order"]: o["wall_ms"] for o in setting["orders"]}


def _setting(extra_list, connections, streams):
    return next(s for s in extra_list if s["connections"] == connections and s["streams"] == streams)


def _times(value):
    """A ratio as the prose writes it: 7.23×."""
    return f"{value:.2f}×"


def _sweep_points(doc):
    """The sweep's best point (fewest measured ms, as the summary names it), the point after it and the last."""
    sweep = sorted(doc["extra"]["sweep"], key=lambda p: p["chunks"])
    best_n = doc["extra"]["summary"]["balanced_pipeline"]["best_chunks"]
    i = next(k for k, p in enumerate(sweep) if p["chunks"] == best_n)
    return sweep[i], sweep[i + 1], sweep[-1]  # IndexError when the best is the last: no right side of the U


def _excess(point):
    return point["measured_ms"] - point["model_ms"]


def _per_chunk_us(a, b):
    """The per-chunk cost from the slope of the excess over the model between two sweep points, in µs."""
    return (_excess(b) - _excess(a)) / (b["chunks"] - a["chunks"]) * 1e3


def _rises_before_best(doc):
    sweep = sorted(doc["extra"]["sweep"], key=lambda p: p["chunks"])
    best_n = doc["extra"]["summary"]["balanced_pipeline"]["best_chunks"]
    rises = [str(b["chunks"]) for a, b in zip(sweep, sweep[1:])
             if b["chunks"] < best_n and b["measured_ms"] > a["measured_ms"]]
    if not rises:
        return "none"
    return ", ".join(rises[:-1]) + " and " + rises[-1] if len(rises) > 1 else rises[0]


def _span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.3f}" if f"{lo:.3f}" == f"{hi:.3f}" else f"{lo:.3f}–{hi:.3f}"


def _gpu_values(doc):
    """name -> getter of one inline value; a getter that fails means the results lack it."""
    extra, dev = doc.get("extra", {}), doc.get("device", {})
    cal, best = extra.get("calibration", {}), extra.get("summary", {}).get("balanced_pipeline", {})
    kernels, copies = extra.get("issue_order", []), extra.get("issue_order_copies", [])

    def link_gbs():
        gen, width = dev["pcie_generation"], dev["pcie_width"]
        return PCIE_GTS[gen] * PCIE_CODE[gen] * width / 8

    def h2d_gbs():
        return doc["config"]["size_bytes"] / (cal["h2d_ms"] * 1e-3) / 1e9

    values = {
        "async_engine_count": lambda: str(dev["async_engine_count"]),
        "concurrent_kernels": lambda: "yes" if dev["concurrent_kernels"] else "no",
        "model_copy_engines": lambda: str(cal["copy_engines"]),
        "pcie": lambda: f"gen{dev['pcie_generation']} x{dev['pcie_width']}",
        "pcie_gbs": lambda: f"{link_gbs():.0f}",
        "h2d_gbs": lambda: f"{h2d_gbs():.0f}",
        "h2d_pct_of_link": lambda: f"{100 * h2d_gbs() / link_gbs():.0f}%",
        "h2d_ms": lambda: f"{cal['h2d_ms']:.3f}",
        "d2h_ms": lambda: f"{cal['d2h_ms']:.3f}",
        "both_ms": lambda: f"{cal['both_copies_ms']:.3f}",
        "both_over_one": lambda: f"{cal['both_copies_ms'] / max(cal['h2d_ms'], cal['d2h_ms']):.2f}×",
        # The sweep's baseline, as the program computes it (scenario_pipeline.cpp): every row's speedup is
        # serial_ms, the unchunked run timed once before the sweep, over the row's time; the N = 1 row is a
        # second timing of that run, so its speedup is the run-to-run difference.
        "serial_ms": lambda: f"{extra['serial_ms']:.3f}",
        "sweep_n1_speedup": lambda: _times(next(p for p in extra["sweep"] if p["chunks"] == 1)["speedup"]),
        "best_n": lambda: str(best["best_chunks"]),
        "best_speedup": lambda: _fmt(best["measured_speedup"], "ratio").replace("x", "×"),
        "best_model_speedup": lambda: _fmt(best["model_speedup"], "ratio").replace("x", "×"),
        "pinned_overlap": lambda: _fmt(_row(doc, "pageable_vs_pinned", "pinned")["overlap"], "plain"),
        "small_kernels_speedup": lambda: _fmt(_row(doc, "kernel_concurrency", "small: 8 launches, 8 streams")["speedup"],
                                              "ratio").replace("x", "×"),
        "big_kernels_speedup": lambda: _fmt(_row(doc, "kernel_concurrency", "big: 4 launches, 4 streams")["speedup"],
                                            "ratio").replace("x", "×"),
        "copies_all_orders_ms": lambda: _span([ms for c in copies if c["streams"] == 4 for ms in _orders(c).values()]),
        # The copy pipeline's orders on one connection and on eight (4 streams), each setting's own span.
        "copies_one_queue_ms": lambda: _span(list(_orders(_setting(copies, 1, 4)).values())),
        "copies_eight_queues_ms": lambda: _span(list(_orders(_setting(copies, 8, 4)).values())),
        "copies_eight_queues_slowest": lambda: max(_orders(_setting(copies, 8, 4)).items(),
                                                   key=lambda kv: kv[1])[0].replace("_", "-"),
        # The host-function pipeline against synchronise-then-work: measured and model speedups, and a verdict.
        "host_func_speedup": lambda: _times(_row(doc, "host_func", "cudaLaunchHostFunc per chunk")["speedup"]),
        "host_func_model_speedup": lambda: _times(_row(doc, "host_func", "cudaLaunchHostFunc per chunk")["model_speedup"]),
        "host_func_verdict": lambda: ("faster than" if _row(doc, "host_func", "cudaLaunchHostFunc per chunk")["speedup"] > 1
                                      else "no faster than"),
        # Sweep points left of the best N whose measured time rose over the point before (bumps, not the U).
        "sweep_rises_before_best": lambda: _rises_before_best(doc),
        "one_queue_depth_over_breadth": lambda: _fmt(
            _orders(_setting(kernels, 1, 4))["depth_first"] / _orders(_setting(kernels, 1, 4))["breadth_first"],
            "ratio").replace("x", "×"),
    }
    for name, (connections, streams) in {"one_queue": (1, 4), "eight_queues": (8, 4), "shared_queues": (8, 32)}.items():
        for order in ("depth_first", "breadth_first", "staggered"):
            values[f"{name}.{order}_ms"] = (lambda c=connections, n=streams, o=order:
                                           f"{_orders(_setting(kernels, c, n))[o]:.2f}")
    # A verdict read from the data: where the staggered order stands among the three on one queue.
    values["one_queue.staggered_verdict"] = lambda: _verdict(_orders(_setting(kernels, 1, 4)))
    values.update(_answer_key_values(doc))
    return values


def _points(exercise_id):
    """An exercise's points, as exercises.json (beside this file) gives them."""
    exercises = json.loads((pathlib.Path(__file__).resolve().parent / "exercises.json").read_text())
    return next(e["points"] for e in exercises if e["id"] == exercise_id)


def _answer_key_values(doc):
    """name -> getter of the values the instructor page (instructor/answer_key.md) quotes beyond the lesson's:
    the copies and the link (Questions 1 and 2), the pipeline sweep (Questions 2 and 3), the concurrency,
    default-stream and ring scenarios (Questions 4 to 7, exercise 06.3)."""
    return _copy_key_values(doc) | _sweep_key_values(doc) | _scenario_key_values(doc)


def _copy_key_values(doc):
    """Question 1 (the pageable pipeline against the pinned one) and the link in both directions (Question 2)."""
    extra = doc.get("extra", {})
    cal = extra.get("calibration", {})

    def pageable():
        return _row(doc, "pageable_vs_pinned", "pageable")

    def pinned():
        return _row(doc, "pageable_vs_pinned", "pinned")

    def sweep_n(n):
        return next(p for p in extra["sweep"] if p["chunks"] == n)

    return {
        "kernel_iterations": lambda: str(cal["kernel_iterations"]),
        "kernel_ms": lambda: f"{cal['kernel_ms']:.3f}",
        # Question 1: the pageable pipeline against the pinned one.
        "pageable.enqueue_ms": lambda: f"{pageable()['host_enqueue_ms']:.1f}",
        "pageable.ms": lambda: f"{pageable()['measured_ms']:.1f}",
        "pageable.enqueue_share": lambda: f"{100 * pageable()['host_enqueue_ms'] / pageable()['measured_ms']:.0f}%",
        "pageable.overlap": lambda: f"{pageable()['overlap']:.2f}",
        "pageable.h2d_ms": lambda: f"{pageable()['h2d_alone_ms']:.1f}",
        "pageable.d2h_ms": lambda: f"{pageable()['d2h_alone_ms']:.1f}",
        "pinned.enqueue_ms": lambda: f"{pinned()['host_enqueue_ms']:.2f}",
        "pinned.ms": lambda: f"{pinned()['measured_ms']:.2f}",
        "pinned.speedup": lambda: _times(pinned()["speedup"]),
        "pinned.model_speedup": lambda: _times(pinned()["model_speedup"]),
        "pinned.over_unchunked": lambda: _times(pinned()["measured_ms"] / sweep_n(1)["measured_ms"]),
        "pipeline_chunks": lambda: str(doc["config"]["chunks"]),
        "pipeline_streams": lambda: str(doc["config"]["streams"]),
        "unchunked_ms": lambda: f"{sweep_n(1)['measured_ms']:.2f}",
        # Question 2: the link in both directions at once.
        "h_plus_d_ms": lambda: f"{cal['h2d_ms'] + cal['d2h_ms']:.3f}",
        "duplex_gain": lambda: _times((cal["h2d_ms"] + cal["d2h_ms"]) / cal["both_copies_ms"]),
        "balanced_on_h_bound": lambda: f"{max(cal['h2d_ms'], cal['d2h_ms']) / cal['both_copies_ms']:.2f}",
    }


def _sweep_key_values(doc):
    """Questions 2 and 3: the sweep at its best N, the N after it and its last N."""
    extra = doc.get("extra", {})

    def best():
        return next(p for p in extra["sweep"] if p["chunks"] == extra["summary"]["balanced_pipeline"]["best_chunks"])

    def after_best():
        return _sweep_points(doc)[1]

    def last():
        return _sweep_points(doc)[2]

    return {
        "sweep.best_ms": lambda: f"{best()['measured_ms']:.3f}",
        "sweep.best_model_ms": lambda: f"{best()['model_ms']:.3f}",
        "sweep.best_duplex_ms": lambda: f"{best()['duplex_model_ms']:.3f}",
        "sweep.best_ratio_to_model": lambda: f"{best()['ratio_to_model']:.2f}",
        "sweep.best_excess_ms": lambda: f"{_excess(best()):.3f}",
        "sweep.next_n": lambda: str(after_best()["chunks"]),
        "sweep.next_ms": lambda: f"{after_best()['measured_ms']:.3f}",
        "sweep.next_model_ms": lambda: f"{after_best()['model_ms']:.3f}",
        "sweep.next_excess_ms": lambda: f"{_excess(after_best()):.3f}",
        "sweep.last_n": lambda: str(last()["chunks"]),
        "sweep.last_ms": lambda: f"{last()['measured_ms']:.3f}",
        "sweep.last_model_ms": lambda: f"{last()['model_ms']:.3f}",
        "sweep.last_excess_ms": lambda: f"{_excess(last()):.3f}",
        "sweep.last_duplex_excess_ms": lambda: f"{last()['duplex_model_ms'] - last()['model_ms']:.3f}",
        "sweep.last_duplex_share": lambda: f"{100 * (last()['duplex_model_ms'] - last()['model_ms']) / _excess(last()):.0f}%",
        "sweep.next_to_last_chunks": lambda: str(last()["chunks"] - after_best()["chunks"]),
        "sweep.per_chunk_us": lambda: f"{_per_chunk_us(after_best(), last()):.1f}",
        "sweep.per_chunk_us_before": lambda: f"{_per_chunk_us(best(), after_best()):.1f}",
        "sweep.per_operation_us": lambda: f"{_per_chunk_us(after_best(), last()) / 3:.1f}",
    }


def _scenario_key_values(doc):
    """Questions 4 to 7 and exercise 06.3: big and small grids, the false dependency on shared queues, the
    default streams, the device ring."""
    kernels = doc.get("extra", {}).get("issue_order", [])

    def row(scenario, variant):
        return _row(doc, scenario, variant)

    def depth_over_breadth(connections, streams):
        walls = _orders(_setting(kernels, connections, streams))
        return walls["depth_first"] / walls["breadth_first"]

    return {
        # Question 4: big and small grids.
        "big.one_launch_ms": lambda: f"{row('kernel_concurrency', 'big: 1 launch, whole buffer')['measured_ms']:.3f}",
        "big.one_stream_ms": lambda: f"{row('kernel_concurrency', 'big: 4 launches, 1 stream')['measured_ms']:.3f}",
        "big.streams_ms": lambda: f"{row('kernel_concurrency', 'big: 4 launches, 4 streams')['measured_ms']:.3f}",
        "big.overlap": lambda: f"{row('kernel_concurrency', 'big: 4 launches, 4 streams')['overlap']:.2f}",
        "small.one_stream_ms": lambda: f"{row('kernel_concurrency', 'small: 8 launches, 1 stream')['measured_ms']:.2f}",
        "small.streams_ms": lambda: f"{row('kernel_concurrency', 'small: 8 launches, 8 streams')['measured_ms']:.2f}",
        # Questions 5 and 6: the false dependency with 32 streams on 8 queues.
        "shared_queues_depth_over_breadth": lambda: _times(depth_over_breadth(8, 32)),
        "shared_queues.staggered_verdict": lambda: _verdict(_orders(_setting(kernels, 8, 32))),
        # Question 7: the default streams.
        "default.legacy_ms": lambda: f"{row('default_stream', 'blocking A/B + legacy default')['measured_ms']:.2f}",
        "default.per_thread_ms": lambda: f"{row('default_stream', 'blocking A/B + per-thread default')['measured_ms']:.2f}",
        "default.non_blocking_ms": lambda: f"{row('default_stream', 'non-blocking A/B + legacy default')['measured_ms']:.2f}",
        # Exercise 06.3: the ring against the reference and the sequential run, one run.
        "ring.ms": lambda: f"{row('ring_pipeline', 'ring')['measured_ms']:.2f}",
        "ring.reference_ms": lambda: f"{row('ring_pipeline', 'reference')['measured_ms']:.2f}",
        "ring.sequential_ms": lambda: f"{row('ring_pipeline', 'sequential')['measured_ms']:.2f}",
        "ring.over_reference": lambda: f"{row('ring_pipeline', 'ring')['time_over_reference']:.2f}",
        "ring.sequential_over_reference": lambda: f"{row('ring_pipeline', 'sequential')['measured_ms'] / row('ring_pipeline', 'reference')['measured_ms']:.2f}",
    }

def _verdict(walls):
    """Where staggered issue stands against depth-first and breadth-first, in words (2 % counts as a tie)."""
    st, df, bf = walls["staggered"], walls["depth_first"], walls["breadth_first"]
    if st < 0.98 * min(df, bf):
        return "faster than both"
    if st <= 1.02 * bf and st <= 1.02 * df:
        return "level with both"
    if st <= 1.02 * bf:
        return "level with breadth-first"
    return "between the two" if st < 0.98 * df else "no faster than depth-first"


def values(results: dict[str, dict]) -> dict[str, str]:
    """Every measured number the lesson's prose and its answer key show, as `<gpu slug>.<name>`
    (README.md and instructor/answer_key.md: <!-- value:NAME -->)."""
    out = {}
    for slug in sorted(results):
        for name, get in _gpu_values(results[slug]).items():
            try:
                out[f"{slug}.{name}"] = get()
            except (IndexError, KeyError, StopIteration, TypeError, ValueError, ZeroDivisionError):
                out[f"{slug}.{name}"] = MISSING
        out |= {f"{slug}.{name}": text for name, text in _small_values(slug).items()}
        out |= {f"{slug}.{name}": text for name, text in _graded_values(slug, results[slug]).items()}
    return out


# The grader's record of exercise 06.3 (results/<gpu>/grading/key.json, the answer key graded; every round
# also clocks the untouched stub), read from the repository: seconds per repetition, clocked by the grader.
# The handout's grade did not time 06.3 (its reference runs 06.2's pipeline, a stub there).
GRADING_DIR = pathlib.Path(__file__).resolve().parent.parent / "results"


def _graded_values(slug: str, doc: dict) -> dict[str, str]:
    """06.3 as the grader clocked it on one GPU (`graded.*`), and what the chapter's sequential run would
    score under the grader's rule with that grade's stub; {} where no record is committed."""
    path = GRADING_DIR / slug / "grading" / "key.json"
    if not path.is_file():
        return {}
    entry = next((e for e in json.loads(path.read_text()).get("exercises", []) if e.get("id") == "06.3"), None)
    perf = entry and entry.get("perf")
    rounds = [r for r in (perf or {}).get("rounds", []) if r.get("stub") and r.get("stub_reference")]
    if not perf or "stub_ratio" not in perf or not rounds:
        return {}
    from course_lib import scoring  # here, not at the top: the lesson's tables need no grader
    # The record's stub_ratio is the median round's (scoring.verdict); quote that round's two times.
    median = min(rounds, key=lambda r: abs(r["stub"] / r["stub_reference"] - perf["stub_ratio"]))
    out = {"graded.solution_ms": f"{perf['time'] * 1e3:.2f}", "graded.solution_reference_ms": f"{perf['reference_time'] * 1e3:.2f}",
           "graded.solution_ratio": f"{perf['ratio']:.2f}", "graded.solution_points": f"{entry['points']} of {entry['max_points']}",
           "graded.stub_ms": f"{median['stub'] * 1e3:.2f}", "graded.stub_reference_ms": f"{median['stub_reference'] * 1e3:.2f}",
           "graded.stub_ratio": f"{perf['stub_ratio']:.2f}", "graded.zero_line": f"{scoring.zero_point(perf['stub_ratio']):.2f}"}
    try:
        sequential = _row(doc, "ring_pipeline", "sequential")["measured_ms"] / _row(doc, "ring_pipeline", "reference")["measured_ms"]
    except (IndexError, KeyError, StopIteration, TypeError, ValueError, ZeroDivisionError):
        return out
    out["graded.sequential_points"] = str(scoring.points_for(entry["max_points"], sequential, perf["stub_ratio"]))
    return out


def tables(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return {name: NO_RESULTS for name in BLOCKS}
    return {"streams_summary": _summary(results), "streams_scenarios": _scenarios(results),
            "streams_sweep": _sweep(results), "streams_small": _small(results),
            "streams_timelines": _timelines(results)}


# What a bar of each figure spans. Event pairs bracket an operation from when its stream reaches it, so a bar
# includes any wait for a busy engine: two bars of one kind side by side were in flight together, not
# necessarily moving data together. The issue-order kernels time themselves on the GPU's global timer.
EVENT_BARS = "ms since the base event; a bar runs from when its stream reached the operation to its end, waits " \
             "for a busy engine included"
KERNEL_CLOCK_BARS = "ms since the first kernel started; each bar is a kernel's own start and end on the GPU's global timer"


def _plot_timelines(plt, timelines, path, xlabel=EVENT_BARS):
    colors = {"H": "tab:blue", "K": "tab:orange", "D": "tab:green", "C": "tab:purple", "S": "tab:gray"}
    height = sum(len(t["rows"]) for t in timelines) * 0.35 + len(timelines) * 0.6 + 0.5
    fig, axes = plt.subplots(len(timelines), 1, figsize=(10, height), squeeze=False)
    end = max((i["end_ms"] for t in timelines for i in t["intervals"]), default=1.0)
    for ax, t in zip(axes[:, 0], timelines):
        for kind, color in colors.items():
            for row in range(len(t["rows"])):
                bars = [(i["start_ms"], i["end_ms"] - i["start_ms"]) for i in t["intervals"]
                        if i["row"] == row and i["kind"] == kind]
                if bars:
                    ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=color, edgecolor="white", linewidth=0.3)
        ax.set_yticks(range(len(t["rows"])), t["rows"], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, end * 1.02)
        ax.set_title(t["name"], fontsize=9, loc="left")
    names = {"H": "H: copy in", "K": "K: kernel", "D": "D: copy out", "C": "C: host function", "S": "S: spin"}
    shown = {i["kind"] for t in timelines for i in t["intervals"]}
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[k]) for k in colors if k in shown]
    fig.legend(handles, [names[k] for k in colors if k in shown], loc="upper right", ncol=len(handles), fontsize=8)
    axes[-1, 0].set_xlabel(xlabel, fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / height))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plots(results: dict[str, dict], out_dir: pathlib.Path) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = pathlib.Path(out_dir)
    written = []
    for slug in sorted(results):
        doc = results[slug]
        sweep = doc.get("extra", {}).get("sweep", [])
        if sweep:
            fig, ax = plt.subplots(figsize=(7, 4))
            n = [p["chunks"] for p in sweep]
            ax.plot(n, [p["measured_ms"] for p in sweep], "o-", label="measured")
            ax.plot(n, [p["model_ms"] for p in sweep], "s--", label="model T(N)")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("chunks N")
            ax.set_ylabel("pipeline time (ms)")
            ax.set_title(f"Chunked H2D -> kernel -> D2H, {_device(doc)}")
            ax.legend()
            ax.grid(True, alpha=0.3)
            fig.tight_layout()
            name = f"06_streams_sweep_{slug}.png"
            fig.savefig(out_dir / name, dpi=110)
            plt.close(fig)
            written.append(name)
        by_name = {t["name"]: t for t in doc.get("extra", {}).get("timelines", [])}
        for name, names in _timeline_figures(doc, slug):
            _plot_timelines(plt, [by_name[n] for n in names], out_dir / name,
                            KERNEL_CLOCK_BARS if "issue_order" in name else EVENT_BARS)
            written.append(name)
    return written
