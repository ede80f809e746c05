"""Chapter 01's concept diagrams (scripts/make_figures.py calls draw()):

- ch01_section_vs_triangle_diagram.svg: one force evaluation of the critical method and of the triangle
  method, thread by thread, for the small example the lesson states (EXAMPLE below: 4 threads, 48
  particles, a pass through the section as long as 4 particles' pair loops). Above each timeline, the rows
  of the neighbour list each thread walks (its share); in it, which part of which force array each thread
  may write in each phase: during the pair loop only its own private array f_local (all N entries, no lock
  needed), in the section all N entries of the shared f, one thread at a time.
- ch01_force_writes_diagram.svg: for every strategy of the ladder (src/forces.cpp's variant table), which
  force array each thread writes in each phase: private arrays, the whole shared array one thread at a
  time (critical, triangle), one block of it per thread after a barrier (thread_arrays), any entry with a
  locked update (atomic), or only its own rows (full_list, full_list_vectorized).
- ch01_lj_potential_diagram.svg: the Lennard-Jones pair energy V(r) = 4ε((σ/r)¹² − (σ/r)⁶) in reduced units,
  drawn from the formula, with the wall, the well, the lattice's nearest-neighbour distance, the cut-off Rc and
  the neighbour list's reach Rc + skin. Rc, the skin and the density are the program's defaults (in.lj's),
  read from the config its committed results record, so that the picture follows the program.

The shares, the clock and the idle totals are the lesson's model, computed here and checked against its
formulas (Nth(Nth-1)Tc and half of it) before anything is drawn, so a picture that disagrees with the model
cannot be saved. Like the model, the timeline assumes every thread computes at the same rate; the measured
timelines (the lesson's Gantt chart and timeline plot) show how far real threads stray from that. No C++ is
read: the model is the lesson's, and the example's numbers are chosen so that every share is a whole number
(the program's partition, exercise 01.2, rounds them).
"""
from __future__ import annotations

import json
import math
import pathlib
import re

from diagram_style import FONT_SIZE, SMALL, box, label, legend, new_diagram, save

# The lesson's example ("The model"): Nth threads, N particles, t_p = 1 time unit per particle, Tc = DELTA
# units (so the staircase step is Delta = Tc / t_p = DELTA particles).
EXAMPLE = {"threads": 4, "particles": 48, "delta": 4}


def shares(method: str, n: int, threads: int, delta: int) -> list[int]:
    """Particles per thread: equal shares for the critical method, n0 + k*delta for the triangle method with
    n0 = n/threads - delta*(threads-1)/2 (the model). The example is chosen so that both are whole numbers."""
    if method == "critical":
        if n % threads:
            raise ValueError("the example's equal shares must be whole particles")
        return [n // threads] * threads
    if 2 * n % threads or (2 * n - delta * threads * (threads - 1)) % (2 * threads):
        raise ValueError("the example's staircase must be whole particles")
    n0 = (2 * n - delta * threads * (threads - 1)) // (2 * threads)
    if n0 <= 0:
        raise ValueError("delta past its limit 2N/(Nth(Nth-1)): the staircase does not fit")
    return [n0 + k * delta for k in range(threads)]


def timeline(share: list[int], tc: int) -> list[dict]:
    """Each thread's pair loop [0, share), its wait for the section, the section (in order of arrival, one
    at a time) and its wait for the last thread to leave: the model's clock, t_p = 1."""
    order = sorted(range(len(share)), key=lambda k: (share[k], k))
    free, rows = 0, [None] * len(share)
    for k in order:
        enter = max(share[k], free)
        free = enter + tc
        rows[k] = {"loop_end": share[k], "enter": enter, "exit": free}
    end = max(r["exit"] for r in rows)
    for r in rows:
        r["before"], r["after"], r["end"] = r["enter"] - r["loop_end"], end - r["exit"], end
    return rows


def _panel(ax, top: float, title: str, share: list[int], tc: int, idle_formula: str, scale: float, x0: float):
    rows = timeline(share, tc)
    threads, n = len(share), sum(share)
    idle = sum(r["before"] + r["after"] for r in rows)
    label(ax, 0.15, top, title, size=SMALL + 2, weight="bold")

    # The rows each thread walks: the partition of [0, N), drawn to the particle scale of the array strip.
    strip_y, strip_h, cell = top - 0.62, 0.3, 6.6 / n
    first = 0
    label(ax, 0.15, strip_y + strip_h / 2, "rows walked", size=SMALL)
    for k, s in enumerate(share):
        box(ax, x0 + first * cell, strip_y, s * cell, strip_h, f"thread {k}: {s}", kind="thread", size=SMALL,
            rounded=False, lw=0.8)
        label(ax, x0 + first * cell, strip_y - 0.1, str(first), size=SMALL - 1, ha="center", va="top")
        first += s
    label(ax, x0 + n * cell, strip_y - 0.1, str(n), size=SMALL - 1, ha="center", va="top")

    # The timeline: one lane per thread.
    lane_h, gap = 0.3, 0.12
    base = strip_y - 0.45
    for k, r in enumerate(rows):
        y = base - (k + 1) * (lane_h + gap)
        label(ax, 0.15, y + lane_h / 2, f"thread {k}", size=SMALL)
        box(ax, x0, y, r["loop_end"] * scale, lane_h, "pair loop → f_local", kind="thread", size=SMALL - 1,
            rounded=False, lw=0.8)
        if r["before"]:
            box(ax, x0 + r["loop_end"] * scale, y, r["before"] * scale, lane_h, "waits", kind="idle",
                size=SMALL - 1, rounded=False, lw=0.8)
        box(ax, x0 + r["enter"] * scale, y, tc * scale, lane_h, "f += f_local", kind="conflict", size=SMALL - 1,
            rounded=False, lw=0.8)
        if r["after"]:
            box(ax, x0 + r["exit"] * scale, y, r["after"] * scale, lane_h, "waits", kind="idle",
                size=SMALL - 1, rounded=False, lw=0.8)
    end = rows[0]["end"]
    y_axis = base - threads * (lane_h + gap) - 0.12
    for t in range(0, end + 1, 4):
        label(ax, x0 + t * scale, y_axis, str(t), size=SMALL - 1, ha="center", va="top")
    label(ax, 0.15, y_axis - 0.08, "time (t_p)", size=SMALL - 1)
    label(ax, x0 + end * scale + 0.15, base - threads * (lane_h + gap) / 2 - 0.2,
          f"done at {end}\nidle {idle // tc} Tc\n= {idle_formula}", size=SMALL, va="center")
    return idle


def _array(ax, x: float, y: float, w: float, h: float, owners: list[str], kind: str, size: float = SMALL - 1):
    """A force array of N entries drawn as len(owners) equal blocks, each labelled with who writes it."""
    step = w / len(owners)
    for k, text in enumerate(owners):
        box(ax, x + k * step, y, step, h, text, kind=kind, size=size, rounded=False, lw=0.8)


def _writes(out_dir: pathlib.Path) -> str:
    """Who writes which part of which force array, phase by phase, in each strategy (forces.cpp's ladder)."""
    threads = EXAMPLE["threads"]
    x0, w, lane = 2.6, 6.8, 0.17
    private = ("private", [f"f_local of thread {k}: written by thread {k} only" for k in range(threads)])
    rows = [  # (strategy, phase, what is drawn)
        ("critical, triangle", "1. pair loop", private),
        ("", "2. critical section", ("conflict", [f"all N entries: thread {' → thread '.join(map(str, range(threads)))}, "
                                                 "one thread at a time"])),
        ("thread_arrays", "1. pair loop", private),
        ("", "2. after one barrier", ("active", [f"thread {k}: block {k}, the sum\nof the {threads} arrays there"
                                                 for k in range(threads)])),
        ("atomic", "pair loop (one phase)", ("conflict", ["any thread, any entry: every += is one locked "
                                                          "read-modify-write"])),
        ("full_list (and _vectorized)", "pair loop (one phase)", ("active", [f"thread {k}: its own rows only" for k in range(threads)])),
    ]
    heights = [threads * (lane + 0.03) if what is private else 0.38 for _, _, what in rows]
    gaps = [0.5 if name else 0.22 for name, _, _ in rows]
    total = sum(heights) + sum(gaps)
    height = total + 1.3
    fig, ax = new_diagram(9.6, height)
    label(ax, 0.15, height - 0.25, f"Who writes which force entries, phase by phase ({threads} threads; each bar is the "
          "N entries of one force array)", size=SMALL + 1)
    y = height - 0.3
    for (name, phase, what), h, gap in zip(rows, heights, gaps):
        y -= gap + h
        if name:
            label(ax, 0.15, y + h / 2 + 0.12, name, size=SMALL + 1, weight="bold")
            label(ax, 0.15, y + h / 2 - 0.12, phase, size=SMALL)
        else:
            label(ax, 0.15, y + h / 2, phase, size=SMALL)
        if what is private:
            for k, text in enumerate(what[1]):
                box(ax, x0, y + (threads - 1 - k) * (lane + 0.03), w, lane, text, kind="thread", size=SMALL - 2,
                    rounded=False, lw=0.6)
        else:
            _array(ax, x0, y, w, h, what[1], what[0])
    legend(ax, 0.15, 0.75, [("thread", "private: no other thread touches it"),
                            ("active", "shared, but each block has one writer: no lock needed"),
                            ("conflict", "shared, every thread writes everywhere: a critical section or a locked "
                                         "update keeps it right")])
    return save(fig, out_dir, "ch01_force_writes_diagram.svg")


RESULTS = pathlib.Path(__file__).resolve().parent.parent / "results"


def config_default(name: str) -> float:
    """A setting of the chapter's runs (cutoff, skin, density: in.lj's), as the program recorded it in the
    config of its committed results (the first machine's file; every run uses the program's defaults)."""
    for path in sorted(RESULTS.glob("*/01_critical_vs_triangle.json")):
        config = json.loads(path.read_text()).get("config", {})
        if name in config:
            return float(config[name])
    raise ValueError(f"no committed results of chapter 01 record {name}")


def lj(r: float) -> float:
    """The Lennard-Jones pair energy in reduced units (σ = ε = 1), unshifted, as lj/cut."""
    return 4.0 * (r ** -12 - r ** -6)


def _lj_potential(out_dir: pathlib.Path) -> str:
    """V(r) with its wall, its well, the cut-off and the list's reach, and where the lattice's neighbours sit."""
    import matplotlib.pyplot as plt  # diagram_style has chosen the backend

    cutoff, skin, density = config_default("cutoff"), config_default("skin"), config_default("density")
    r_min = 2.0 ** (1.0 / 6.0)
    if abs(lj(r_min) + 1.0) > 1e-12:
        raise AssertionError("the well's bottom is not -ε at 2^(1/6)σ")
    nearest = (4.0 / density) ** (1.0 / 3.0) / math.sqrt(2.0)  # fcc: 4 atoms per cube of side a; neighbours a/√2 apart
    fig, ax0 = new_diagram(7.2, 3.6)
    ax0.set_zorder(-1)
    ax = fig.add_axes((0.1, 0.15, 0.86, 0.75))
    rs = [0.9 + 0.002 * k for k in range(1 + int((cutoff + skin + 0.4 - 0.9) / 0.002))]
    inside = [r for r in rs if r <= cutoff]
    ax.plot(inside, [lj(r) for r in inside], color="#0072b2", linewidth=1.8, label="V(r), used up to Rc")
    outside = [r for r in rs if r >= cutoff]
    ax.plot(outside, [lj(r) for r in outside], color="#0072b2", linewidth=1.0, linestyle=":",
            label="beyond Rc: left out (V(Rc) is tiny)")
    ax.axhline(0.0, color="#999999", linewidth=0.8)
    ax.axvline(cutoff, color="#d55e00", linewidth=1.2, linestyle="--")
    ax.axvline(cutoff + skin, color="#009e73", linewidth=1.2, linestyle="--")
    ax.axvline(nearest, color="#e69f00", linewidth=1.0, linestyle="-.")
    ax.set_xlim(0.9, cutoff + skin + 0.4)
    ax.set_ylim(-1.4, 2.2)
    ax.set_xlabel("distance r between two atoms (σ)")
    ax.set_ylabel("pair energy V(r) (ε)")
    ax.annotate("wall: closer than σ, the energy\nshoots up (strong push apart)", xy=(0.95, 1.4), xytext=(1.35, 1.55),
                fontsize=SMALL, arrowprops={"arrowstyle": "-|>", "color": "#444444", "lw": 0.8})
    ax.annotate(f"well: lowest energy −ε at r = 2^(1/6)σ ≈ {r_min:.3f}σ\n(the force is zero there)",
                xy=(r_min, -1.0), xytext=(1.45, -1.25), fontsize=SMALL,
                arrowprops={"arrowstyle": "-|>", "color": "#444444", "lw": 0.8})
    ax.text(cutoff - 0.03, 1.95, f"cut-off Rc = {cutoff:g}σ", color="#d55e00", fontsize=SMALL, ha="right", va="top")
    ax.text(cutoff + skin + 0.03, 1.95, f"list reach\nRc + skin = {cutoff + skin:g}σ", color="#009e73",
            fontsize=SMALL, ha="left", va="top")
    ax.text(nearest + 0.03, 0.9, f"lattice neighbours\n{nearest:.3f}σ apart", color="#b07800", fontsize=SMALL,
            ha="left", va="center")
    ax.legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.6, 0.7), frameon=False)
    ax.set_title("The Lennard-Jones pair energy, reduced units (σ = ε = 1)", fontsize=FONT_SIZE)
    return save(fig, out_dir, "ch01_lj_potential_diagram.svg")


def draw(out_dir: pathlib.Path) -> list[str]:
    threads, n, delta = EXAMPLE["threads"], EXAMPLE["particles"], EXAMPLE["delta"]
    tc = delta  # t_p = 1, so Tc = delta time units
    equal, staircase = shares("critical", n, threads, delta), shares("triangle", n, threads, delta)
    # The model's two results, checked on the drawn clock before anything is drawn.
    crit_idle = sum(r["before"] + r["after"] for r in timeline(equal, tc))
    tri_rows = timeline(staircase, tc)
    if crit_idle != threads * (threads - 1) * tc:
        raise AssertionError(f"critical idle {crit_idle} is not Nth(Nth-1)Tc")
    if sum(r["before"] for r in tri_rows) != 0 or sum(r["after"] for r in tri_rows) * 2 != threads * (threads - 1) * tc:
        raise AssertionError("triangle: waits before the section, or idle not Nth(Nth-1)Tc/2")

    fig, ax = new_diagram(9.6, 8.1)
    end = timeline(equal, tc)[0]["end"]
    x0 = 1.05
    scale = 6.6 / end  # the critical method's whole evaluation spans the strip's width
    label(ax, 0.15, 7.9, f"One force evaluation, {threads} threads, N = {n} particles, Tc = {tc} t_p "
          f"(Δ = Tc/t_p = {delta}); time in units of t_p", size=SMALL + 1)
    _panel(ax, 7.45, "critical method: equal shares, the threads queue at the section", equal, tc,
           "Nth(Nth−1)Tc", scale, x0)
    _panel(ax, 4.2, "triangle method: shares n₀ + kΔ, each thread arrives as the one before leaves", staircase,
           tc, "Nth(Nth−1)Tc/2", scale, x0)
    legend(ax, 1.05, 0.85, [("thread", "pair loop: the thread writes only its own private array f_local (all N entries; no lock)"),
                            ("conflict", "critical section: it adds f_local into all N entries of the shared f, one thread at a time"),
                            ("idle", "waits: for the section, or for the last thread to leave it (the end of the parallel region)")])
    return [save(fig, out_dir, "ch01_section_vs_triangle_diagram.svg"), _writes(out_dir), _lj_potential(out_dir)]
