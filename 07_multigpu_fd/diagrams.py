"""Concept diagrams of chapter 07 (scripts/make_figures.py calls draw()):

- ch07_star_tile_diagram.svg: the 17-point star of one update (radius `halo` in x and y, the centre weighted
  2·w0, ring k weighted w_k) and a block's tile with the halo it stages around it in shared memory, with the
  star of a corner cell reaching into that halo.
- ch07_slabs_halo_diagram.svg: a mesh cut into slabs, each stored with `halo` ghost rows above and below,
  and the halo exchange: each slab's first and last `halo` rows go into its neighbours' ghost rows; the
  mesh's outer ghost rows stay zero (the wall).

The one fact both take from the code is the star's radius, `halo` in src/stencil.hpp (the ghost-row count
too), read from the program's own listing of it, `wave_fd --list-variants --json` committed as
results/<gpu>/07_multigpu_fd.variants.json ("extra" -> "stencil" -> "halo"), never from the C++ text. The
tile and slab sizes are drawn small on purpose and carry no number.
"""
from __future__ import annotations

import json
import pathlib

from diagram_style import SMALL, arrow, box, edge, fill, label, new_diagram, save

CHAPTER = pathlib.Path(__file__).resolve().parent


RESULTS = CHAPTER.parent / "results"
LISTING = f"{CHAPTER.name}.variants.json"


def stencil_radius() -> int:
    """The stencil's halo (src/stencil.hpp's `halo`: the star's reach and the ghost-row count) as wave_fd
    lists it in every committed listing, results/<gpu>/07_multigpu_fd.variants.json; the listings must agree."""
    found = {}
    for path in sorted(RESULTS.glob(f"*/{LISTING}")):
        halo = json.loads(path.read_text()).get("extra", {}).get("stencil", {}).get("halo")
        if not isinstance(halo, int) or isinstance(halo, bool) or halo < 1:
            raise SystemExit(f"diagrams.py: {path.relative_to(CHAPTER.parent)} lists no stencil halo "
                             "(extra.stencil.halo): run wave_fd --list-variants --json again")
        found[path.parent.name] = halo
    if not found:
        raise SystemExit(f"diagrams.py: no results/<gpu>/{LISTING} (wave_fd --list-variants --json FILE, "
                         "written by 07_multigpu_fd/bench.sh) to take the stencil halo from")
    if len(set(found.values())) != 1:
        raise SystemExit(f"diagrams.py: the committed listings disagree on the stencil halo: {found}")
    return next(iter(found.values()))


def _cell(ax, x, y, size, kind, text="", fontsize=SMALL):
    box(ax, x, y, size, size, text, kind=kind, rounded=False, lw=0.6, size=fontsize)


def _star(radius: int, out_dir: pathlib.Path) -> str:
    c = 0.3  # inches per cell
    tile_w, tile_h = 8, 4  # the drawn tile: small on purpose (a real block's tile is wider)
    left_w = (2 * radius + 1) * c
    right_w = (tile_w + 2 * radius) * c
    width = 0.5 + left_w + 1.0 + right_w + 0.4
    height = max(2 * radius + 1, tile_h + 2 * radius) * c + 1.3
    fig, ax = new_diagram(width, height)

    # Left: the star of one cell.
    x0, y0 = 0.5, 0.55 + max(0, tile_h - 1) * c / 2  # centred beside the taller tile
    label(ax, x0, height - 0.3, f"one update reads {4 * radius + 1} cells", ha="left")
    for j in range(2 * radius + 1):
        for i in range(2 * radius + 1):
            dx, dy = i - radius, j - radius
            if dx == 0 and dy == 0:
                _cell(ax, x0 + i * c, y0 + j * c, c, "thread", "2w₀", fontsize=6.5)
            elif dx == 0 or dy == 0:
                _cell(ax, x0 + i * c, y0 + j * c, c, "halo", f"w{abs(dx) + abs(dy)}", fontsize=6.5)
            else:
                _cell(ax, x0 + i * c, y0 + j * c, c, "idle")
    label(ax, x0 + left_w / 2, 0.55 - 0.28, f"radius {radius} in x and in y (halo = {radius}, stencil.hpp)",
          ha="center", size=SMALL)

    # Right: a block's tile and the halo it stages.
    xr, yr = x0 + left_w + 1.0, 0.55
    label(ax, xr, height - 0.3, "what one block stages in shared memory", ha="left")
    for j in range(tile_h + 2 * radius):
        for i in range(tile_w + 2 * radius):
            inside = radius <= i < radius + tile_w and radius <= j < radius + tile_h
            corner = (i < radius or i >= radius + tile_w) and (j < radius or j >= radius + tile_h)
            kind = "block" if inside else ("idle" if corner else "halo")
            _cell(ax, xr + i * c, yr + j * c, c, kind)
    # The star of the tile's top-left cell: it reaches `radius` cells into the halo on two sides.
    ci, cj = radius, radius + tile_h - 1
    for k in range(-radius, radius + 1):
        for (i, j) in ((ci + k, cj), (ci, cj + k)):
            ax.plot(xr + (i + 0.5) * c, yr + (j + 0.5) * c, "o", ms=3.2, color=edge("thread"))
    # Labels under the tile.
    label(ax, xr + right_w / 2, yr - 0.28,
          f"tile: one cell per thread   ·   halo: {radius} cells on every side   ·   dots: one corner cell's star",
          ha="center", size=SMALL)
    # Legend swatches above the right panel.
    for n, (kind, text) in enumerate((("block", "tile"), ("halo", "halo"), ("idle", "corners: no star reads them"))):
        bx = xr + n * 1.05
        box(ax, bx, height - 0.68, 0.16, 0.16, kind=kind, rounded=False, lw=0.8)
        label(ax, bx + 0.22, height - 0.60, text, size=SMALL)
    return save(fig, out_dir, "ch07_star_tile_diagram.svg")


def _slabs(radius: int, out_dir: pathlib.Path) -> str:
    r = 0.15           # inches per row
    own = 11           # rows drawn per slab: small on purpose
    slabs = 3
    w = 2.8            # a row's drawn width
    gap = 0.55
    slab_h = (own + 2 * radius) * r
    height = slabs * slab_h + (slabs - 1) * gap + 1.25
    width = 9.6
    fig, ax = new_diagram(width, height)
    x0 = 3.4
    label(ax, 0.15, height - 0.25, f"{slabs} slabs (one per GPU), each stored with {radius} ghost rows above and "
          f"below (halo = {radius}, stencil.hpp), and the exchange after every step", size=SMALL + 1)
    tops = []
    for s in range(slabs):
        top = height - 0.55 - s * (slab_h + gap)
        tops.append(top)
        # Rows from the top: `radius` ghost rows, `own` rows of its own, `radius` ghost rows.
        for row in range(own + 2 * radius):
            y = top - (row + 1) * r
            ghost = row < radius or row >= radius + own
            outer = (s == 0 and row < radius) or (s == slabs - 1 and row >= radius + own)
            sent = (not ghost) and ((s > 0 and row < 2 * radius) or (s < slabs - 1 and row >= own))
            kind = "idle" if outer else ("halo" if ghost else ("copy" if sent else "block"))
            box(ax, x0, y, w, r, kind=kind, rounded=False, lw=0.5)
        label(ax, x0 + w / 2, top - slab_h / 2, f"slab {s}", ha="center", size=SMALL + 1)
        if s == 0:
            label(ax, x0 + w / 2, top - radius * r / 2, "zeros: the wall", ha="center", size=SMALL)
        if s == slabs - 1:
            label(ax, x0 + w / 2, top - slab_h + radius * r / 2, "zeros: the wall", ha="center", size=SMALL)
    # The exchange between slab s and s + 1: s's last `radius` own rows -> s+1's top ghost rows, and
    # s+1's first `radius` own rows -> s's bottom ghost rows.
    for s in range(slabs - 1):
        a, b = tops[s], tops[s + 1]
        last_rows = a - (own + radius / 2) * r                     # middle of s's last own rows
        next_ghost_top = b - (radius / 2) * r                      # middle of s+1's top ghost rows
        first_rows = b - (radius + radius / 2) * r                 # middle of s+1's first own rows
        ghost_bottom = a - (own + radius + radius / 2) * r         # middle of s's bottom ghost rows
        arrow(ax, (x0 + w + 0.05, last_rows), (x0 + w + 0.05, next_ghost_top), "", kind="copy", curve=-0.6)
        arrow(ax, (x0 - 0.05, first_rows), (x0 - 0.05, ghost_bottom), "", kind="halo", curve=-0.6)
        label(ax, x0 + w + 0.75, (last_rows + next_ghost_top) / 2,
              f"last {radius} rows of slab {s}\n→ top ghost rows of slab {s + 1}", size=SMALL)
        label(ax, x0 - 0.75, (first_rows + ghost_bottom) / 2,
              f"first {radius} rows of slab {s + 1}\n→ bottom ghost rows of slab {s}", ha="right", size=SMALL)
    # Legend.
    for n, (kind, text) in enumerate((("block", "rows the slab owns"), ("copy", "own rows a neighbour needs"),
                                      ("halo", "ghost rows (received)"), ("idle", "ghost rows past the mesh"))):
        bx = 0.15 + n * 2.35
        box(ax, bx, 0.22, 0.16, 0.16, kind=kind, rounded=False, lw=0.8)
        label(ax, bx + 0.22, 0.30, text, size=SMALL)
    return save(fig, out_dir, "ch07_slabs_halo_diagram.svg")


def draw(out_dir: pathlib.Path) -> list[str]:
    radius = stencil_radius()
    return [_star(radius, out_dir), _slabs(radius, out_dir)]
