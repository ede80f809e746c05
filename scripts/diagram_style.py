"""The shared look of the course's concept diagrams (chNN_<idea>_diagram.svg), and their deterministic save.

A chapter's NN_topic/diagrams.py draws with these helpers so that a thread, a warp, a block, an SM and each
level of memory have the same colour on every page, and so that redrawing an unchanged diagram gives the
same bytes (scripts/make_figures.py records each SVG's hash in docs/images/diagrams.lock and --check
compares them).

    import sys, pathlib
    from diagram_style import new_diagram, box, arrow, label, save   # make_figures puts scripts/ on sys.path

    def draw(out_dir: pathlib.Path) -> list[str]:
        fig, ax = new_diagram(8, 3)                   # inches; 1 data unit = 1 inch
        box(ax, 0.2, 1.0, 1.6, 0.8, "block 0", kind="block")
        box(ax, 0.3, 1.1, 0.3, 0.3, "", kind="thread")
        arrow(ax, (2.0, 1.4), (3.0, 1.4), "load")
        return [save(fig, out_dir, "ch00_example_diagram.svg")]

Colours: the Okabe-Ito palette (readable for the common colour-vision deficiencies), light fills with a
darker edge of the same hue so that labels in black stay legible on every box.
"""
from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")  # no display on CI or the GPU machine; also fixes the renderer the bytes depend on
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

# One colour per kind of thing, the same in every chapter: (fill, edge).
COLOURS: dict[str, tuple[str, str]] = {
    # execution: who runs
    "thread": ("#fde7c1", "#e69f00"),   # orange
    "warp": ("#d4ebf7", "#56b4e9"),     # sky blue
    "block": ("#cfe8de", "#009e73"),    # bluish green
    "grid": ("#eeeeee", "#777777"),     # grey: the launch grid as a whole
    "sm": ("#f3d9e6", "#cc79a7"),       # reddish purple
    "host": ("#fbf6c4", "#b8a800"),     # yellow (darkened edge so it shows on white)
    # memory: where data lives, fastest first
    "register": ("#fde7c1", "#e69f00"),  # the thread's own: the thread's colour
    "shared": ("#cfe8de", "#009e73"),    # the block's own: the block's colour
    "l1": ("#f3d9e6", "#cc79a7"),        # the SM's own: the SM's colour
    "l2": ("#d6e2f0", "#0072b2"),        # blue: shared by the whole GPU
    "hbm": ("#f6d5c4", "#d55e00"),       # vermillion: device memory, off the chip
    "host_memory": ("#fbf6c4", "#b8a800"),
    # states used in access and timeline pictures
    "active": ("#cfe8de", "#009e73"),
    "idle": ("#f2f2f2", "#999999"),
    "conflict": ("#f6d5c4", "#d55e00"),
    "copy": ("#d6e2f0", "#0072b2"),
    "kernel": ("#cfe8de", "#009e73"),
    "halo": ("#f6d5c4", "#d55e00"),
    "neutral": ("#ffffff", "#444444"),
}

TEXT = "#222222"
FONT_SIZE = 10
SMALL = 8

# Fixed so that an unchanged drawing gives the same SVG bytes (element ids are hashed from this salt).
HASH_SALT = "cuda-lessons-diagrams"


def fill(kind: str) -> str:
    return COLOURS[kind][0]


def edge(kind: str) -> str:
    return COLOURS[kind][1]


def _style() -> None:
    matplotlib.rcParams.update({
        "svg.hashsalt": HASH_SALT,
        "svg.fonttype": "path",  # glyphs as outlines: the picture looks the same without the font installed
        "font.family": "DejaVu Sans",  # ships with matplotlib: the same glyphs on every machine
        "font.size": FONT_SIZE,
        "text.color": TEXT,
        "axes.unicode_minus": False,
    })


def new_diagram(width: float, height: float):
    """A figure of width x height inches whose axes span it exactly, 1 data unit per inch, no ticks or frame,
    origin at the bottom left. Returns (fig, ax)."""
    _style()
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def box(ax, x: float, y: float, w: float, h: float, text: str = "", kind: str = "neutral", *,
        size: float = FONT_SIZE, rounded: bool = True, text_at: str = "centre", lw: float = 1.2, **kw):
    """A filled box with its lower-left corner at (x, y) in the colours of `kind`, with `text` centred in it
    (text_at="top" puts it just inside the top edge: a label for a box that holds other boxes)."""
    style = "round,pad=0,rounding_size=0.06" if rounded else "square,pad=0"
    patch = FancyBboxPatch((x, y), w, h, boxstyle=style, facecolor=fill(kind), edgecolor=edge(kind),
                           linewidth=lw, **kw)
    ax.add_patch(patch)
    if text:
        if text_at == "top":
            ax.text(x + w / 2, y + h - 0.06, text, ha="center", va="top", fontsize=size)
        else:
            ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size)
    return patch


def arrow(ax, start: tuple[float, float], end: tuple[float, float], text: str = "", *, kind: str = "neutral",
          size: float = SMALL, lw: float = 1.2, curve: float = 0.0, text_offset: tuple[float, float] = (0, 0.1)):
    """An arrow from start to end (curve > 0 bends it to the left), with an optional label at the middle of the
    straight line between them (move it with text_offset when the arrow bends)."""
    patch = FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10, color=edge(kind), linewidth=lw,
                            connectionstyle=f"arc3,rad={curve}", shrinkA=1, shrinkB=1)
    ax.add_patch(patch)
    if text:
        mx = (start[0] + end[0]) / 2 + text_offset[0]
        my = (start[1] + end[1]) / 2 + text_offset[1]
        ax.text(mx, my, text, ha="center", va="bottom", fontsize=size)
    return patch


def label(ax, x: float, y: float, text: str, *, size: float = FONT_SIZE, ha: str = "left", va: str = "center",
          **kw):
    """Free text (a title, an axis name, a note) in the diagrams' font."""
    return ax.text(x, y, text, ha=ha, va=va, fontsize=size, **kw)


def legend(ax, x: float, y: float, kinds: list[tuple[str, str]], *, size: float = SMALL, step: float = 0.28):
    """A column of small swatches with their meaning, top entry at (x, y): kinds = [(kind, text), ...]."""
    for i, (kind, text) in enumerate(kinds):
        yy = y - i * step
        box(ax, x, yy - 0.08, 0.16, 0.16, kind=kind, rounded=False, lw=1.0)
        ax.text(x + 0.24, yy, text, ha="left", va="center", fontsize=size)


def save(fig, out_dir: pathlib.Path, name: str) -> str:
    """Writes the figure as out_dir/name (an SVG named chNN_<idea>_diagram.svg), deterministically: fixed
    hash salt, no date in the metadata. Closes the figure and returns the name."""
    if not (name.startswith("ch") and name.endswith("_diagram.svg")):
        raise ValueError(f"diagram file names are chNN_<idea>_diagram.svg, not {name}")
    _style()
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_dir / name, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return name
