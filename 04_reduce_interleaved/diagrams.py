"""Chapter 04's concept diagrams: the interleaved (sequential-addressing) pair tree, and a shared-memory bank
conflict: which lanes of a warp hit which of the 32 four-byte banks, for chapter 03's `neighbored_less` and
this chapter's `interleaved` reads.

The pair rules and the bank model are the code's (`interleaved_pair` in src/interleaved_pair.cuh,
`neighbored_less_slot` in chapter 03, `shared_wavefronts` in src/bank_model.cpp), restated here in Python as
the CPU tests state them. The sums are 8 bytes wide: the int rungs accumulate in `long long`
(reduce_ladder/include/reduce_ladder/device.cuh, accumulator_t).
"""
from __future__ import annotations

import pathlib

from diagram_style import SMALL, arrow, box, label, legend, new_diagram, save

WARP = 32       # lanes per warp
BANKS = 32      # shared memory: 32 banks ...
BANK_BYTES = 4  # ... of 4-byte words
SUM_BYTES = 8   # long long: the int rungs' accumulator


def interleaved_pair(tid: int, stride: int) -> tuple[int, int]:
    """interleaved_pair (exercise 04.1): thread tid < stride adds s[tid + stride] into s[tid]."""
    return (tid, tid + stride) if tid < stride else (-1, -1)


def words_by_bank(slots: list[int], element_bytes: int) -> dict[int, dict[int, list[int]]]:
    """bank -> {word -> lanes reading it}: the words each bank must deliver (the model of shared_wavefronts:
    an access needs as many wavefronts as its busiest bank has distinct words)."""
    per = element_bytes // BANK_BYTES
    out: dict[int, dict[int, list[int]]] = {b: {} for b in range(BANKS)}
    for lane, slot in enumerate(slots):
        for part in range(per):
            word = slot * per + part
            out[word % BANKS].setdefault(word, []).append(lane)
    return out


def wavefronts(slots: list[int], element_bytes: int) -> int:
    return max(len(words) for words in words_by_bank(slots, element_bytes).values())


def draw_tree(ax, x0: float, y_top: float, slots: int = 16) -> None:
    w, gap, row = 0.42, 0.06, 0.62
    label(ax, x0, y_top + 0.35, f"The interleaved pair tree, {slots} slots: the upper half folds onto the lower half",
          size=11, weight="bold")
    for i in range(slots):
        box(ax, x0 + i * (w + gap), y_top - 0.3, w, 0.3, f"s{i}", kind="shared", size=SMALL, rounded=False)
    stride, step = slots // 2, 1
    while stride >= 1:
        y = y_top - step * row
        pairs = [interleaved_pair(t, stride) for t in range(slots)]
        busy = [t for t, (dst, _) in enumerate(pairs) if dst >= 0]
        for i in range(slots):
            box(ax, x0 + i * (w + gap), y - 0.3, w, 0.3, "", kind="active" if i in busy else "idle", rounded=False,
                lw=0.8)
        for dst, src in (pairs[t] for t in busy):
            arrow(ax, (x0 + src * (w + gap) + w / 2, y + row - 0.3), (x0 + dst * (w + gap) + w / 2, y), kind="block",
                  lw=0.9)
        text = (f"threads 0 … {stride - 1} busy, reading s[{stride}] … s[{2 * stride - 1}]: consecutive" if stride > 1
                else "thread 0 busy, reading s[1]")
        label(ax, x0 + slots * (w + gap) + 0.1, y - 0.15, f"stride {stride}: {text}", size=SMALL)
        stride //= 2
        step += 1


def draw_banks(ax, x0: float, y_top: float, title: str, slots: list[int]) -> None:
    """One warp's read: a column per bank, one box per distinct word the bank must deliver (labelled with the
    lanes reading it), stacked: the height of the tallest stack is the number of wavefronts."""
    cw, ch = 0.33, 0.27
    need = wavefronts(slots, SUM_BYTES)
    minimum = len(slots) * SUM_BYTES // (BANKS * BANK_BYTES)
    label(ax, x0, y_top + 0.25, f"{title}: {need} wavefronts (the minimum for 32 lanes × {SUM_BYTES} bytes is "
                                f"{minimum})", size=10, weight="bold")
    for b in range(BANKS):
        label(ax, x0 + b * cw + cw / 2, y_top + 0.02, str(b), size=6, ha="center")
    for b, words in words_by_bank(slots, SUM_BYTES).items():
        for level, (word, lanes) in enumerate(sorted(words.items())):
            kind = "conflict" if len(words) > minimum else "active"
            text = "l" + ",".join(map(str, lanes))
            box(ax, x0 + b * cw, y_top - (level + 1) * ch, cw, ch, text, kind=kind, rounded=False, lw=0.6, size=5.5)
    label(ax, x0 - 0.1, y_top - 0.1, "bank", size=SMALL, ha="right")
    label(ax, x0 - 0.1, y_top - need * ch / 2 - 0.05, "words\nper bank", size=6.5, ha="right")


def draw(out_dir: pathlib.Path) -> list[str]:
    fig, ax = new_diagram(12.5, 8.4)
    draw_tree(ax, 0.3, 7.7)
    label(ax, 0.3, 4.5, f"One warp's read of {SUM_BYTES}-byte sums: shared memory is {BANKS} banks of {BANK_BYTES} bytes; "
                        "word w lies in bank w mod 32; a bank delivers one word per wavefront", size=10)
    stride = 1
    less = [2 * stride * lane + stride for lane in range(WARP)]  # neighbored_less reads s[slot + stride]
    draw_banks(ax, 1.2, 3.85, f"chapter 03's neighbored_less, stride {stride} (lane l reads s[2l + 1])", less)
    stride = 32
    inter = [interleaved_pair(lane, stride)[1] for lane in range(WARP)]
    draw_banks(ax, 1.2, 1.65, f"interleaved, stride {stride} (lane l reads s[l + {stride}])", inter)
    for i, (kind, text) in enumerate((("conflict", "a bank with more words than the minimum: extra wavefronts"),
                                      ("active", "as few words per bank as the access allows"))):
        legend(ax, 1.2 + 5.4 * i, 0.2, [(kind, text)])
    return [save(fig, out_dir, "ch04_interleaved_banks_diagram.svg")]
