"""Tables and plots of chapter 01 (critical section vs triangle partition) from committed results.

results: machine slug -> results JSON written by bench.sh (CPU-only: the JSON's device names the CPU).
The slug DEV_SLUG holds a run on the course's 2-core development machine (threads 1 and 2, MD loop only);
it feeds the whole-loop table beside LAMMPS, while the sweeps and plots come from the other slugs.
"""
from __future__ import annotations

import pathlib

BLOCKS = ("cvt_sweep", "cvt_idle", "cvt_sizes", "cvt_loop", "cvt_plots")
NO_RESULTS = "No results are committed yet: run `bash 01_critical_vs_triangle/bench.sh build results/<machine>`."
STRATEGIES = ("critical", "triangle", "atomic", "thread_arrays", "full_list")
# The 2012 study's force-part speedups at 11 threads on its 16-core SMP server (as our source summarises it).
STUDY_11_THREADS = {"critical": 5.17, "triangle": 5.61}
# LAMMPS figures (from the chapter's issue, not measured by this program): in.lj, 32,000 atoms, timesteps/s
# on a 2-core machine of the kind this course is developed on; serial, and 2 MPI ranks.
LAMMPS_2CORE = {1: 43.0, 2: 56.0}
# results/<DEV_SLUG>/: this program's --json run on that 2-core machine kind (see README, "Run it").
DEV_SLUG = "dev2core"
DEFAULT_CELLS = 20


def _cpu(doc):
    d = doc.get("device", {})
    return f"{d.get('cpu', 'unknown CPU')} ({d.get('logical_cores', '?')} logical cores)"


def _rows(doc, cells=DEFAULT_CELLS):
    return [r for r in doc.get("rows", []) if r.get("cells") == cells]


def _sizes(doc):
    return sorted({r.get("cells") for r in doc.get("rows", [])})


def _find(rows, strategy, threads):
    for r in rows:
        if r.get("strategy") == strategy and r.get("threads") == threads:
            return r
    return None


def _f(value, digits=2, suffix=""):
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def _sweep_slugs(results):
    """The machines of the thread sweeps: every slug but the 2-core development run."""
    return [slug for slug in sorted(results) if slug != DEV_SLUG]


def _sweep(results):
    parts = []
    for slug in _sweep_slugs(results):
        doc = results[slug]
        rows = _rows(doc)
        threads = sorted({r["threads"] for r in rows if r["strategy"] != "serial"})
        serial = _find(rows, "serial", 1)
        parts.append(f"**{_cpu(doc)}**, {rows[0]['atoms'] if rows else '?'} atoms: force-part speedup over the "
                     f"serial reference ({_f(serial and serial['force_ms'], 3)} ms per force evaluation).\n")
        parts.append("| threads | " + " | ".join(STRATEGIES) + " |")
        parts.append("|---:|" + "---:|" * len(STRATEGIES))
        for t in threads:
            cells = []
            for s in STRATEGIES:
                r = _find(rows, s, t)
                cells.append(_f(r and r["speedup"], 2, "x"))
            parts.append(f"| {t} | " + " | ".join(cells) + " |")
        parts.append("| 11 (the study) | " + " | ".join(
            _f(STUDY_11_THREADS.get(s), 2, "x") for s in STRATEGIES) + " |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _spread(row, key, digits):
    """median (min-max) of a measured quantity; old results without the range show the median alone."""
    if not row or row.get(key) is None:
        return "-"
    lo, hi = row.get(key + "_min"), row.get(key + "_max")
    text = f"{row[key]:.{digits}f}"
    return text if lo is None or hi is None else f"{text} ({lo:.{digits}f}-{hi:.{digits}f})"


def _topology(doc):
    topo = doc.get("config", {}).get("cpu_topology") or {}
    if "threads_per_core" not in topo:
        return ""
    return (f" Topology (lscpu): {topo.get('sockets', '?')} socket(s) x {topo.get('cores_per_socket', '?')} cores x "
            f"{topo['threads_per_core']} thread(s) per core" + (f", hypervisor {topo['hypervisor']}" if topo.get("hypervisor") else "") + ".")


def _idle(results):
    parts = []
    for slug in _sweep_slugs(results):
        doc = results[slug]
        rows = _rows(doc)
        threads = sorted({r["threads"] for r in rows if r["strategy"] == "critical"})
        reps = next((r.get("reps") for r in rows if r.get("reps")), None)
        parts.append(f"**{_cpu(doc)}**: force time and total idle time of the team per force evaluation (ms), "
                     + (f"median (min-max) over {reps} evaluations taken in interleaved rounds" if reps else "medians") + ", beside the "
                     "model with the measured Tc. *clamped*: the measured delta = Tc/t_p exceeded its limit "
                     "2N/(Nth(Nth-1)), so the staircase could not be built and the model's halving cannot hold."
                     + _topology(doc) + "\n")
        parts.append("| threads | Tc (us) | critical force | triangle force | critical idle | model Nth(Nth-1)Tc "
                     "| triangle idle | model Nth(Nth-1)Tc/2 | delta (max) | clamped | triangle / critical idle |")
        parts.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|")
        for t in threads:
            c, tr = _find(rows, "critical", t), _find(rows, "triangle", t)
            ratio = (tr["idle_ms"] / c["idle_ms"]) if c and tr and c["idle_ms"] > 0 else None
            clamped = "-" if not tr or "clamped" not in tr else ("yes" if tr["clamped"] else "no")
            parts.append(f"| {t} | {_f(c and c['section_us'], 1)} | {_spread(c, 'force_ms', 3)} | "
                         f"{_spread(tr, 'force_ms', 3)} | {_spread(c, 'idle_ms', 3)} | "
                         f"{_f(c and c.get('model_idle_ms'), 3)} | {_spread(tr, 'idle_ms', 3)} | "
                         f"{_f(tr and tr.get('model_idle_ms'), 3)} | {_f(tr and tr.get('triangle_step'), 0)} "
                         f"({_f(tr and tr.get('max_triangle_step'), 0)}) | {clamped} | {_f(ratio, 2)} |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _size_table(results):
    parts = ["| machine | cells | atoms | threads | critical | triangle | thread_arrays | full_list |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for slug in _sweep_slugs(results):
        doc = results[slug]
        for cells in _sizes(doc):
            rows = _rows(doc, cells)
            avail = sorted({r["threads"] for r in rows})
            t = 11 if 11 in avail else max(avail)
            vals = [_f((_find(rows, s, t) or {}).get("speedup"), 2, "x")
                    for s in ("critical", "triangle", "thread_arrays", "full_list")]
            parts.append(f"| {_cpu(doc)} | {cells} | {rows[0]['atoms']} | {t} | " + " | ".join(vals) + " |")
    parts.append("| the study (16-core SMP server) | 35 and 55 | | 11 | 5.17x | 5.61x | | |")
    return "\n".join(parts)


def _loop_rows(doc, lammps=None):
    """Best strategy per team size of one machine's MD loops; the LAMMPS column only where given."""
    out = []
    rows = [r for r in _rows(doc) if "loop_steps_per_s" in r]
    if not rows:
        return out
    largest = max(r["threads"] for r in rows)
    for t in sorted({r["threads"] for r in rows}):
        if t not in (1, 2, 4, 8, 16) and t != largest:
            continue
        best = max((r for r in rows if r["threads"] == t), key=lambda r: (r["loop_steps_per_s"], r["strategy"]))
        ref = _f(lammps.get(t), 0) if lammps else "-"
        out.append(f"| {_cpu(doc)} | {t} | {best['strategy']} | {_f(best['loop_steps_per_s'], 1)} | "
                   f"{_f(best.get('ns_per_atom_step'), 1)} | {ref} |")
    return out


def _loop(results):
    parts = ["| machine | threads | best strategy | timesteps/s | ns per atom-step | LAMMPS in.lj, same machine kind |",
             "|---|---:|---|---:|---:|---:|"]
    for slug in _sweep_slugs(results):
        parts += _loop_rows(results[slug])
    if DEV_SLUG in results:
        parts += _loop_rows(results[DEV_SLUG], LAMMPS_2CORE)
    else:
        parts += [f"| 2-core development machine (no run committed in results/{DEV_SLUG}) | {t} | | | | {_f(v, 0)} |"
                  for t, v in sorted(LAMMPS_2CORE.items())]
    return "\n".join(parts)


def _image_lines(results):
    return "\n\n".join(f"\\image html {name}" for name in _plot_names(results))


def _plot_names(results):
    slugs = _sweep_slugs(results)
    if not slugs:
        return []
    names = ["ch01_speedup.png", "ch01_idle.png"]
    if results[slugs[0]].get("extra", {}).get("timelines"):  # plots() draws the first sweep machine
        names.append("ch01_timeline.png")
    return names


def tables(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return {name: NO_RESULTS for name in BLOCKS}
    if not _sweep_slugs(results):  # only the 2-core development run: no sweep to show
        return {"cvt_sweep": NO_RESULTS, "cvt_idle": NO_RESULTS, "cvt_sizes": NO_RESULTS, "cvt_loop": _loop(results),
                "cvt_plots": NO_RESULTS}
    return {"cvt_sweep": _sweep(results), "cvt_idle": _idle(results), "cvt_sizes": _size_table(results),
            "cvt_loop": _loop(results), "cvt_plots": _image_lines(results)}


def plots(results: dict[str, dict], out_dir: pathlib.Path) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = _plot_names(results)
    if not names:
        return []
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    slug = _sweep_slugs(results)[0]  # one machine per figure: the first sweep machine in name order
    doc = results[slug]
    rows = _rows(doc)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    threads_all = sorted({r["threads"] for r in rows})
    for s in STRATEGIES:
        pts = sorted((r["threads"], r["speedup"]) for r in rows if r["strategy"] == s)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s)
    ax.plot(threads_all, threads_all, color="grey", linestyle=":", label="ideal")
    for s, v in STUDY_11_THREADS.items():
        ax.scatter([11], [v], marker="*", s=120, zorder=5, label=f"study, {s} ({v}x)")
    ax.set_xlabel("threads")
    ax.set_ylabel("force-part speedup over serial")
    ax.set_title(f"{rows[0]['atoms'] if rows else ''} atoms, {_cpu(doc)}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "ch01_speedup.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s, color in (("critical", "C0"), ("triangle", "C1")):
        pts = sorted((r["threads"], r["idle_ms"], r.get("model_idle_ms", 0)) for r in rows if r["strategy"] == s)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, label=f"{s}: measured (median)")
            spread = sorted((r["threads"], r["idle_ms_min"], r["idle_ms_max"]) for r in rows
                            if r["strategy"] == s and "idle_ms_min" in r)
            if spread:
                ax.fill_between([p[0] for p in spread], [p[1] for p in spread], [p[2] for p in spread], color=color,
                                alpha=0.15, label=f"{s}: min-max")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], linestyle="--", color=color, label=f"{s}: model")
    ax.set_xlabel("threads")
    ax.set_ylabel("idle time of the team per force evaluation (ms)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "ch01_idle.png", dpi=120)
    plt.close(fig)

    if "ch01_timeline.png" in names:
        timelines = [t for t in doc["extra"]["timelines"]
                     if t.get("cells") == DEFAULT_CELLS and t["strategy"] in ("critical", "triangle")]
        timelines = timelines or doc["extra"]["timelines"][:2]
        fig, axes = plt.subplots(len(timelines), 1, figsize=(8, 1.2 + 0.28 * sum(len(t["timeline"]) for t in timelines)),
                                 squeeze=False)
        for ax, tl in zip(axes[:, 0], timelines):
            span = max(th["section_exit_us"] for th in tl["timeline"])
            for k, th in enumerate(tl["timeline"]):
                ax.broken_barh([(th["start_us"], th["loop_begin_us"] - th["start_us"])], (k - 0.4, 0.8), color="0.7")
                ax.broken_barh([(th["loop_begin_us"], th["compute_end_us"] - th["loop_begin_us"])], (k - 0.4, 0.8),
                               color="C2")
                ax.broken_barh([(th["compute_end_us"], th["section_enter_us"] - th["compute_end_us"]),
                                (th["section_exit_us"], span - th["section_exit_us"])], (k - 0.4, 0.8), color="C3",
                               alpha=0.35)
                ax.broken_barh([(th["section_enter_us"], th["section_exit_us"] - th["section_enter_us"])],
                               (k - 0.4, 0.8), color="C3")
            ax.set_title(f"{tl['strategy']}, {tl['threads']} threads: green pair loop, red critical section, "
                         "pale red idle", fontsize=9)
            ax.set_ylabel("thread")
            ax.invert_yaxis()
        axes[-1, 0].set_xlabel("microseconds since the parallel region opened")
        fig.tight_layout()
        fig.savefig(out_dir / "ch01_timeline.png", dpi=120)
        plt.close(fig)
    return names
