"""Concept diagram of chapter 06 (scripts/make_figures.py calls draw()):

- ch06_stream_timeline_diagram.svg: the copy-in (H), kernel (K), copy-out (D) job done once on one stream,
  against the same job cut into N chunks over N streams, as the pipeline model schedules it: each copy
  direction is one engine taking its chunks in turn, the kernel of a chunk starts when its copy-in has
  landed and the previous chunk's kernel has ended, and so on. The bar lengths are the calibration of the
  committed run (results/<gpu>/06_streams.json: H, K and D of the whole buffer, each chunk a 1/N share), and
  the finishing times are checked against the model's formula (src/model.cpp) before anything is drawn.
"""
from __future__ import annotations

import json
import pathlib

from diagram_style import SMALL, box, label, new_diagram, save

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
    return [save(fig, out_dir, "ch06_stream_timeline_diagram.svg")]
