"""Chapter 05's concept diagrams.

- ch05_warp_shuffle_diagram.svg: the last warp's tree, as `warp_sum` (reduce_ladder/include/reduce_ladder/
  device.cuh) runs it with `__shfl_down_sync`: offsets 16, 8, 4, 2, 1, lane i adding lane i + offset.
  `warp_tail` (src/warp_tail.cuh, exercise 05.2) runs the same tree in shared memory with one step more
  (offset 32, 64 partials).
- ch05_syncwarp_diagram.svg: `__syncwarp(mask)` in one step of `warp_tail` (exercise 05.2): the mask's 32 bits,
  one per lane, and the two barriers that keep every named lane's read of s[lane + offset] before any lane's
  write of s[lane], and that write before the next step's reads. Lanes 0 and 16 at offset 16 are the race
  the lesson names (lane 0 reads s[16], lane 16 writes it).
- ch05_block_waves_diagram.svg: how a grid of blocks lands on the SMs in waves, with a partly empty last
  wave (the tail), for a two-pass unroll rung and for the persistent grid. The SM count, the grids and the
  block size come from the committed results (results/<gpu>/05_reduce_unroll.json, through figures.py's
  wave_shape); nothing is typed here but the warp's 32 lanes.
"""
from __future__ import annotations

import json
import pathlib
import runpy

from diagram_style import FONT_SIZE, SMALL, arrow, box, label, legend, new_diagram, save

CHAPTER = pathlib.Path(__file__).resolve().parent
ROOT = CHAPTER.parent
WARP = 32


def shuffle_offsets() -> list[int]:
    """warp_sum's loop: for (offset = 16; offset > 0; offset /= 2)."""
    out, offset = [], WARP // 2
    while offset > 0:
        out.append(offset)
        offset //= 2
    return out


def draw_shuffle(out_dir: pathlib.Path) -> str:
    cw, row = 0.3, 0.62
    offsets = shuffle_offsets()
    fig, ax = new_diagram(12.0, 1.5 + row * (len(offsets) + 1))
    top = 0.75 + row * (len(offsets) + 1)
    label(ax, 0.3, top + 0.3, "The last warp's tree through registers: value += __shfl_down_sync(0xffffffff, value, "
                              "offset)", size=11, weight="bold")
    x0 = 1.0
    for lane in range(WARP):
        box(ax, x0 + lane * cw, top - 0.28, cw - 0.04, 0.28, str(lane), kind="register", size=6.5, rounded=False)
    label(ax, x0 - 0.1, top - 0.14, "lane", size=SMALL, ha="right")
    live = WARP
    for step, offset in enumerate(offsets, start=1):
        y = top - step * row
        live //= 2
        for lane in range(WARP):
            kind = "active" if lane < offset else "idle"
            box(ax, x0 + lane * cw, y - 0.28, cw - 0.04, 0.28, "", kind=kind, rounded=False, lw=0.6)
        for lane in range(offset):
            arrow(ax, (x0 + (lane + offset) * cw + cw / 2 - 0.02, y + row - 0.28), (x0 + lane * cw + cw / 2 - 0.02, y),
                  kind="warp", lw=0.7)
        label(ax, x0 - 0.1, y - 0.14, f"offset {offset}", size=SMALL, ha="right")
        label(ax, x0 + WARP * cw + 0.1, y - 0.14, f"{live} live value{'s' if live > 1 else ''}", size=SMALL)
    label(ax, 0.3, 0.45, "Every lane executes every step (the sums of the grey lanes are not used); no shared memory, "
                         "no barrier.", size=SMALL)
    label(ax, 0.3, 0.2, "warp_tail (exercise 05.2) runs the same tree in shared memory, with a first step at offset 32 "
                        "and __syncwarp() between each step's reads and its writes.", size=SMALL)
    return save(fig, out_dir, "ch05_warp_shuffle_diagram.svg")


def draw_syncwarp(out_dir: pathlib.Path) -> str:
    fig, ax = new_diagram(12.0, 5.2)
    label(ax, 0.3, 4.95, "__syncwarp(mask): a barrier for the lanes of one warp that the mask names",
          size=11, weight="bold")
    # The mask: bit i names lane i.
    x0, cw = 1.6, 0.26
    label(ax, x0 - 0.1, 4.45, "mask bits", size=SMALL, ha="right")
    for lane in range(WARP):
        bit = WARP - 1 - lane  # bit 31 on the left, as the number is written
        box(ax, x0 + lane * cw, 4.3, cw - 0.04, 0.28, "1", kind="warp", size=7, rounded=False, lw=0.6)
        if bit in (31, 16, 0):
            label(ax, x0 + lane * cw + cw / 2 - 0.02, 4.15, f"lane {bit}", size=6.5, ha="center")
    label(ax, x0 + WARP * cw + 0.1, 4.45, "0xffffffff:\nall 32 lanes", size=SMALL)
    # One step of warp_tail at offset 16, four of the 32 lanes drawn.
    lanes = (0, 1, 16, 31)
    col = 2.6
    phases = (("value += s[lane + 16]", "active", 3.3), ("__syncwarp(0xffffffff)", None, 2.65),
              ("s[lane] = value", "copy", 2.0), ("__syncwarp(0xffffffff)", None, 1.35))
    for i, lane in enumerate(lanes):
        x = x0 + i * col
        label(ax, x + 1.0, 3.8, f"lane {lane}", size=FONT_SIZE - 1, ha="center")
        for text, kind, y in phases:
            if kind:
                box(ax, x, y, 2.0, 0.4, text.replace("lane", str(lane)), kind=kind, size=SMALL)
    for text, kind, y in phases:
        if not kind:  # the barrier: one bar across every lane it names
            box(ax, x0 - 0.05, y + 0.05, len(lanes) * col - 0.5, 0.3, text + ": no named lane passes until every "
                "named lane has arrived", kind="conflict", size=SMALL, rounded=False, lw=0.8)
    label(ax, x0 - 0.1, 3.5, "read", size=SMALL, ha="right")
    label(ax, x0 - 0.1, 2.2, "write", size=SMALL, ha="right")
    # The race the first barrier removes: lane 0 reads s[16], lane 16 writes s[16].
    arrow(ax, (x0 + 1.7, 3.3), (x0 + 2 * col + 0.3, 2.4), "", kind="conflict", curve=0.15)
    label(ax, x0 + col + 1.0, 3.12, "lane 0 has read s[16] before lane 16 writes it", size=SMALL, ha="center")
    label(ax, 0.3, 0.85, "Every lane named in the mask must call the same __syncwarp with the same mask; a named lane "
                         "that skips it (inside an if some lanes do not enter) is an error.", size=SMALL)
    label(ax, 0.3, 0.55, "Without the barriers nothing orders lane 16's write of s[16] against lane 0's read of it: "
                         "since Volta the lanes of a warp are scheduled independently.", size=SMALL)
    label(ax, 0.3, 0.25, "warp_tail repeats this step at offsets 32, 16, 8, 4, 2, 1; lane 0 ends with the sum "
                         "(exercise 05.2 writes it).", size=SMALL)
    return save(fig, out_dir, "ch05_syncwarp_diagram.svg")


def first_results() -> dict:
    """The first GPU's results of this chapter, as figures.py quotes them."""
    files = sorted(ROOT.glob("results/*/05_reduce_unroll.json"))
    return json.loads(files[0].read_text())


def draw_waves(out_dir: pathlib.Path) -> str:
    figures = runpy.run_path(str(CHAPTER / "figures.py"))
    doc = first_results()
    big = figures["ladder"].SIZES[0]
    shapes = [figures["wave_shape"](doc, kernel, big) for kernel in figures["WAVE_RUNGS"]]
    sm_count = shapes[0]["sm_count"]
    sw = min(0.075, 10.0 / sm_count)  # one SM's column
    slot_h = 0.07
    heights = [(s["full"] + (1 if s["tail"] else 0)) * (s["per_sm"] * slot_h + 0.08) for s in shapes]
    fig, ax = new_diagram(12.0, 1.2 + sum(heights) + 1.0 * len(shapes))
    x0 = 1.2
    y = 0.6 + sum(heights) + 1.0 * len(shapes)
    label(ax, 0.3, y + 0.25, f"Block waves on {sm_count} SMs, n = {figures['ladder'].size_label(big)} ints "
                             "(one column per SM, one small box per resident block)", size=11, weight="bold")
    for shape in shapes:
        y -= 0.55
        per_sm, wave = shape["per_sm"], shape["wave"]
        label(ax, 0.3, y + 0.12, f"{shape['kernel']}: {shape['grid']:,} blocks of {shape['block']} threads; "
                                 f"{per_sm} fit an SM at once ({wave:,} on the GPU: one wave) → "
                                 f"{shape['full']} full wave{'s' if shape['full'] != 1 else ''}"
                                 + (f" + a tail of {shape['tail']:,} blocks" if shape["tail"] else ", no tail"),
              size=10)
        waves = shape["full"] + (1 if shape["tail"] else 0)
        for w in range(waves):
            y -= per_sm * slot_h + 0.08
            filled = wave if w < shape["full"] else shape["tail"]
            for k in range(per_sm):
                # Round-robin over the SMs: which SM gets which block is the scheduler's choice; the count
                # of filled slots is what the model says. Row k of this wave is filled on SMs 0 .. m-1.
                m = max(0, min(sm_count, filled - k * sm_count))
                if m:
                    box(ax, x0, y + k * slot_h, m * sw, slot_h, kind="block", rounded=False, lw=0.3)
                if m < sm_count:
                    box(ax, x0 + m * sw, y + k * slot_h, (sm_count - m) * sw, slot_h, kind="conflict",
                        rounded=False, lw=0.3)
            ax.vlines([x0 + sm * sw for sm in range(1, sm_count)], y, y + per_sm * slot_h, colors="white",
                      linewidth=0.3)
            label(ax, x0 - 0.1, y + per_sm * slot_h / 2, f"wave {w + 1}", size=6.5, ha="right")
            if w == waves - 1 and shape["tail"]:
                label(ax, x0 + sm_count * sw + 0.1, y + per_sm * slot_h / 2,
                      f"tail: {wave - shape['tail']:,} of {wave:,}\nslots idle", size=6.5)
        if not shape["tail"]:
            label(ax, x0, y - 0.2, "each block then walks the array in a grid-stride loop: no second wave, no tail",
                  size=SMALL)
        y -= 0.45
    label(ax, 0.3, 0.6 + sum(heights) / 2 + 0.5, "time ↓", size=SMALL)
    legend(ax, x0, 0.3, [("block", "a resident block")])
    legend(ax, x0 + 3.0, 0.3, [("conflict", "a slot left empty in the last wave (the tail)")])
    return save(fig, out_dir, "ch05_block_waves_diagram.svg")


def draw(out_dir: pathlib.Path) -> list[str]:
    return [draw_shuffle(out_dir), draw_syncwarp(out_dir), draw_waves(out_dir)]
