"""Chapter 03's concept diagram: the neighbored pair tree, and which lanes of which warps are busy at each
stride under the two rules of the chapter's code.

The two rules are the code's (`neighbored_slot` in src/neighbored.cu, `neighbored_less_slot` in
src/neighbored_less_slot.cuh), restated here in Python in one line each, as the CPU tests state them; the
block size is the one the committed results were measured with (results/<gpu>/03_reduce_divergence.json).
"""
from __future__ import annotations

import json
import pathlib

from diagram_style import SMALL, arrow, box, label, legend, new_diagram, save

ROOT = pathlib.Path(__file__).resolve().parents[1]
WARP = 32  # lanes per warp, every NVIDIA GPU so far


def neighbored_slot(tid: int, stride: int, block: int) -> int:
    """The book's rule (neighbored_slot): thread tid adds when it is a multiple of 2·stride."""
    return tid if tid % (2 * stride) == 0 else -1


def neighbored_less_slot(tid: int, stride: int, block: int) -> int:
    """The rule without divergence (neighbored_less_slot, exercise 03.1): pair k goes to thread k."""
    slot = 2 * stride * tid
    return slot if slot < block else -1


RULES = (("the book's rule: tid % (2·stride) == 0", neighbored_slot),
         ("neighbored_less: pair k to thread k", neighbored_less_slot))


def measured_block() -> int:
    """The block size of the committed results (the first GPU's file, as figures.py quotes it)."""
    files = sorted(ROOT.glob("results/*/03_reduce_divergence.json"))
    return json.loads(files[0].read_text())["config"]["block"] if files else 512


def strides(block: int) -> list[int]:
    out, s = [], 1
    while s < block:
        out.append(s)
        s *= 2
    return out


def draw_tree(ax, x0: float, y_top: float, slots: int = 16) -> None:
    """The pair tree of a 16-slot block: at each stride, s[slot] += s[slot + stride] for the slots the rule
    names; the threads that do it under each rule are listed at the right."""
    w, gap, row = 0.42, 0.06, 0.62
    label(ax, x0, y_top + 0.35, f"The neighbored pair tree, {slots} slots (one block's shared memory)", size=11,
          weight="bold")
    for i in range(slots):
        box(ax, x0 + i * (w + gap), y_top - 0.3, w, 0.3, f"s{i}", kind="shared", size=SMALL, rounded=False)
    for step, stride in enumerate(strides(slots), start=1):
        y = y_top - step * row
        writers = {neighbored_slot(t, stride, slots) for t in range(slots)} - {-1}
        for i in range(slots):
            kind = "active" if i in writers else "idle"
            box(ax, x0 + i * (w + gap), y - 0.3, w, 0.3, "", kind=kind, rounded=False, lw=0.8)
        for slot in sorted(writers):
            src = x0 + (slot + stride) * (w + gap) + w / 2
            dst = x0 + slot * (w + gap) + w / 2
            arrow(ax, (src, y + row - 0.3), (dst, y), kind="block", lw=0.9, curve=0.0)
        book = [t for t in range(slots) if neighbored_slot(t, stride, slots) >= 0]
        less = [t for t in range(slots) if neighbored_less_slot(t, stride, slots) >= 0]
        right = x0 + slots * (w + gap) + 0.1
        label(ax, right, y - 0.06, f"stride {stride}: the book's rule, threads {fmt(book)}", size=SMALL)
        label(ax, right, y - 0.26, f"{' ' * 12}pair k to thread k, threads {fmt(less)}", size=SMALL)


def fmt(threads: list[int]) -> str:
    return ", ".join(map(str, threads)) if len(threads) <= 4 else f"{threads[0]}, {threads[1]}, …, {threads[-1]}"


def draw_warp_map(ax, x0: float, y_top: float, block: int, title: str, rule) -> None:
    """One cell per warp (columns) and per stride (rows): how many of its 32 lanes are busy. A warp with
    some lanes busy and some idle runs the branch with the idle lanes masked: divergence."""
    warps = block // WARP
    cw, ch = min(0.3, 4.6 / warps), 0.27
    label(ax, x0, y_top + 0.25, title, size=10, weight="bold")
    for w in range(warps):
        if w % 4 == 0 or w == warps - 1:
            label(ax, x0 + w * cw + cw / 2, y_top + 0.02, str(w), size=6.5, ha="center")
    split_total = 0
    for r, stride in enumerate(strides(block)):
        y = y_top - (r + 1) * ch
        label(ax, x0 - 0.08, y + ch / 2, str(stride), size=SMALL, ha="right")
        split = 0
        for w in range(warps):
            busy = sum(rule(t, stride, block) >= 0 for t in range(w * WARP, (w + 1) * WARP))
            kind = "idle" if busy == 0 else "active" if busy == WARP else "conflict"
            split += kind == "conflict"
            box(ax, x0 + w * cw, y, cw, ch, "" if busy in (0, WARP) else str(busy), kind=kind, rounded=False,
                lw=0.6, size=6)
        split_total += split
        label(ax, x0 + warps * cw + 0.08, y + ch / 2, f"{split} split", size=6.5)
    label(ax, x0 - 0.55, y_top - ch * len(strides(block)) / 2, "stride", size=SMALL, rotation=90, ha="center")
    label(ax, x0 + warps * cw / 2, y_top - ch * len(strides(block)) - 0.22,
          f"warp 0 … {warps - 1} of a block of {block}  (split warps over all steps: {split_total})",
          size=SMALL, ha="center")


def draw(out_dir: pathlib.Path) -> list[str]:
    block = measured_block()
    fig, ax = new_diagram(12.5, 7.6)
    draw_tree(ax, 0.3, 6.9)
    label(ax, 0.3, 3.75, f"Busy lanes per warp at each stride, block of {block} (the committed runs' block): "
                         "a number is a split warp, which runs the addition with its idle lanes masked off",
          size=10)
    for i, (title, rule) in enumerate(RULES):
        draw_warp_map(ax, 1.0 + i * 6.1, 3.2, block, title, rule)
    for i, (kind, text) in enumerate((("active", "all 32 lanes busy"),
                                      ("conflict", "split: some lanes busy (divergence)"),
                                      ("idle", "all lanes idle: the warp skips the addition"))):
        legend(ax, 1.0 + 3.6 * i, 0.3, [(kind, text)])
    return [save(fig, out_dir, "ch03_divergent_warp_diagram.svg")]
