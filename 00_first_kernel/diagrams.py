"""Chapter 00's concept diagrams: the thread hierarchy (grid -> blocks -> warps -> threads, blocks onto
SMs), a warp's coalesced and strided loads, and the shared-memory tile of the transpose.

The facts are the code's: the 1-D block of the committed run and its stride (results/<gpu>/00_first_kernel.json
config; the program's defaults, 256 threads and 32 floats, when there is no run yet), the tile (tile_dim = 32 in
src/first_kernel.hpp, one padding column in the solution of exercise 00.3) and the SM count of the GPU of the
committed results of chapter 02 (results/h100/02_bandwidth.latency.json), where this chapter's own run is absent.
"""
from __future__ import annotations

import json
import pathlib

from diagram_style import SMALL, arrow, box, label, legend, new_diagram, save

ROOT = pathlib.Path(__file__).resolve().parents[1]
WARP = 32        # threads per warp, every NVIDIA GPU so far
TILE = 32        # tile_dim in src/first_kernel.hpp
SECTOR = 32      # bytes: the unit in which L1 and L2 move global memory
FLOAT = 4        # bytes


def facts() -> dict:
    """block, stride, SM count and GPU name, from the committed results (the first GPU's file)."""
    out = {"block": 256, "stride": 32, "sm_count": None, "gpu": None}
    own = sorted(ROOT.glob("results/*/00_first_kernel.json"))
    if own:
        doc = json.loads(own[0].read_text())
        out.update(block=doc["config"]["block"], stride=doc["config"]["stride"])
        out.update(sm_count=doc["device"]["sm_count"], gpu=doc["device"]["name"])
    else:
        other = ROOT / "results" / "h100" / "02_bandwidth.latency.json"
        if other.is_file():
            doc = json.loads(other.read_text())
            out.update(sm_count=doc["device"]["sm_count"], gpu=doc["device"]["name"])
    return out


def draw_hierarchy(out_dir: pathlib.Path, f: dict) -> str:
    block, sms = f["block"], f["sm_count"] or 132
    warps = block // WARP
    fig, ax = new_diagram(11.0, 5.6)
    label(ax, 0.2, 5.35, "A launch kernel<<<grid, block>>>: the grid of blocks, a block of warps, a warp of threads",
          size=11, weight="bold")

    # The grid: a row of blocks, numbered by blockIdx.x.
    box(ax, 0.2, 3.75, 6.0, 1.25, "", kind="grid", text_at="top")
    label(ax, 0.3, 4.85, "grid: gridDim.x blocks (blocks_for(n, block) of them)", size=SMALL)
    for b in range(6):
        text = f"block {b}" if b < 5 else "..."
        box(ax, 0.35 + b * 0.97, 3.9, 0.85, 0.75, text, kind="block" if b < 5 else "neutral", size=SMALL)
    label(ax, 0.35, 3.62, "blockIdx.x = 0, 1, 2, ... ; every block has the same blockDim.x threads", size=SMALL)

    # One block, opened: its warps.
    box(ax, 0.2, 1.55, 6.0, 1.75, "", kind="block")
    label(ax, 0.3, 3.15, f"block 2: blockDim.x = {block} threads = {warps} warps of {WARP}", size=SMALL)
    arrow(ax, (2.3, 3.9), (2.3, 3.32))
    shown = min(warps, 8)
    for w in range(shown):
        box(ax, 0.35 + w * 0.72, 2.35, 0.62, 0.6, f"warp {w}", kind="warp", size=SMALL)
    label(ax, 0.35, 2.12, f"threadIdx.x 0-31 form warp 0, 32-63 warp 1, ...: a warp runs one instruction for "
          f"all {WARP} threads", size=SMALL)
    label(ax, 0.35, 1.8, "threads of a block can share memory and wait for each other (__syncthreads)", size=SMALL)

    # One warp, opened: its threads (lanes).
    label(ax, 0.3, 1.25, "warp 0: 32 threads (lanes), each with its own registers and its own index i", size=SMALL)
    arrow(ax, (0.65, 2.35), (0.65, 1.05))
    for t in range(WARP):
        box(ax, 0.2 + t * 0.185, 0.55, 0.16, 0.4, "", kind="thread", rounded=False, lw=0.8)
    for t in (0, 1, 31):
        label(ax, 0.28 + t * 0.185, 0.42, str(t), size=7, ha="center")
    label(ax, 0.2, 0.18, "i = blockIdx.x * blockDim.x + threadIdx.x: block 2, thread 5 handles element "
          f"{2 * block + 5}", size=SMALL)

    # The GPU: SMs, each holding a few blocks; blocks are handed out in no promised order.
    box(ax, 6.6, 0.45, 4.2, 4.55, "", kind="grid")
    gpu = f["gpu"] or "the GPU"
    label(ax, 6.7, 4.85, f"{gpu}: {sms} SMs", size=SMALL)
    placed = [[0, 4], [1, 5], [2], [3]]
    for s in range(4):
        y = 3.7 - s * 0.95
        box(ax, 6.75, y, 3.9, 0.8, "", kind="sm")
        label(ax, 6.82, y + 0.66, f"SM {s if s < 3 else sms - 1}", size=SMALL)
        for k, b in enumerate(placed[s]):
            box(ax, 7.55 + k * 1.0, y + 0.12, 0.85, 0.45, f"block {b}" if b < 5 else "...", kind="block",
                size=SMALL)
    label(ax, 8.6, 1.67, "...", size=FONT_DOTS, ha="center")
    label(ax, 6.75, 0.3, "blocks run on whichever SM is free, in any order", size=SMALL)
    arrow(ax, (6.2, 4.75), (6.75, 4.75))
    return save(fig, out_dir, "ch00_thread_hierarchy_diagram.svg")


FONT_DOTS = 12


def draw_coalescing(out_dir: pathlib.Path, f: dict) -> str:
    stride = f["stride"]
    fig, ax = new_diagram(11.0, 4.7)
    label(ax, 0.2, 4.5, "One warp, one load instruction: which 32-byte sectors of memory it touches", size=11,
          weight="bold")
    lane_w = 0.3

    def lanes(y: float) -> None:
        for t in range(WARP):
            box(ax, 0.6 + t * lane_w, y, lane_w - 0.04, 0.3, "", kind="thread", rounded=False, lw=0.8)
        label(ax, 0.15, y + 0.15, "warp", size=SMALL)

    # Coalesced: lane t reads float t; 32 floats = 128 bytes = 4 sectors.
    label(ax, 0.2, 3.95, "copy_coalesced: thread i reads x[i]; the warp's 32 floats are 128 neighbouring bytes",
          size=SMALL)
    lanes(3.45)
    per_sector = SECTOR // FLOAT
    for s in range(4):
        x = 0.6 + s * per_sector * lane_w
        box(ax, x, 2.75, per_sector * lane_w - 0.04, 0.3, f"sector {s}", kind="active", rounded=False, size=SMALL)
    for t in (0, 7, 8, 31):
        arrow(ax, (0.6 + t * lane_w + 0.13, 3.45), (0.6 + t * lane_w + 0.13, 3.06))
    label(ax, 10.35, 2.9, "4 sectors,\nall bytes used", size=SMALL, ha="center")

    # Strided: lane t reads float t * stride; each lane its own sector.
    label(ax, 0.2, 2.3, f"copy_strided (stride {stride}): neighbouring threads read floats {stride} apart "
          f"({stride * FLOAT} bytes), so every thread needs its own sector", size=SMALL)
    lanes(1.8)
    for t in range(WARP):
        x = 0.6 + t * lane_w
        box(ax, x, 0.75, lane_w - 0.04, 0.3, "", kind="conflict", rounded=False, lw=0.8)
        box(ax, x, 0.75, (lane_w - 0.04) / per_sector, 0.3, "", kind="active", rounded=False, lw=0.5)
        if t in (0, 1, 2, 31):
            arrow(ax, (x + 0.13, 1.8), (x + 0.02, 1.06))
    label(ax, 0.6, 0.5, "each box: one 32-byte sector, of which the thread wants 4 bytes (the green sliver); "
          "the sectors are far apart in memory", size=SMALL)
    label(ax, 10.35, 0.9, "32 sectors,\n1/8 of the\nbytes used", size=SMALL, ha="center")
    legend(ax, 8.2, 4.45, [("thread", "a thread (lane)"), ("active", "bytes used"), ("conflict", "bytes fetched, unused")])
    return save(fig, out_dir, "ch00_coalescing_diagram.svg")


def draw_tile(out_dir: pathlib.Path, f: dict) -> str:
    fig, ax = new_diagram(11.0, 4.8)
    label(ax, 0.2, 4.6, f"transpose_shared: a {TILE} x {TILE} tile goes through shared memory ({TILE} x "
          f"{TILE + 1} floats)", size=11, weight="bold")
    n, c = 4, 0.42  # a 4 x 4 picture of the 32 x 32 tile

    def grid(x0: float, y0: float, cols: int, kind: str, names, warp0) -> None:
        """Rows go down from y0; warp0(r, q) marks the elements warp 0 touches in this step."""
        for r in range(n):
            for q in range(cols):
                k = ("warp" if warp0(r, q) else kind) if q < n else "idle"
                text = names(r, q) if q < n else ""
                box(ax, x0 + q * c, y0 - r * c, c - 0.04, c - 0.04, text, kind=k, rounded=False, size=7, lw=0.8)

    top = 3.5
    # in: the block's tile; warp 0 reads row 0.
    label(ax, 0.3, 4.1, "in: the block's tile", size=SMALL)
    grid(0.4, top, n, "hbm", lambda r, q: f"{r},{q}", lambda r, q: r == 0)
    label(ax, 0.3, 1.75, "1. warp 0 reads row 0 of the tile\n   (32 neighbouring floats: coalesced)\n"
          "   and stores it in row 0 of tile", size=SMALL)
    arrow(ax, (0.4 + n * c, top + c / 2), (3.3, top + c / 2), "row 0", kind="warp")

    # shared memory: the tile with one padding column; warp 0 later reads column 0.
    label(ax, 3.3, 4.1, f"shared: tile[{TILE}][{TILE + 1}]", size=SMALL)
    grid(3.3, top, n + 1, "shared", lambda r, q: f"{r},{q}", lambda r, q: q == 0)
    label(ax, 3.3 + n * c + 0.02, top + c + 0.12, "padding", size=7)
    label(ax, 3.3, 1.75, "2. __syncthreads(): every warp\n   has stored its row\n"
          "3. warp 0 reads column 0 of tile", size=SMALL)

    # out: the tile at the swapped block position; warp 0 writes row 0 (in's column 0).
    label(ax, 7.0, 4.1, "out: the tile at the swapped block position", size=SMALL)
    grid(7.1, top, n, "hbm", lambda r, q: f"{q},{r}", lambda r, q: r == 0)
    arrow(ax, (3.3 + c / 2, top - (n - 1) * c - 0.05), (7.1, top + c / 2), "column 0 to row 0", kind="warp",
          curve=0.35, text_offset=(0.9, -0.6))
    label(ax, 7.0, 1.75, "4. warp 0 writes it as row 0 of out\n   (32 neighbouring floats: coalesced again)",
          size=SMALL)
    label(ax, 0.2, 0.62, "Labels r,q: the element's row and column in the input. Without the padding column, the "
          f"{TILE} elements of a tile column", size=SMALL)
    label(ax, 0.2, 0.38, f"lie in one bank of shared memory ({TILE} threads, one bank: a {TILE}-way bank conflict); "
          f"with it, element (r, q) is in bank (r * {TILE + 1} + q) mod 32,", size=SMALL)
    label(ax, 0.2, 0.14, "and a column spans all 32 banks. Chapter 04 explains banks.", size=SMALL)
    legend(ax, 9.3, 4.45, [("warp", "what warp 0 touches")])
    return save(fig, out_dir, "ch00_tile_transpose_diagram.svg")


def draw(out_dir: pathlib.Path) -> list[str]:
    f = facts()
    return [draw_hierarchy(out_dir, f), draw_coalescing(out_dir, f), draw_tile(out_dir, f)]
