"""Concept diagrams of chapter 02 (scripts/make_figures.py calls draw()):

- ch02_copy_paths_diagram.svg: a host → device copy from pageable memory (the CPU copies it into the
  driver's pinned staging buffer, chunk by chunk, and a copy engine moves each chunk over PCIe by DMA)
  against one from pinned memory (the copy engine reads the user's buffer directly). The chapter's
  HostBuffer kinds (src/copies.cuh) are the two ends.
- ch02_warp_access_diagram.svg: which int4 each thread copies on each trip of a grid-stride loop, for a toy
  grid, in the two mappings of exercise 02.1's contract (src/grid_stride_map.hpp): the coalesced one, where
  neighbouring threads take neighbouring int4s, and the handout's chunked one, where each thread takes a
  contiguous run of its own. The facts it uses are the code's: 16-byte int4s, 128-byte lines, and the
  warp size the CUDA runtime reports (cudaDeviceProp::warpSize, the width grid_stride_map.hpp's warp_size
  stands for), as a program wrote it on the measured GPU: the committed kernel listings
  results/<gpu>/07_multigpu_fd.variants.json ("extra" -> "sm" -> "warp_size"), never the C++ text.
"""
from __future__ import annotations

import json
import pathlib

from diagram_style import SMALL, arrow, box, edge, label, legend, new_diagram, save

CHAPTER = pathlib.Path(__file__).resolve().parent
INT4_BYTES = 16
LINE_BYTES = 128


# Where a program wrote the runtime's warp size: wave_fd --list-variants records the device's limits.
RESULTS = CHAPTER.parent / "results"
LISTING = "07_multigpu_fd.variants.json"


def _warp_size() -> int:
    """cudaDeviceProp::warpSize as the committed listings recorded it; they must agree."""
    found = {}
    for path in sorted(RESULTS.glob(f"*/{LISTING}")):
        warp = json.loads(path.read_text()).get("extra", {}).get("sm", {}).get("warp_size")
        if not isinstance(warp, int) or isinstance(warp, bool) or warp < 1:
            raise SystemExit(f"diagrams.py: {path.relative_to(CHAPTER.parent)} lists no warp size (extra.sm.warp_size)")
        found[path.parent.name] = warp
    if len(set(found.values())) != 1:
        raise SystemExit(f"diagrams.py: need one warp size from results/<gpu>/{LISTING}, found {found or 'none'}")
    return next(iter(found.values()))


def _copy_paths(out_dir: pathlib.Path) -> str:
    fig, ax = new_diagram(9.4, 4.3)
    label(ax, 0.15, 4.05, "pageable memory (malloc): two copies in a pipeline", size=SMALL + 2)
    y = 2.75
    box(ax, 0.15, y, 1.9, 0.9, "your buffer\n(pageable)", kind="host_memory")
    box(ax, 3.05, y, 1.9, 0.9, "driver's staging\nbuffer (pinned)", kind="host_memory")
    box(ax, 7.3, y, 1.9, 0.9, "device memory\n(HBM)", kind="hbm")
    arrow(ax, (2.1, y + 0.45), (3.0, y + 0.45), "CPU memcpy", kind="host", size=SMALL)
    box(ax, 5.45, y + 0.2, 1.35, 0.5, "copy engine", kind="copy", size=SMALL)
    arrow(ax, (5.0, y + 0.45), (5.4, y + 0.45), kind="copy")
    arrow(ax, (6.85, y + 0.45), (7.25, y + 0.45), "DMA over PCIe", kind="copy", size=SMALL, text_offset=(-0.2, 0.3))
    label(ax, 0.15, y - 0.3, "chunk by chunk: the CPU fills one chunk while the engine moves the previous one; "
          "the slower of the two copies, and each hand-over, set the pace", size=SMALL)

    label(ax, 0.15, 1.75, "pinned memory (cudaHostAlloc, cudaHostRegister): one copy", size=SMALL + 2)
    y = 0.45
    box(ax, 0.15, y, 1.9, 0.9, "your buffer\n(pinned)", kind="host_memory")
    box(ax, 7.3, y, 1.9, 0.9, "device memory\n(HBM)", kind="hbm")
    box(ax, 5.45, y + 0.2, 1.35, 0.5, "copy engine", kind="copy", size=SMALL)
    arrow(ax, (2.1, y + 0.45), (5.4, y + 0.45), "the engine reads your pages directly (they cannot move)",
          kind="copy", size=SMALL)
    arrow(ax, (6.85, y + 0.45), (7.25, y + 0.45), "DMA over PCIe", kind="copy", size=SMALL, text_offset=(-0.2, 0.3))
    label(ax, 0.15, 0.15, "no CPU copy: the link sets the pace", size=SMALL)
    return save(fig, out_dir, "ch02_copy_paths_diagram.svg")


def coalesced_index(block: int, thread: int, trip: int, blocks: int, threads: int) -> int:
    """The grid-stride mapping: trip k covers the k-th window of blocks × threads int4s, block-major."""
    return (trip * blocks + block) * threads + thread


def chunked_index(block: int, thread: int, trip: int, blocks: int, threads: int, n: int) -> int:
    """The handout's mapping: each thread a contiguous chunk of ceil(n / all threads) int4s."""
    chunk = -(-n // (blocks * threads))
    return (block * threads + thread) * chunk + trip if trip < chunk else n


def _row(ax, y, n, owner, blocks, threads, cell, x0, title):
    """A row of n int4 cells, each labelled with the thread (b.t) that copies it and shaded by its trip."""
    label(ax, x0, y + cell + 0.22, title, size=SMALL + 1)
    trip_kind = ("warp", "block", "thread")
    for i in range(n):
        b, t, k = owner[i]
        box(ax, x0 + i * cell, y, cell, cell, f"{b}.{t}", kind=trip_kind[k % len(trip_kind)], rounded=False,
            lw=0.6, size=6.5)
    # 128-byte lines: every LINE_BYTES / INT4_BYTES int4s.
    per_line = LINE_BYTES // INT4_BYTES
    for start in range(0, n, per_line):
        ax.plot([x0 + start * cell, x0 + start * cell], [y - 0.08, y + cell + 0.08], color="#444444", lw=1.2)
    ax.plot([x0 + n * cell, x0 + n * cell], [y - 0.08, y + cell + 0.08], color="#444444", lw=1.2)


def _warp_access(out_dir: pathlib.Path) -> str:
    warp = _warp_size()
    blocks, threads = 2, 8  # a toy grid, small enough to label every cell
    n = 3 * blocks * threads  # three trips of the whole grid
    cell = 0.21
    x0 = 0.2
    fig, ax = new_diagram(x0 + n * cell + 0.3, 3.3)

    coalesced = {}
    chunked = {}
    for b in range(blocks):
        for t in range(threads):
            for k in range(n + 1):
                i = coalesced_index(b, t, k, blocks, threads)
                if i >= n:
                    break
                coalesced[i] = (b, t, k)
            for k in range(n + 1):
                i = chunked_index(b, t, k, blocks, threads, n)
                if i >= n:
                    break
                chunked[i] = (b, t, k)
    if sorted(coalesced) != list(range(n)) or sorted(chunked) != list(range(n)):
        raise SystemExit("diagrams.py: a mapping does not cover every int4 once")

    label(ax, x0, 3.1, f"A toy grid of {blocks} blocks × {threads} threads copying {n} int4s "
          f"(cell b.t: block b, thread t; shade: the trip; thick lines: {LINE_BYTES}-byte lines "
          f"of {LINE_BYTES // INT4_BYTES} int4s)", size=SMALL)
    _row(ax, 2.2, n, coalesced, blocks, threads, cell, x0,
         "coalesced (grid-stride): on each trip, threads 0-7 of a block take 8 neighbouring int4s")
    _row(ax, 1.2, n, chunked, blocks, threads, cell, x0,
         "chunked (one run per thread, the 02.1 handout): on each trip, neighbouring threads are 3 int4s apart")
    label(ax, x0, 0.75, f"With a real warp of {warp} threads: coalesced, one load instruction of a warp reads "
          f"{warp * INT4_BYTES} contiguous bytes ({warp * INT4_BYTES // LINE_BYTES} lines);", size=SMALL)
    label(ax, x0, 0.52, f"chunked, it touches up to {warp} different lines for the same {warp * INT4_BYTES} "
          "useful bytes.", size=SMALL)
    legend(ax, x0, 0.2, [("warp", "trip 0")], size=SMALL)
    legend(ax, x0 + 1.1, 0.2, [("block", "trip 1")], size=SMALL)
    legend(ax, x0 + 2.2, 0.2, [("thread", "trip 2")], size=SMALL)
    return save(fig, out_dir, "ch02_warp_access_diagram.svg")


def draw(out_dir: pathlib.Path) -> list[str]:
    out_dir = pathlib.Path(out_dir)
    return [_copy_paths(out_dir), _warp_access(out_dir)]
