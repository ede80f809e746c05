"""Concept diagram of chapter 06 (scripts/make_figures.py calls draw()):

- ch06_stream_timeline_diagram.svg: the copy-in (H), kernel (K), copy-out (D) job done once on one stream,
  against the same job cut into N chunks over N streams, as the pipeline model schedules it: each copy
  direction is one engine taking its chunks in turn, the kernel of a chunk starts when its copy-in has
  landed and the previous chunk's kernel has ended, and so on. The bar lengths are the calibration of the
  committed run (results/<gpu>/06_streams.json: H, K and D of the whole buffer, each chunk a 1/N share), and
  the finishing times are checked against the model's formula (src/model.cpp) before anything is drawn.
- ch06_stream_order_diagram.svg: what orders work between streams, on one time axis. Three kernels issued
  in stream A, a default stream and stream B: with blocking A and B and the legacy default stream they run
  one after another; with the per-thread default stream, or with non-blocking A and B, side by side (the
  `default_stream` scenario; its model times in the committed results give the bar lengths, and the drawing
  refuses results whose serial model is not the three kernels end to end). Below, an event as a dependency:
  stream 2 waits (cudaStreamWaitEvent) for the event stream 1 recorded after its copy, and nothing else.
"""
from __future__ import annotations

import json
import pathlib

from diagram_style import SMALL, arrow, box, label, new_diagram, save

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHUNKS = 4  # a point of the committed sweep (N = 4 chunks over 4 streams): few enough bars to read
STAGES = (("H", "copy"), ("K", "kernel"), ("D", "thread"))  # (letter, diagram_style colour)


def _results() -> tuple[str, dict]:
    """(GPU name, results JSON) of the first GPU with committed chapter 06 results."""
    for path in sorted((ROOT / "results").glob("*/06_streams.json")):
        doc = json.loads(path.read_text())
        return doc.get("device", {}).get("name", path.parent.name), doc
    raise SystemExit("diagrams.py: no results/<gpu>/06_streams.json is committed")


def pipeline_model_ms(h: float, k: float, d: float, chunks: int) -> float:
    """src/model.cpp's pipeline_model_ms with two copy engines: the slowest stage sets the pace once the
    pipeline is full."""
    n = chunks
    return (h + k + d) / n + (n - 1) / n * max(h, k, d)


def schedule(h: float, k: float, d: float, chunks: int) -> list[list[tuple[str, float, float]]]:
    """Per chunk (one stream each): [(stage, start, end)] with each stage one engine taking chunks in order."""
    free = {"H": 0.0, "K": 0.0, "D": 0.0}
    length = {"H": h / chunks, "K": k / chunks, "D": d / chunks}
    rows = []
    for _ in range(chunks):
        ready, row = 0.0, []
        for stage, _ in STAGES:
            start = max(ready, free[stage])
            end = start + length[stage]
            free[stage], ready = end, end
            row.append((stage, start, end))
        rows.append(row)
    return rows


def draw(out_dir: pathlib.Path) -> list[str]:
    gpu, doc = _results()
    cal = doc["extra"]["calibration"]
    h, k, d = cal["h2d_ms"], cal["kernel_ms"], cal["d2h_ms"]
    serial = schedule(h, k, d, 1)
    chunked = schedule(h, k, d, CHUNKS)
    end_chunked = chunked[-1][-1][2]
    model = pipeline_model_ms(h, k, d, CHUNKS)
    if abs(end_chunked - model) > 1e-9 * model:
        raise SystemExit(f"diagrams.py: the drawn schedule ends at {end_chunked} ms, the model says {model} ms")
    measured = {p["chunks"]: p["measured_ms"] for p in doc["extra"].get("sweep", [])}

    total = serial[0][-1][2]
    scale = 7.2 / total  # inches per ms
    x0, bar = 1.45, 0.32
    height = 0.45 + 0.5 + 0.55 + CHUNKS * 0.45 + 0.3 + 0.45 + 0.25
    fig, ax = new_diagram(x0 + total * scale + 0.6, height)

    def row(y, ops, chunk_label):
        for stage, start, end in ops:
            kind = dict(STAGES)[stage]
            box(ax, x0 + start * scale, y, (end - start) * scale, bar, f"{stage}{chunk_label}", kind=kind,
                rounded=False, lw=0.8, size=SMALL)

    y = height - 0.45
    label(ax, 0.1, y, f"one stream, the whole buffer: H + K + D = {total:.1f} ms", size=SMALL + 1)
    y -= 0.5
    label(ax, 0.1, y + bar / 2, "stream 0", size=SMALL)
    row(y, serial[0], "")
    y -= 0.55
    seen = measured.get(CHUNKS)
    label(ax, 0.1, y, f"{CHUNKS} chunks on {CHUNKS} streams: the model's T({CHUNKS}) = {model:.1f} ms"
          + (f" (measured {seen:.1f} ms)" if seen is not None else ""), size=SMALL + 1)
    for c, ops in enumerate(chunked):
        y -= 0.45
        label(ax, 0.1, y + bar / 2, f"stream {c}", size=SMALL)
        row(y, ops, str(c))
    # A time axis in ms under the bars.
    y -= 0.3
    ax.plot([x0, x0 + total * scale], [y, y], color="#444444", lw=0.8)
    step = 2.0 if total > 8 else 1.0
    t = 0.0
    while t <= total + 1e-9:
        ax.plot([x0 + t * scale] * 2, [y - 0.04, y + 0.04], color="#444444", lw=0.8)
        label(ax, x0 + t * scale, y - 0.16, f"{t:g}", ha="center", size=SMALL)
        t += step
    label(ax, x0 + total * scale + 0.1, y, "ms", size=SMALL)
    label(ax, x0, y - 0.45, f"H: copy in, K: kernel, D: copy out; lengths from the calibration of the committed run on the "
          f"{gpu}", size=SMALL)
    return [save(fig, out_dir, "ch06_stream_timeline_diagram.svg"), draw_stream_order(out_dir, doc)]


def _default_stream_models(doc: dict) -> tuple[float, float]:
    """(one kernel's ms, the serialised run's ms) from the model column of the `default_stream` rows."""
    rows = {r["variant"]: r for r in doc.get("rows", []) if r.get("scenario") == "default_stream"}
    try:
        serial = rows["blocking A/B + legacy default"]["model_ms"]
        one = rows["blocking A/B + per-thread default"]["model_ms"]
    except KeyError as missing:
        raise SystemExit(f"diagrams.py: the committed default_stream rows lack {missing}")
    if abs(serial - 3 * one) > 1e-9 * serial:
        raise SystemExit(f"diagrams.py: the serialised model ({serial} ms) is not three kernels of {one} ms end to end")
    return one, serial


def draw_stream_order(out_dir: pathlib.Path, doc: dict) -> str:
    t, serial = _default_stream_models(doc)
    scale = 5.4 / serial  # inches per ms
    x0, bar, step = 2.35, 0.3, 0.42
    height = 0.4 + 3 * step + 0.55 + 3 * step + 0.55 + 2 * step + 0.75
    fig, ax = new_diagram(x0 + serial * scale + 3.3, height)

    def kernel(y, start, text, kind="kernel"):
        box(ax, x0 + start * scale, y, t * scale, bar, text, kind=kind, rounded=False, lw=0.8, size=SMALL)

    def rows(y, names):
        out = []
        for name in names:
            label(ax, 0.1, y + bar / 2, name, size=SMALL)
            out.append(y)
            y -= step
        return out

    names = ("stream A (blocking)", "legacy default stream", "stream B (blocking)")
    y = height - 0.35
    label(ax, 0.1, y, "Blocking streams A and B, one kernel in the legacy default stream between them: "
          f"{serial:g} ms", size=SMALL + 1)
    ya, yd, yb = rows(y - 0.45, names)
    kernel(ya, 0, "A")
    kernel(yd, t, "default")
    kernel(yb, 2 * t, "B")
    arrow(ax, (x0 + t * scale, ya), (x0 + t * scale + 0.02, yd + bar), kind="neutral", lw=0.8)
    arrow(ax, (x0 + 2 * t * scale, yd), (x0 + 2 * t * scale + 0.02, yb + bar), kind="neutral", lw=0.8)
    label(ax, x0 + 0.05, yb + bar / 2, "default waits for A, B waits for default", size=SMALL)

    y = yb - 0.45
    label(ax, 0.1, y, f"The per-thread default stream, or non-blocking A and B: {t:g} ms", size=SMALL + 1)
    ya, yd, yb = rows(y - 0.45, ("stream A", "default stream", "stream B"))
    for row, text in ((ya, "A"), (yd, "default"), (yb, "B")):
        kernel(row, 0, text)

    y = yb - 0.45
    label(ax, 0.1, y, "An event as a dependency: stream 2 waits for stream 1's copy, and for nothing else",
          size=SMALL + 1)
    y1, y2 = rows(y - 0.45, ("stream 1", "stream 2"))
    kernel(y1, 0, "H: copy in", kind="copy")
    kernel(y1, t, "K (stream 1)")
    kernel(y2, 0, "other work")
    kernel(y2, t, "K (stream 2)")
    ex = x0 + t * scale
    ax.plot([ex, ex], [y1 - 0.05, y1 + bar + 0.05], color="#d55e00", lw=2)
    label(ax, x0 + 2 * t * scale + 0.1, y1 + bar / 2, "orange mark: event e, cudaEventRecord(e, stream 1) after H", size=SMALL)
    arrow(ax, (ex, y1 - 0.05), (ex + 0.02, y2 + bar), kind="conflict", lw=1.0)
    label(ax, x0 + 2 * t * scale + 0.1, y2 + bar / 2, "K (stream 2) issued after cudaStreamWaitEvent(stream 2, e)", size=SMALL)
    # A time axis in ms under the bars.
    y = y2 - 0.25
    ax.plot([x0, x0 + serial * scale], [y, y], color="#444444", lw=0.8)
    for k in range(4):
        ax.plot([x0 + k * t * scale] * 2, [y - 0.04, y + 0.04], color="#444444", lw=0.8)
        label(ax, x0 + k * t * scale, y - 0.16, f"{k * t:g}", ha="center", size=SMALL)
    label(ax, x0 + serial * scale + 0.1, y, "ms", size=SMALL)
    label(ax, 0.1, y - 0.42, "Bar lengths: the default_stream scenario's model (spin kernels of equal length); the "
          "arrows are waits the streams' order imposes", size=SMALL)
    return save(fig, out_dir, "ch06_stream_order_diagram.svg")
