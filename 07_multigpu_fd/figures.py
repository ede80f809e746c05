"""Tables and plots of 07_multigpu_fd from committed results (see CONTRIBUTING.md).

bench.sh writes one results file per run: <gpu>/07_multigpu_fd.json (the ladder on one GPU, the scaling
on several), which scripts/make_figures.py hands to tables() and plots(), and <gpu>/07_multigpu_fd.<kind>.json
for each other run (snapshots, the slab check, the NCCL runs), which are read here. Results made before
that split hold every run in the one file; both shapes give the same tables.

The compiler's view of the kernels (registers, shared memory, spills, code size on sm_90) comes from
results/compiler/07_multigpu_fd.sm_90.txt, which compiler_report.py makes with nvcc alone (no GPU). Every
other fact about a kernel (its launch shape, the default rung, blocks per SM) comes from the program's
listing, <gpu>/07_multigpu_fd.variants.json (wave_fd --list-variants); no C++ file is read here.
values() gives the measured numbers quoted in the lesson's prose (<!-- value:NAME --> markers).
The committed PNGs were drawn with matplotlib 3.9.2 (python3 -m pip install matplotlib==3.9.2); another
version draws the same data with slightly different pixels.
"""
import base64
import json
import math
import pathlib
import re
import sys

SCRIPTS = str(pathlib.Path(__file__).resolve().parents[1] / "scripts")
if SCRIPTS not in sys.path:  # make_figures.py puts scripts/ there; a test that loads this file may not
    sys.path.insert(0, SCRIPTS)
import figures_lib  # noqa: E402  (results files by the naming rule, Markdown tables)

NO_RESULTS = "No results are committed yet: run `bash 07_multigpu_fd/bench.sh <build> <results dir>` on a GPU machine."
CHAPTER = "07_multigpu_fd"
RESULTS_DIR = pathlib.Path(__file__).resolve().parent.parent / "results"
# The other runs' files, in the order bench.sh makes them (rows of one lesson table keep that order).
RUN_KINDS = ("variants", "snapshot_layered", "snapshot_constant", "slabs", "nccl_overlap", "nccl_no_overlap")
# Made by compiler_report.py; read from the repository whatever RESULTS_DIR says (it is not a GPU's run).
COMPILER_REPORT = pathlib.Path(__file__).resolve().parent.parent / "results" / "compiler" / f"{CHAPTER}.sm_90.txt"
# The kernels' facts (launch shapes, the default rung, registers and blocks per SM as the runtime and the
# toolkit's occupancy calculator report them) come from the program: `wave_fd --list-variants --json
# results/<gpu>/07_multigpu_fd.variants.json` on the GPU, read here as one more sibling results file.
NO_LISTING = "(needs the kernel listing of a GPU)"
LISTING_COMMAND = "`wave_fd --list-variants --json results/<gpu>/07_multigpu_fd.variants.json` on the GPU"


def _documents(results):
    """[(slug, results JSON)]: each <slug>/07_multigpu_fd.json given, then its siblings in bench order."""
    docs = []
    for slug in sorted(results):
        docs.append((slug, results[slug]))
        siblings = figures_lib.sibling_kinds(slug, CHAPTER, RESULTS_DIR)
        order = sorted(siblings, key=lambda kind: (RUN_KINDS.index(kind) if kind in RUN_KINDS else len(RUN_KINDS), kind))
        for kind in order:
            with siblings[kind].open() as f:
                docs.append((slug, json.load(f)))
    return docs


def _rows(docs, table):
    """[(slug, results JSON, row)] of one lesson table, in document order."""
    return [(slug, doc, row) for slug, doc in docs for row in doc.get("rows", []) if row.get("table") == table]


def _name(slug, doc):
    return figures_lib.device_name(doc, slug)


def _by_gpu(rows):
    """[(heading, [row, ...])], one per results folder in name order, rows in document order: one lesson
    table per GPU, named in its heading (a GPU column would repeat the name on every row and wrap it on a
    narrow page). The heading names the folder too: results/h200 and results/h200x2 are both H200s."""
    groups = {}
    for slug, doc, r in rows:
        groups.setdefault(slug, (f"{_name(slug, doc)} (results/{slug})", []))[1].append(r)
    return [groups[slug] for slug in sorted(groups)]


def _ladder(docs):
    rows = _rows(docs, "ladder")
    if not rows:
        return NO_RESULTS
    # What each rung changes is the same on every GPU: one table of the ideas, then one of times per GPU,
    # each at most seven columns wide.
    ideas, seen = ["| rung | what changes | steps per pass |", "|---|---|---:|"], set()
    for _, _, r in rows:
        if r["variant"] not in seen:
            seen.add(r["variant"])
            ideas.append(f"| `{r['variant']}` | {r.get('teaches', '')} | {r.get('steps_per_pass', 1)} |")
    parts = ["What each rung changes:", "", *ideas]
    for name, gpu_rows in _by_gpu(rows):
        parts += ["", f"**{name}**", "",
                  "| rung | shape | ms/step | Gcells/s | % of copy ceiling | % of cudaMemcpy roofline | vs previous |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for r in gpu_rows:
            prev = r.get("speedup_vs_previous")
            ceiling = r.get("ceiling_pct")
            parts.append(f"| `{r['variant']}` | {r.get('shape') or '-'} | {r['ms_per_step']:.3f} | {r['gcells_per_s']:.1f} | "
                         f"{'-' if ceiling is None else f'{ceiling:.1f}'} | {r['roofline_pct']:.1f} | "
                         f"{'-' if prev is None else f'{prev:.2f}x'} |")
    return "\n".join(parts)


def _tune(docs):
    rows = _rows(docs, "tune")
    if not rows:
        return NO_RESULTS
    parts = []
    for name, gpu_rows in _by_gpu(rows):
        parts += [f"**{name}**", "",
                  "| rung | candidate | shape | ms/step | % of copy ceiling | chosen | bitwise = first |",
                  "|---|---|---|---:|---:|---|---|"]
        for r in gpu_rows:
            bit = r.get("bitwise_equal")
            parts.append(f"| `{r['rung']}` | `{r['variant']}` | {r['shape']} | {r['ms_per_step']:.3f} | "
                         f"{r['ceiling_pct']:.1f} | {'**chosen**' if r.get('chosen') else ''} | "
                         f"{'-' if bit is None else ('equal' if bit else 'DIFFERS')} |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _ladders_by_gpu(docs):
    """{slug: (results JSON, {variant: row})} of every GPU that ran the ladder, stream ceiling included."""
    out = {}
    for slug, doc, r in _rows(docs, "ladder"):
        out.setdefault(slug, (doc, {}))[1][r["variant"]] = r
    return out


def _best(ladder, temporal):
    """The fastest one-step (temporal=False) or temporal rung's row of one GPU's ladder, or None."""
    rows = [r for v, r in ladder.items() if v != "stream_ceiling" and (r.get("steps_per_pass", 1) > 1) == temporal
            and r.get("ceiling_pct") is not None]  # results made before the stream ceiling have no %
    return min(rows, key=lambda r: r["ms_per_step"]) if rows else None


def _scaling(docs):
    """Every multi-GPU and check row of every machine: the notebook's full table, one per results folder."""
    rows = _rows(docs, "strong") + _rows(docs, "weak") + _rows(docs, "nccl") + _rows(docs, "run")
    if not rows:
        return NO_RESULTS
    # One table per GPU, seven columns: the kind names the backend (nccl: one process per GPU; the others
    # one process), the mesh and the GPUs give the rate; a rung other than the runs' first is named.
    parts = []
    for name, gpu_rows in _by_gpu(rows):
        parts += [f"**{name}**", "",
                  "| run | rung | mesh | GPUs / slabs | overlap | ms/step | efficiency | bitwise = 1 GPU |",
                  "|---|---|---|---|---|---:|---:|---|"]
        for r in gpu_rows:
            eff = r.get("efficiency")
            bit = r.get("bitwise_equal")
            kind = f"{r['table']} ({r['backend']})" if r["backend"] != ("nccl" if r["table"] == "nccl" else "single") else r["table"]
            parts.append(f"| {kind} | `{r.get('variant', '-')}` | {r['nx']}×{r['ny']} | {r['gpus']} / {r['slabs']} | "
                         f"{'yes' if r['overlap'] else 'no'} | {r['ms_per_step']:.3f} | "
                         f"{'-' if eff is None else f'{100 * eff:.1f}%'} | "
                         f"{'-' if bit is None else ('equal' if bit else 'DIFFERS')} |")
        parts.append("")
    if any(r["table"] == "run" for _, _, r in rows):
        parts += ["A `run` row is one plain `wave_fd` run, not part of a scaling sweep: the runs committed for other "
                  "sections of this page (the snapshots, one run per medium, and the slab check) add one row each, "
                  "so two rows with the same mesh are two different runs.", ""]
    return "\n".join(parts).rstrip()


# ---- what the halo costs: a model beside the measured scaling ---------------------------------------
# The inputs, all recorded by wave_fd: per scaling row nx, ny, gpus, slabs, overlap, ms_per_step, gb_per_s
# and steps_per_pass (absent: 1); the stencil's halo (extra.stencil.halo of the kernel listing,
# `wave_fd --list-variants`). What the program does not record, and the model therefore assumes:
#  - the bytes of one halo copy: halo·K rows × nx cells × 4-byte floats. The program copies whole stored
#    rows (its padded pitch, at least nx + 40 floats), < 1 % more at the committed meshes; a row field with
#    the bytes one exchange sends would replace this line.
#  - the copies the busiest GPU sends per exchange: one per neighbour slab, min(2, GPUs − 1) with one slab
#    per GPU (halo_copies: each slab sends its first rows up and its last rows down).
#  - the tallest slab's rows: ceil(ny / slabs) (slab_rows: heights differ by at most one row).
FLOAT_BYTES = 4


def _stencil_halo(docs):
    """The stencil's radius (= ghost rows per step) from any committed kernel listing, or None."""
    for doc, _ in _listings(docs).values():
        halo = doc.get("extra", {}).get("stencil", {}).get("halo")
        if isinstance(halo, int) and halo > 0:
            return halo
    return None


def _scaling_sets(docs):
    """{(slug, table, variant): {(gpus, overlap): (doc, row)}} of the strong and weak sweeps, one slab per GPU."""
    sets = {}
    for table in ("strong", "weak"):
        for slug, doc, r in _rows(docs, table):
            if r["slabs"] == r["gpus"]:
                sets.setdefault((slug, table, r.get("variant")), {})[(r["gpus"], r["overlap"])] = (doc, r)
    return sets


def _copies_sent(gpus):
    """Halo copies the busiest GPU sends per exchange, one slab per GPU: none alone, one at either end,
    two (up and down) for every slab between two others."""
    return min(2, gpus - 1)


def _copy_bytes(row, gpus, halo, k):
    """Bytes of one halo copy (one neighbour, one pass): the program's own halo_bytes_per_step (every copy of
    the mesh, each field a pass writes, padded rows) per copy and pass. Rows recorded before that field
    existed are one-step runs: 4 rows of one field, nx floats each."""
    if row.get("halo_bytes_per_step") and gpus > 1:
        return row["halo_bytes_per_step"] * k / (2 * (gpus - 1))
    return halo * k * row["nx"] * FLOAT_BYTES


def _halo_model(docs, rows, halo):
    """{gpus: {...}} of one sweep (rows: {(gpus, overlap): (doc, row)}): what each count's halo is and what
    the model says a step costs without overlap, or {} without the one-GPU rows the model starts from.

    compute(N) = the tallest slab's cells × bytes per cell / the one-GPU run's bandwidth (its gb_per_s);
    exchange(N) = copies sent by the busiest GPU per exchange × the cost of one copy / K (one exchange per
    pass of K steps). The cost of one copy is not recorded: it is taken from the fewest GPUs > 1 measured
    without overlap, as that step's time less its compute, per copy. So the model equals the measurement
    there by construction and predicts every other count from it."""
    out = {}
    if halo is None or (1, False) not in rows:
        return out
    doc1, one = rows[(1, False)]
    bytes_per_cell = doc1.get("extra", {}).get("bytes_per_cell", 12.0)
    rows_per_gpu_1 = one["ny"]

    def compute_ms(r):
        tallest = -(-r["ny"] // r["gpus"])
        return r["nx"] * tallest * bytes_per_cell / (one["gb_per_s"] * 1e9) * 1e3

    counts = sorted({g for g, _ in rows})
    calibration = next(((g, rows[(g, False)][1]) for g in counts if g > 1 and (g, False) in rows), None)
    copy_ms = None
    if calibration:
        g, r = calibration
        k = r.get("steps_per_pass", 1)
        copy_ms = (r["ms_per_step"] - compute_ms(r)) * k / _copies_sent(g)
    for g in counts:
        r = (rows.get((g, False)) or rows.get((g, True)))[1]
        k = r.get("steps_per_pass", 1)
        copies = _copies_sent(g)
        copy_bytes = _copy_bytes(r, g, halo, k)
        entry = {"rows_per_gpu": -(-r["ny"] // g), "copies": copies, "copy_bytes": copy_bytes,
                 "bytes_per_step": copies * copy_bytes / k, "compute_ms": compute_ms(r),
                 "steps_per_pass": k, "calibrated_at": calibration[0] if calibration else None,
                 "copy_ms": copy_ms, "rows_per_gpu_1": rows_per_gpu_1}
        entry["model_ms"] = None if copy_ms is None else entry["compute_ms"] + copies * copy_ms / k
        for overlap in (True, False):
            if (g, overlap) in rows:
                entry["ms" if overlap else "ms_no_overlap"] = rows[(g, overlap)][1]["ms_per_step"]
                entry["eff" if overlap else "eff_no_overlap"] = rows[(g, overlap)][1].get("efficiency")
        out[g] = entry
    return out


def _kib(n):
    return f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n:.0f} B"


def _ms(entry, key):
    v = entry.get(key)
    return "-" if v is None else f"{v:.3f}"


def _pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def _model_table(docs, key):
    """The table of one sweep: per GPU count its halo, the measured times and the model's."""
    slug, table, variant = key
    model = _halo_model(docs, _scaling_sets(docs)[key], _stencil_halo(docs))
    if not model:
        return None
    any_entry = next(iter(model.values()))
    lines = ["| GPUs | rows per GPU | halo sent per step (busiest GPU) | ms/step, overlap | ms/step, no overlap | "
             "model, no overlap | efficiency, overlap / no overlap |",
             "|---:|---:|---:|---:|---:|---:|---|"]
    for g, e in sorted(model.items()):
        sent = "-" if e["copies"] == 0 else f"{e['copies']} × {_kib(e['copy_bytes'])}" + (
            f" per {e['steps_per_pass']} steps" if e["steps_per_pass"] > 1 else "")
        lines.append(f"| {g} | {e['rows_per_gpu']} | {sent} | {_ms(e, 'ms')} | {_ms(e, 'ms_no_overlap')} | "
                     f"{_ms(e, 'model_ms')} | {_pct(e.get('eff'))} / {_pct(e.get('eff_no_overlap'))} |")
    if any_entry["calibrated_at"] is None:
        lines += ["", "(No count above one GPU was measured without overlap: the model has no copy cost.)"]
    return "\n".join(lines)


def _lesson_sweep(docs):
    """The sweep the lesson shows: strong scaling of the machine with the most GPUs (name order breaks a
    tie), its one-step rung first; None without scaling rows."""
    keys = [k for k in _scaling_sets(docs) if k[1] == "strong"]
    if not keys:
        return None
    sets = _scaling_sets(docs)

    def rank(key):
        rows = sets[key]
        most = max(g for g, _ in rows)
        k = next(iter(rows.values()))[1].get("steps_per_pass", 1)
        return (-most, key[0], k > 1, key[2] or "")
    return min(keys, key=rank)


def _scaling_lesson(docs):
    key = _lesson_sweep(docs)
    if key is None:
        return NO_RESULTS
    slug, _, variant = key
    doc = next(iter(_scaling_sets(docs)[key].values()))[0]
    table = _model_table(docs, key)
    if table is None:
        return "(needs the one-GPU rows and the kernel listing of a GPU)"
    model = _halo_model(docs, _scaling_sets(docs)[key], _stencil_halo(docs))
    first = next(iter(_scaling_sets(docs)[key].values()))[1]
    calibrated = next(iter(model.values()))["calibrated_at"]
    head = (f"Strong scaling of the {first['nx']}×{first['ny']} mesh on the {_name(slug, doc)} machine "
            f"(results/{slug}), rung `{variant}`"
            + (f"; one copy's cost taken from the {calibrated}-GPU run without overlap, which the model therefore "
               "equals." if calibrated else "."))
    return head + "\n\n" + table


def _scaling_models(docs):
    """The notebook: the halo model of every sweep of every machine and rung."""
    keys = sorted(_scaling_sets(docs))
    if not keys:
        return NO_RESULTS
    parts = []
    for key in keys:
        slug, table, variant = key
        doc = next(iter(_scaling_sets(docs)[key].values()))[0]
        body = _model_table(docs, key)
        if body is None:
            continue
        parts += [f"**{table} scaling, `{variant}`, {_name(slug, doc)} (results/{slug})**", "", body, ""]
    return "\n".join(parts).rstrip() or "(needs the one-GPU rows and the kernel listing of a GPU)"


def _snapshots(docs):
    for slug, doc in docs:
        for snap in doc.get("extra", {}).get("snapshots", []):
            yield slug, snap


def _distinct_snapshots(docs):
    """[(image name, snapshot, [GPU names])]: one picture per distinct field. Every GPU computes the same
    bits (the lesson's bitwise promise), so the same run on two GPUs is one picture, named for both; a
    field that differed would get a picture per GPU."""
    groups = {}
    for slug, snap in _snapshots(docs):
        key = (snap["velocity"], snap["step"], snap["nx"], snap["ny"], snap["peak"], snap["data_base64"])
        groups.setdefault(key, (snap, []))[1].append((slug, _name(slug, dict(docs)[slug])))
    out, per_velocity = [], {}
    for snap, _ in groups.values():
        per_velocity[snap["velocity"]] = per_velocity.get(snap["velocity"], 0) + 1
    for snap, gpus in groups.values():
        suffix = "" if per_velocity[snap["velocity"]] == 1 else "_" + "_".join(slug for slug, _ in gpus)
        out.append((f"ch07_wavefield_{snap['velocity']}{suffix}.png", snap, [name for _, name in gpus]))
    return out


def _wavefield_caption(snap, gpus):
    where = (f"on the {gpus[0]}" if len(gpus) == 1 else
             "on the " + " and the ".join(gpus) + ", which computed the same bits (one picture for both)")
    look = ("look at the reflections that leave the front where it crosses each layer boundary (dashed)"
            if snap["velocity"] == "layered" else "look at the single circular front: one speed in every direction")
    return (f"The {snap['velocity']} velocity model after {snap['step']} steps of a {snap['nx']}×{snap['ny']} mesh, "
            f"{where}: {look}.")


# Captions of the result plots: what each shows and where to look.
PLOT_CAPTIONS = {
    "ch07_ladder.png": "The single-GPU ladder, one panel per GPU: compare each bar with the dashed copy ceiling, "
                       "and the orange (several steps per pass) bars with the blue ones.",
    "ch07_roofline.png": "Temporal blocking against its memory model: look at how far the measured best rung for each K "
                         "stays below the dashed line that memory alone would allow.",
    "ch07_scaling.png": "Scaling efficiency against the number of GPUs, measured with and without overlap, beside the "
                        "halo model without overlap (wide, pale): look at where the lines part, the cost of an exchange "
                        "that is not hidden.",
}


def _wavefield_images(docs):
    lines = [f'\\image html {name} "{_wavefield_caption(snap, gpus)}"' for name, snap, gpus in _distinct_snapshots(docs)]
    return "\n".join(lines) if lines else NO_RESULTS


def _plot_image(name, present):
    return f'\\image html {name} "{PLOT_CAPTIONS[name]}"' if present else NO_RESULTS


def _has_roofline(docs):
    return any(_best(ladder, True) for _, ladder in _ladders_by_gpu(docs).values())


def _gpu_verdicts(docs):
    """One sentence per GPU that ran the ladder: its best one-step rung against the program's 90 % target
    (meets_90, as the program judged it) and its best temporal rung against the ceiling."""
    lines = []
    for slug, (doc, ladder) in _ladders_by_gpu(docs).items():
        best, temporal = _best(ladder, False), _best(ladder, True)
        ceiling = ladder.get("stream_ceiling")
        if not best or not ceiling:
            continue
        met = doc.get("extra", {}).get("ladder_best", {}).get("meets_90")
        if met is None:
            met = best["ceiling_pct"] >= 90.0
        sentence = (f"- **{_name(slug, doc)}** (results/{slug}): copy ceiling {ceiling['gcells_per_s']:.0f} Gcells/s; "
                    f"the best one-step rung, `{best['variant']}`, runs at {best['ceiling_pct']:.1f}% of it, "
                    f"{'meeting' if met else 'missing'} the program's 90% target")
        if temporal:
            sentence += (f"; the best temporal rung, `{temporal['variant']}` ({temporal.get('steps_per_pass', 1)} steps "
                         f"per pass), at {temporal['ceiling_pct'] / 100:.2f}× the ceiling: "
                         f"{'past' if temporal['ceiling_pct'] > 100 else 'short of'} it")
        lines.append(sentence + ".")
    return "\n".join(lines) if lines else NO_RESULTS


def _ladder_summary(docs):
    """The lesson's ladder: one row per rung, one column per GPU, % of that GPU's copy ceiling."""
    gpus = _ladders_by_gpu(docs)
    if not gpus:
        return NO_RESULTS
    slugs = list(gpus)
    rungs = list(dict.fromkeys(r["variant"] for _, _, r in _rows(docs, "ladder")))
    head = "| rung | steps per pass | " + " | ".join(f"{_name(s, gpus[s][0])} ({s})" for s in slugs) + " |"
    lines = [head, "|---|---:|" + "---:|" * len(slugs)]
    for rung in rungs:
        cells = []
        for s in slugs:
            r = gpus[s][1].get(rung)
            cells.append("-" if r is None or r.get("ceiling_pct") is None else f"{r['ceiling_pct']:.1f}%")
        k = next(gpus[s][1][rung].get("steps_per_pass", 1) for s in slugs if rung in gpus[s][1])
        lines.append(f"| `{rung}` | {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _occupancy_summary(docs):
    """The lesson's compiler view: three rungs (the book's, its tuned launch, the default) from the
    compiler report and the listing: what each needs and how many blocks one SM holds."""
    report = _compiler_report()
    if report is None:
        return "No compiler report is committed: run `python3 07_multigpu_fd/compiler_report.py`."
    grid = _ladder_grid(docs)
    listing, listed = _listing(docs, _rows(docs, "ladder")[0][0] if grid else None)
    if not (listing and listing.get("extra", {}).get("runtime_listed")):
        return f"Blocks per SM need the kernel listing of a GPU: run {LISTING_COMMAND}."
    shown = ["shared_line", "shared_line_tuned"]
    default = listing["extra"].get("default_rung")
    if default in report["rungs"] and default not in shown:
        shown.append(default)
    lines = [f"sm_90, the Release (optimised) build's flags; blocks per SM on the {_name('', listing)}, launch grid over the "
             f"{grid[0]}×{grid[1]} mesh; each rung in its first shape, not the one the tuning search picked for the "
             "ladder (the notebook's shape search)." if grid else "sm_90, Release flags.", "",
             "| rung | threads per block | registers | blocks per SM (what binds) | warps per SM | launch-grid blocks per SM |",
             "|---|---:|---:|---|---:|---:|"]
    for rung in shown:
        k = report["kernels"]["release"][report["rungs"][rung]]
        row = listed.get(rung)
        rt = _runtime(row)
        if not rt:
            continue
        per_sm = f"{_launch_blocks(row, grid[0], grid[1]) / grid[2]:.1f}" if grid and grid[2] else "-"
        lines.append(f"| `{rung}` | {row['threads']} | {k['registers']} | {rt['blocks_per_sm']} "
                     f"({' and '.join(rt['limited_by'])}) | {rt['warps_per_sm']} | {per_sm} |")
    return "\n".join(lines)


# ---- the compiler's view ---------------------------------------------------------------------------
def _compiler_report(path=None):
    """{"kernels": {build: {kernel: {...}}}, "rungs": {rung: kernel}, "calls": {build: n},
    "ptx": {...}, "nvcc": version} from compiler_report.py's file, or None when it is missing."""
    path = pathlib.Path(path or COMPILER_REPORT)
    if not path.is_file():
        return None
    report = {"kernels": {}, "rungs": {}, "calls": {}, "ptx": {}, "loads": {}, "nvcc": ""}
    columns = ("registers", "barriers", "smem_bytes", "stack_bytes", "spill_store_bytes", "spill_load_bytes", "code_bytes")
    for line in path.read_text().splitlines():
        made_by = re.search(r"\(nvcc: (.*)\)", line)
        if line.startswith("#"):
            if made_by:
                report["nvcc"] = made_by.group(1)
            continue
        f = line.split("\t")
        if f[0] == "kernel":
            report["kernels"].setdefault(f[1], {})[f[2]] = dict(zip(columns, map(int, f[3:])))
        elif f[0] == "rung":
            report["rungs"][f[1]] = f[2]
        elif f[0] == "loads":
            report["loads"][f[2]] = tuple(int(kv.split("=")[1]) for kv in f[3:5])
        elif f[0] == "calls":
            report["calls"][f[1]] = int(f[2].split("=")[1])
        elif f[0] == "ptx":
            report["ptx"] = dict(kv.split("=") for kv in f[2:])
    return report


def _listings(docs):
    """{slug: (listing JSON, {kernel name: row})} of every GPU whose kernel listing is committed."""
    out = {}
    for slug, doc in docs:
        rows = {r["name"]: r for r in doc.get("rows", []) if r.get("table") == "variants"}
        if rows and slug not in out:
            out[slug] = (doc, rows)
    return out


def _listing(docs, slug=None):
    """(listing, rows) of `slug`'s GPU, else of the first GPU with one, else (None, {})."""
    found = _listings(docs)
    if slug in found:
        return found[slug]
    return next(iter(found.values()), (None, {}))


def _launch_blocks(row, nx, ny):
    """Blocks of a launch over an nx × ny slab, from the listed launch shape (columns and rows per block)."""
    return -(-nx // row["cells_per_block_x"]) * (-(-ny // row["rows_per_block"]) if row["rows_per_block"] else 1)


def _runtime(row):
    """The listed runtime part of a kernel (registers, blocks per SM, limits), or None without one."""
    return row if row and row.get("blocks_per_sm") else None


def _ladder_grid(docs):
    """(nx, ny, SM count, GPU name) of the first GPU's ladder, or None."""
    rows = _rows(docs, "ladder")
    if not rows:
        return None
    slug, doc, r = rows[0]
    return r["nx"], r["ny"], doc.get("device", {}).get("sm_count"), _name(slug, doc)


def _compiler_table(docs):
    report = _compiler_report()
    if report is None:
        return "No compiler report is committed: run `python3 07_multigpu_fd/compiler_report.py`."
    grid = _ladder_grid(docs)
    slug = _rows(docs, "ladder")[0][0] if grid else None
    listing, listed = _listing(docs, slug)
    runtime_gpu = _name(slug, listing) if listing and listing.get("extra", {}).get("runtime_listed") else None
    kernels = report["kernels"]["release"]
    lines = [f"`nvcc -Xptxas -v`, sm_90, the chapter's Release flags ({report['nvcc']}); threads per block from the "
             "program's listing. Blocks one SM can hold, by registers / shared memory / warps / block slots, are in "
             "the second table (the binding limit in bold), as the toolkit's occupancy calculator gives them for "
             + (f"the {runtime_gpu} (`wave_fd --list-variants`)" if runtime_gpu else
                f"a GPU (none is committed yet: run {LISTING_COMMAND})")
             + "; its last column "
             + (f"divides the blocks of the launch grid over the {grid[0]}×{grid[1]} mesh by the {grid[2]} SMs of the {grid[3]}." if grid and grid[2]
                else "needs a ladder run."),
             ""]
    # Two tables of at most seven columns: what each kernel needs, then what that allows per SM.
    needs = ["| rung | threads per block | registers | shared memory (bytes) | spills (bytes) | code (KiB) |",
             "|---|---:|---:|---:|---:|---:|"]
    allows = ["| rung | blocks per SM by registers / shared memory / warps / slots | resident blocks (warps) per SM | "
              "launch-grid blocks per SM |",
              "|---|---|---:|---:|"]
    for rung, kernel in report["rungs"].items():
        k = kernels[kernel]
        row = listed.get(rung)
        threads = row["threads"] if row else "-"
        needs.append(f"| `{rung}` | {threads} | {k['registers']} | {k['smem_bytes']} | "
                     f"{k['spill_store_bytes'] + k['spill_load_bytes']} | {k['code_bytes'] / 1024:.1f} |")
        rt = _runtime(row) if runtime_gpu else None
        if rt is None:
            continue
        # In the header's order: the listing's JSON keeps its keys sorted by name.
        limits = " / ".join("-" if (v := rt["limits"].get(n)) is None else (f"**{v}**" if n in rt["limited_by"] else str(v))
                            for n in ("registers", "shared memory", "warps", "block slots"))
        per_sm = f"{_launch_blocks(row, grid[0], grid[1]) / grid[2]:.1f}" if grid and grid[2] else "-"
        allows.append(f"| `{rung}` | {limits} | {rt['blocks_per_sm']} ({rt['warps_per_sm']}) | {per_sm} |")
    tail = [""] + allows if runtime_gpu else ["", f"Blocks per SM need the kernel listing of a GPU: run {LISTING_COMMAND}."]
    return "\n".join(lines + needs + tail)


def _flags_table(docs):
    """Registers, stack, spills and code of a few rungs under -use_fast_math and -G beside the release build."""
    report = _compiler_report()
    if report is None:
        return "No compiler report is committed: run `python3 07_multigpu_fd/compiler_report.py`."
    shown = ["shared_line", "shared_line_tuned"]
    listing, _ = _listing(docs)
    default = listing["extra"].get("default_rung") if listing else None
    if default in report["rungs"] and default not in shown:
        shown.append(default)
    builds = (("release", "Release flags"), ("fast_math", "+ `-use_fast_math`"), ("debug", "`-G`"))
    lines = ["| rung | build | registers | stack frame (bytes) | spills (bytes) | code (KiB) |",
             "|---|---|---:|---:|---:|---:|"]
    for rung in shown:
        kernel = report["rungs"][rung]
        for build, label in builds:
            k = report["kernels"][build][kernel]
            lines.append(f"| `{rung}` | {label} | {k['registers']} | {k['stack_bytes']} | "
                         f"{k['spill_store_bytes'] + k['spill_load_bytes']} | {k['code_bytes'] / 1024:.1f} |")
    return "\n".join(lines)


def _multi_gpu_rung(docs):
    """The kernel the committed multi-GPU runs used (the program's default when they ran)."""
    for table in ("strong", "weak", "nccl"):
        for _, _, r in _rows(docs, table):
            if r.get("variant"):
                return r["variant"]
    return None


# ---- numbers quoted in the prose -------------------------------------------------------------------
def _times(ratio):
    return f"{ratio:.1f}×"


def values(results):
    """Every measured number the lesson's prose quotes, by the name of its <!-- value:NAME --> marker."""
    docs = _documents(results)
    gpus = _ladders_by_gpu(docs)
    per_gpu = [f"{stem}_{slug}" for slug in gpus for stem in (
        "stream_gcells", "stream_vs_copy", "best_one_step", "best_one_step_pct", "best_one_step_shape",
        "temporal_best", "temporal_best_x", "temporal_rate", "temporal_verdict", "gpu")]
    names = ("ladder_gpu", "ladder_grid", "ladder_sm_count", "copy_gbs", "book_ms", "book_vs_naive",
             "book_grid_blocks", "book_blocks_per_sm", "book_us_per_row", "tuned_vs_book", "ldg_vs_plain",
             "padded_vs_ldg", "multi_gpu_rung", "multi_gpu_rung_shape", "multi_gpu_rung_vs_best",
             "book_registers", "book_resident", "book_resident_limit", "tuned_registers", "tuned_smem",
             "tuned_resident", "tuned_resident_warps", "tuned_resident_limit", "tuned_grid_blocks_per_sm",
             "prefetch_registers", "prefetch_resident_warps", "prefetch_default_shape",
             "fast_math_ptx", "fast_math_registers", "debug_functions", "debug_book_stack", "debug_prefetch_stack",
             "default_rung", "book_smem", "book_register_arithmetic", "book_smem_arithmetic", "book_warp_limit",
             "book_slot_limit", "book_loads",
             "ldg_loads", "tiled_vec4_pct", "tall_strip_pct", "tall_strip_shape", "best_rung", "best_roofline",
             "pipelined_pct", "pipelined_vs_prefetch", "pipelined_shape", "pipelined_verdict", "temporal_2_x", "temporal_3_x",
             "temporal_4_x", "temporal_model_2", "temporal_model_3", "temporal_model_4", "temporal_bitwise",
             "stream_vs_copy", "ladder_sm_counts") + tuple(per_gpu) + KEY_VALUES
    out = {n: "(no results)" for n in names}
    out |= _gpu_values(docs, gpus)
    out |= _ladder_values(docs, gpus)
    out |= _compiler_values(docs)
    return out | _answer_key_values(docs)


def _pipelined_verdict(gpus):
    """Whether the one-step pipelined rung pays against tiled_vec4_prefetch, on every GPU that ran both."""
    pairs = [(doc, lad["pipelined"]["ms_per_step"] / lad["tiled_vec4_prefetch"]["ms_per_step"])
             for slug, (doc, lad) in gpus.items() if {"pipelined", "tiled_vec4_prefetch"} <= lad.keys()]
    if not pairs:
        return None
    each = ", ".join(f"{ratio:.2f}× on the {_name('', doc)}" for doc, ratio in pairs)
    if all(ratio > 1 for _, ratio in pairs):
        return f"does not pay: `tiled_vec4_prefetch` is faster on every GPU measured ({each})"
    return f"pays on some GPUs: `pipelined` takes, per step, the time of `tiled_vec4_prefetch` times {each}"


def _gpu_values(docs, gpus):
    """The values of each GPU's own ladder (named <value>_<slug>), its SM count and the default rung."""
    out = {}
    verdict = _pipelined_verdict(gpus)
    if verdict:
        out["pipelined_verdict"] = verdict
    listing, _ = _listing(docs)
    out["default_rung"] = f"`{listing['extra']['default_rung']}`" if listing else NO_LISTING
    counts = sorted({doc.get("device", {}).get("sm_count") for doc, _ in gpus.values()} - {None})
    if counts:
        out["ladder_sm_counts"] = (f"the same {counts[0]} SMs" if len(counts) == 1 else
                                   " and ".join(str(c) for c in counts) + " SMs")
    for slug, (doc, ladder) in gpus.items():
        out[f"gpu_{slug}"] = _name(slug, doc)
        ceiling = ladder.get("stream_ceiling")
        if ceiling:
            out[f"stream_gcells_{slug}"] = f"{ceiling['gcells_per_s']:.0f} Gcells/s"
            out[f"stream_vs_copy_{slug}"] = f"{ceiling['roofline_pct']:.1f}%"
        best = _best(ladder, False)
        if best:
            out[f"best_one_step_{slug}"] = f"`{best['variant']}`"
            out[f"best_one_step_pct_{slug}"] = f"{best['ceiling_pct']:.1f}%"
            out[f"best_one_step_shape_{slug}"] = best.get("shape") or "its fixed shape"
        temporal = _best(ladder, True)
        if temporal:
            out[f"temporal_best_{slug}"] = f"`{temporal['variant']}`"
            out[f"temporal_best_x_{slug}"] = f"{temporal['ceiling_pct'] / 100:.2f}×"
            out[f"temporal_rate_{slug}"] = f"{temporal['gcells_per_s']:.0f} Gcells/s"
            out[f"temporal_verdict_{slug}"] = "past" if temporal["ceiling_pct"] > 100 else "short of"
    return out


def _ladder_values(docs, gpus):
    """The values the prose quotes from the first GPU's ladder and tuning table (h100 before h200)."""
    out = {}
    # The prose quotes the first GPU's ladder (results/<slug> in name order: h100 before h200); the
    # per-GPU values above name each GPU's own.
    first_slug = next(iter(gpus), None)
    ladder = {r["variant"]: (slug, doc, r) for slug, doc, r in _rows(docs, "ladder")
              if r["variant"] != "stream_ceiling" and slug == first_slug}
    if ladder:
        first_slug, first_doc, first = next(iter(ladder.values()))
        mine = gpus[first_slug][1]  # the first GPU's ladder: the prose's numbers
        ms = {v: r["ms_per_step"] for v, r in mine.items()}
        sm_count = first_doc.get("device", {}).get("sm_count")
        out["ladder_gpu"] = _name(first_slug, first_doc)
        out["ladder_grid"] = f"{first['nx']}²" if first["nx"] == first["ny"] else f"{first['nx']}×{first['ny']}"
        out["ladder_sm_count"] = str(sm_count)
        out["copy_gbs"] = f"{first_doc['extra']['copy_bandwidth_gbs']:.0f} GB/s"
        if "stream_ceiling" in mine:
            out["stream_vs_copy"] = f"{mine['stream_ceiling']['roofline_pct']:.1f}%"
        out |= _book_values(docs, first_slug, first_doc, first, ms)
        out |= _rung_values(mine, ms)
        out |= _tune_values(docs, first_slug, mine)
    return out


def _book_values(docs, first_slug, first_doc, first, ms):
    """The book's rung (shared_line) against naive_global and the tuned one, its launch grid, and the
    read-only-cache and padded variants."""
    out = {}
    sm_count = first_doc.get("device", {}).get("sm_count")
    if {"naive_global", "shared_line", "shared_line_tuned"} <= ms.keys():
        out["book_ms"] = f"{ms['shared_line']:.1f} ms"
        out["book_vs_naive"] = _times(ms["shared_line"] / ms["naive_global"])
        out["book_us_per_row"] = f"{1000 * ms['shared_line'] / first['ny']:.2f} µs"
        out["tuned_vs_book"] = _times(ms["shared_line"] / ms["shared_line_tuned"])
        book = _listing(docs, first_slug)[1].get("shared_line")
        if book:  # its launch grid over the ladder's mesh, from the listed shape
            blocks = _launch_blocks(book, first["nx"], first["ny"])
            out["book_grid_blocks"] = str(blocks)
            out["book_blocks_per_sm"] = f"{blocks / sm_count:.1f}" if sm_count else "-"
        else:
            out["book_grid_blocks"] = out["book_blocks_per_sm"] = NO_LISTING
    if {"shared_line", "shared_line_ldg", "shared_line_padded"} <= ms.keys():
        out["ldg_vs_plain"] = f"{ms['shared_line'] / ms['shared_line_ldg']:.2f}×"
        out["padded_vs_ldg"] = f"{ms['shared_line_ldg'] / ms['shared_line_padded']:.2f}×"
    return out


def _rung_values(mine, ms):
    """The best one-step rung, tiled_vec4, the pipelined rung and the temporal-blocking rungs."""
    out = {}
    best = _best(mine, False)
    if best:
        out["best_rung"] = f"`{best['variant']}`"
        out["best_roofline"] = f"{best['roofline_pct']:.1f}%"
    if "tiled_vec4" in mine:
        out["tiled_vec4_pct"] = f"{mine['tiled_vec4']['ceiling_pct']:.1f}%"
    if {"pipelined", "tiled_vec4_prefetch"} <= ms.keys():
        out["pipelined_pct"] = f"{mine['pipelined']['ceiling_pct']:.1f}%"
        out["pipelined_vs_prefetch"] = f"{ms['pipelined'] / ms['tiled_vec4_prefetch']:.2f}×"
        out["pipelined_shape"] = mine["pipelined"].get("shape") or "-"
    for k in (2, 3, 4):
        rung = f"temporal_{k}"
        if rung in mine:
            out[f"{rung}_x"] = f"{mine[rung]['ceiling_pct'] / 100:.2f}×"
            # DRAM-bound model: a pass moves 16 bytes per cell (read u, u_prev; write two levels) for K steps.
            out[f"temporal_model_{k}"] = f"{12 * k / 16:.2f}×"
    temporal_rows = [r for r in mine.values() if r.get("steps_per_pass", 1) > 1]
    if temporal_rows:
        out["temporal_bitwise"] = ("equal to `naive_global`'s field, bit for bit" if
                                   all(r.get("bitwise_equal") for r in temporal_rows) else "NOT all equal")
    return out


def _tune_values(docs, first_slug, mine):
    """The tune table of the first GPU: the tall strips, and the rung the multi-GPU runs use."""
    out = {}
    # The tune table of the first GPU: the tall strips, and the shapes whose register cap spills.
    tune = [r for s_, _, r in _rows(docs, "tune") if s_ == first_slug and r["rung"] == "tiled_vec4_prefetch"]
    tall = [r for r in tune if r["variant"] == "wide_vec4_prefetch_r128"]
    if tall:
        out["tall_strip_pct"] = f"{tall[0]['ceiling_pct']:.1f}%"
        out["tall_strip_shape"] = tall[0]["shape"]
    multi = _multi_gpu_rung(docs)
    if multi:
        out["multi_gpu_rung"] = f"`{multi}`"
        multi_rows = [r for r in tune if r["variant"] == multi]
        best = _best(mine, False)
        if multi_rows and best:
            out["multi_gpu_rung_shape"] = multi_rows[0]["shape"]
            gap = 100 * (multi_rows[0]["ms_per_step"] / best["ms_per_step"] - 1)
            out["multi_gpu_rung_vs_best"] = (f"it takes {gap:.1f}% longer per step than `{best['variant']}` in its "
                                             f"tuned shape ({best.get('shape') or 'fixed'})")
    return out


def _compiler_values(docs):
    """The values of the compiler report (registers, shared memory, loads, fast math, debug stacks), with the
    listed occupancy of the ladder's GPU; {} without a report."""
    out = {}
    report = _compiler_report()
    if report:
        rel = report["kernels"]["release"]
        kernel = {rung: rel[k] for rung, k in report["rungs"].items()}
        grid = _ladder_grid(docs)
        listing, listed = _listing(docs, _rows(docs, "ladder")[0][0] if grid else None)
        listed_runtime = bool(listing and listing.get("extra", {}).get("runtime_listed"))
        sm = listing.get("extra", {}).get("sm", {}) if listing else {}

        def occ(rung):
            """The listed runtime part of `rung` on the ladder's GPU, or None."""
            return _runtime(listed.get(rung)) if listed_runtime else None

        loads = {rung: report["loads"].get(k) for rung, k in report["rungs"].items()}
        if loads.get("shared_line") and loads.get("shared_line_ldg"):
            out["book_loads"] = f"{loads['shared_line'][0]} plain `ld.global` and {loads['shared_line'][1]} `ld.global.nc`"
            out["ldg_loads"] = f"{loads['shared_line_ldg'][0]} and {loads['shared_line_ldg'][1]}"
        for rung, key in (("shared_line", "book"), ("shared_line_tuned", "tuned")):
            if rung in kernel:
                out[f"{key}_registers"] = str(kernel[rung]["registers"])
                o = occ(rung)
                out[f"{key}_resident"] = str(o["blocks_per_sm"]) if o else NO_LISTING
                out[f"{key}_resident_limit"] = " and ".join(o["limited_by"]) if o else NO_LISTING
        if "shared_line_tuned" in kernel:
            o = occ("shared_line_tuned")
            out["tuned_smem"] = f"{kernel['shared_line_tuned']['smem_bytes']} bytes"
            out["tuned_resident_warps"] = str(o["warps_per_sm"]) if o else NO_LISTING
            row = listed.get("shared_line_tuned")
            if grid and grid[2]:
                out["tuned_grid_blocks_per_sm"] = (f"{_launch_blocks(row, grid[0], grid[1]) / grid[2]:.0f}" if row
                                                   else NO_LISTING)
        if "tiled_vec4_prefetch" in kernel:
            out["prefetch_registers"] = str(kernel["tiled_vec4_prefetch"]["registers"])
            o = occ("tiled_vec4_prefetch")
            out["prefetch_resident_warps"] = str(o["warps_per_sm"]) if o else NO_LISTING
            out["debug_prefetch_stack"] = (
                f"{report['kernels']['debug'][report['rungs']['tiled_vec4_prefetch']]['stack_bytes']} bytes")
            row = listed.get("tiled_vec4_prefetch")
            out["prefetch_default_shape"] = row["shape"] if row else NO_LISTING
        if "shared_line" in kernel:
            k = kernel["shared_line"]
            out["book_smem"] = f"{k['smem_bytes']} bytes"
            o = occ("shared_line")
            if o and sm:
                lim = o["limits"]
                out["book_register_arithmetic"] = (
                    f"{o['registers']} registers × {o['threads']} threads, allocated as "
                    f"{o['allocated_registers_per_block']} registers per block; the SM's {sm['registers']} registers "
                    f"hold {lim['registers']} such blocks")
                out["book_smem_arithmetic"] = (
                    f"{o['shared_bytes']} bytes, allocated with the system's share as "
                    f"{o['allocated_shared_bytes_per_block']}; the SM's {sm['shared_bytes']} bytes hold "
                    f"{lim['shared memory']} such blocks")
                out["book_warp_limit"] = str(lim["warps"])
                out["book_slot_limit"] = str(lim["block slots"])
            else:
                for name in ("book_register_arithmetic", "book_smem_arithmetic", "book_warp_limit", "book_slot_limit"):
                    out[name] = NO_LISTING
            out["debug_book_stack"] = f"{report['kernels']['debug'][report['rungs']['shared_line']]['stack_bytes']} bytes"
        ptx = report["ptx"]
        if ptx:
            out["fast_math_ptx"] = (f"{ptx['differing']} of its PTX instructions change, "
                                    + ("each only by gaining `.ftz`" if ptx["only_ftz"] == "yes" else
                                       "and not only by `.ftz`"))
        same = all(report["kernels"]["fast_math"].get(k, {}).get("registers") == v["registers"] for k, v in rel.items())
        out["fast_math_registers"] = "the same" if same else "different"
        out["debug_functions"] = str(report["calls"].get("debug", "?"))
    return out


# ---- numbers quoted in the answer key (instructor/answer_key.md) ------------------------------------
# Beside the lesson's values: the book's rung and the tuned one in ms, the two-GPU exchange and what it
# would weigh on smaller grids, and the exercises as the grader ran them (results/<gpu>/grading/key.json,
# read from the repository whatever RESULTS_DIR says, as the compiler report is).
GRADING_DIR = pathlib.Path(__file__).resolve().parent.parent / "results"
KEY_VALUES = ("scaling_gpus", "naive_ms_step", "naive_roofline", "book_ms_step", "tuned_ms_step", "strong2_overlap_ms",
              "strong2_no_overlap_ms", "exchange_ms", "exchange_share", "exchange_share_4096", "exchange_share_2048",
              "grading_gpu", "graded_07_1_s", "graded_07_2_s", "shared_tile_ms",
              "shared_tile_reference_ms", "shared_tile_ratio", "shared_tile_points", "shared_tile_zero_line",
              "stub_ms", "stub_reference_ms", "stub_ratio", "stub_points", "stub_source")


def _grading(slug, record="key"):
    """The grader's record of one grade on one GPU (record "key": the answer key; "handout": the untouched
    handout): {exercise id: entry}, and the GPU's name; or None."""
    path = GRADING_DIR / slug / "grading" / f"{record}.json"
    if not path.is_file():
        return None
    key = json.loads(path.read_text())
    return {e["id"]: e for e in key.get("exercises", [])}, key.get("gpu", slug)


def _per_rep(seconds):
    """A grader time (seconds per timed repetition of probe_07_3) in ms."""
    return f"{seconds * 1e3:.4f} ms"


def _graded_shared_tile(slug):
    """Exercise 07.3 in the grader's records: the solution against naive_global (key.json) and the untouched
    stub, from the handout's grade where it was timed there (the student is the stub), else from the stub
    side of the key's median round; all clocked by the grader, per repetition."""
    out = {}
    key = _grading(slug)
    perf = key and (key[0].get("07.3") or {}).get("perf")
    if not perf:
        return out
    entry = key[0]["07.3"]
    out["shared_tile_ms"] = _per_rep(perf["time"])
    out["shared_tile_reference_ms"] = _per_rep(perf["reference_time"])
    out["shared_tile_ratio"] = f"{perf['time'] / perf['reference_time']:.2f}×"
    out["shared_tile_points"] = f"{entry['points']} of {entry['max_points']} points"
    if "stub_ratio" in perf:  # the stub-relative rule: no points at r >= r0 / 1.1
        from course_lib import scoring  # here, not at the top: diagrams that load this file need no grader
        out["shared_tile_zero_line"] = f"{scoring.zero_point(perf['stub_ratio']):.2f}×"
    handout = _grading(slug, "handout")
    stub_entry = handout and handout[0].get("07.3")
    stub_perf = stub_entry and stub_entry.get("perf")
    if stub_perf and "time" in stub_perf:
        stub = (stub_perf["time"], stub_perf["reference_time"], stub_perf["ratio"], "handout.json")
    else:
        rounds = [r for r in perf.get("rounds", []) if r.get("stub") and r.get("stub_reference")]
        if not rounds or "stub_ratio" not in perf:
            return out
        median = min(rounds, key=lambda r: abs(r["stub"] / r["stub_reference"] - perf["stub_ratio"]))
        stub = (median["stub"], median["stub_reference"], perf["stub_ratio"], "key.json")
    out["stub_ms"] = _per_rep(stub[0])
    out["stub_reference_ms"] = _per_rep(stub[1])
    out["stub_ratio"] = f"{stub[2]:.2f}×"
    out["stub_source"] = f"`results/{slug}/grading/{stub[3]}`"
    if stub_entry is not None:
        out["stub_points"] = f"{stub_entry['points']} of {stub_entry['max_points']} points"
    return out


def _exchange_share(overlap_ms, exchange_ms, side, full_side):
    """The exchange's share of a no-overlap step on a side × side grid, scaled from the measured one:
    compute falls with the area; the exchange at most with the side (all bandwidth), at least not at
    all (all fixed latency). Returns "between A% and B%"."""
    compute = overlap_ms * (side / full_side) ** 2
    low, high = exchange_ms * side / full_side, exchange_ms
    return f"between {100 * low / (compute + low):.0f}% and {100 * high / (compute + high):.0f}%"


def _answer_key_values(docs):
    out = {}
    first_slug = next((slug for slug, _, _ in _rows(docs, "ladder")), None)
    ladder = {r["variant"]: (slug, doc, r) for slug, doc, r in _rows(docs, "ladder") if slug == first_slug}
    if "naive_global" in ladder:
        naive = ladder["naive_global"][2]
        out["naive_ms_step"] = f"{naive['ms_per_step']:.3f} ms/step"
        out["naive_roofline"] = f"{naive['roofline_pct']:.1f}%"
    if {"shared_line", "shared_line_tuned"} <= ladder.keys():
        out["book_ms_step"] = f"{ladder['shared_line'][2]['ms_per_step']:.2f} ms/step"
        out["tuned_ms_step"] = f"{ladder['shared_line_tuned'][2]['ms_per_step']:.2f} ms/step"
    # The 2-GPU pair of the first machine and rung that has one (several machines and rungs may).
    pairs = {}
    for slug, doc, r in _rows(docs, "strong"):
        if r["gpus"] == 2:
            pairs.setdefault((slug, r.get("variant")), {})[r["overlap"]] = (slug, doc, r)
    pair = next((p for p in pairs.values() if {True, False} <= p.keys()), {})
    if {True, False} <= pair.keys():
        slug, doc, with_overlap = pair[True]
        without = pair[False][2]
        exchange = without["ms_per_step"] - with_overlap["ms_per_step"]
        out["scaling_gpus"] = f"2 × {_name(slug, doc)}"
        out["strong2_overlap_ms"] = f"{with_overlap['ms_per_step']:.3f} ms"
        out["strong2_no_overlap_ms"] = f"{without['ms_per_step']:.3f} ms"
        out["exchange_ms"] = f"{exchange:.3f} ms"
        out["exchange_share"] = f"{100 * exchange / without['ms_per_step']:.0f}%"
        for side in (4096, 2048):
            out[f"exchange_share_{side}"] = _exchange_share(with_overlap["ms_per_step"], exchange, side, with_overlap["nx"])
    graded = _grading(ladder["naive_global"][0]) if "naive_global" in ladder else None
    if graded:
        entries, gpu = graded
        out["grading_gpu"] = gpu
        for exercise in ("07.1", "07.2"):
            if exercise in entries:
                out[f"graded_{exercise.replace('.', '_')}_s"] = f"{entries[exercise]['wall_s']:.1f} s"
        out |= _graded_shared_tile(ladder["naive_global"][0])
    return out


def tables(results):
    """The lesson's blocks (README.md) and the notebook's (notebook.md): make_figures fills both pages."""
    docs = _documents(results)
    has_ladder = bool(_rows(docs, "ladder"))
    return {
        # the lesson
        "ch07_wavefields": _wavefield_images(docs),
        "ch07_ladder_summary": _ladder_summary(docs),
        "ch07_ladder_plot": _plot_image("ch07_ladder.png", has_ladder),
        "ch07_gpu_verdicts": _gpu_verdicts(docs),
        "ch07_occupancy": _occupancy_summary(docs),
        "ch07_roofline_plot": _plot_image("ch07_roofline.png", has_ladder and _has_roofline(docs)),
        "ch07_scaling_model": _scaling_lesson(docs),
        "ch07_scaling_plot": _plot_image("ch07_scaling.png", bool(_rows(docs, "strong"))),
        # the lab notebook
        "ch07_ladder": _ladder(docs), "ch07_tune": _tune(docs), "ch07_scaling": _scaling(docs),
        "ch07_scaling_models": _scaling_models(docs),
        "ch07_compiler": _compiler_table(docs), "ch07_flags": _flags_table(docs)}


def plots(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir = pathlib.Path(out_dir)
    docs = _documents(results)
    written = _plot_wavefields(plt, np, docs, out_dir)
    if _rows(docs, "ladder"):
        written += _plot_ladder(plt, np, docs, out_dir)
        written += _plot_roofline(plt, np, docs, out_dir)
    written += _plot_scaling(plt, docs, out_dir)
    return written


def _plot_wavefields(plt, np, docs, out_dir):
    """One PNG per distinct snapshot of the wavefield (ch07_wavefield_*.png)."""
    written = []
    for name, snap, _ in _distinct_snapshots(docs):
        q = np.frombuffer(base64.b64decode(snap["data_base64"]), dtype=np.uint8).astype(np.float32)
        field = (q.reshape(snap["height"], snap["width"]) - 128.0) / 127.0 * snap["peak"]
        lim = 0.2 * snap["peak"] if snap["peak"] > 0 else 1.0
        km = snap["spacing_m"] / 1000.0
        fig, ax = plt.subplots(figsize=(5.5, 5))
        im = ax.imshow(field, cmap="seismic", vmin=-lim, vmax=lim, origin="upper",
                       extent=[0, snap["nx"] * km, snap["ny"] * km, 0])
        if snap["velocity"] == "layered":
            for frac in (1 / 3, 2 / 3):
                ax.axhline(snap["ny"] * km * frac, color="k", lw=0.6, ls="--")
        ax.set_xlabel("x (km)")
        ax.set_ylabel("y (km)")
        ax.set_title(f"{snap['velocity']} velocity, t = {snap['time_s']:.2f} s ({snap['step']} steps)")
        fig.colorbar(im, ax=ax, shrink=0.8, label="u")
        fig.tight_layout()
        fig.savefig(out_dir / name, dpi=110)
        plt.close(fig)
        written.append(name)
    return written


def _plot_ladder(plt, np, docs, out_dir):
    """ch07_ladder.png: every rung's Gcells/s, one panel per GPU that ran the ladder."""
    written = []
    ladder = _rows(docs, "ladder")
    # One panel per GPU that ran the ladder; the labels are the rung names alone (the panel names the
    # GPU), and the figure grows with the number of rungs so that no two labels overlap. The stream
    # ceiling is the dashed line (and its own bar, first); temporal rungs count cells × steps.
    slugs = [slug for slug in dict.fromkeys(slug for slug, _, _ in ladder)]
    counts = [sum(1 for s, _, _ in ladder if s == slug) for slug in slugs]
    fig, axes = plt.subplots(len(slugs), 1, figsize=(9, 0.9 + 0.3 * sum(counts) + 0.6 * len(slugs)),
                             gridspec_kw={"height_ratios": counts}, squeeze=False)
    for ax, slug in zip(axes[:, 0], slugs):
        rows = [(doc, r) for s, doc, r in ladder if s == slug]
        doc = rows[0][0]
        names = [r["variant"] for _, r in rows]
        speeds = [r["gcells_per_s"] for _, r in rows]
        colors = ["tab:gray" if r["variant"] == "stream_ceiling" else
                  "tab:orange" if r.get("steps_per_pass", 1) > 1 else "tab:blue" for _, r in rows]
        y = np.arange(len(rows))
        ax.barh(y, speeds, color=colors, height=0.7)
        ax.set_yticks(y, names, fontsize=9)
        ax.invert_yaxis()
        for yi, v in zip(y, speeds):
            ax.text(v + 2, yi, f"{v:.0f}", va="center", fontsize=8)
        stream = [r for _, r in rows if r["variant"] == "stream_ceiling"]
        if stream:
            ax.axvline(stream[0]["gcells_per_s"], color="tab:red", ls="--", lw=1,
                       label=f"copy ceiling (12 bytes per cell, measured) = {stream[0]['gcells_per_s']:.0f} Gcells/s")
        ax.set_xlim(0, max(speeds) * 1.15)
        r0 = rows[0][1]
        ax.set_title(f"{_name(slug, doc)}: {r0['nx']}×{r0['ny']} grid, one GPU\n"
                     f"(orange: several steps per pass, counted as cells × steps per second)", fontsize=10)
        ax.legend(loc="lower right", fontsize=8)
    axes[-1, 0].set_xlabel("Gcells/s (higher is faster)")
    fig.tight_layout()
    fig.savefig(out_dir / "ch07_ladder.png", dpi=110)
    plt.close(fig)
    written.append("ch07_ladder.png")
    return written


def _plot_roofline(plt, np, docs, out_dir):
    """ch07_roofline.png: the best rung per steps-per-pass K against the DRAM-bound model, per GPU."""
    written = []
    # The roofline of temporal blocking: a pass over DRAM moves 16 bytes per cell (read u and u_prev,
    # write the last two levels) and advances K steps, so a DRAM-bound pass of K steps is worth
    # 12·K/16 of the one-step ceiling (K = 1: 12 bytes, the ceiling itself).
    gpus = [(slug, doc, lad) for slug, (doc, lad) in _ladders_by_gpu(docs).items() if _best(lad, True)]
    if gpus:
        fig, axes = plt.subplots(1, len(gpus), figsize=(4.8 * len(gpus), 3.9), squeeze=False)
        for ax, (slug, doc, lad) in zip(axes[0], gpus):
            stream = lad.get("stream_ceiling")
            if stream is None:
                continue
            c = stream["gcells_per_s"]
            ks = np.arange(1, 5)
            model = [c if k == 1 else c * 12 * k / 16 for k in ks]
            ax.plot(ks, model, "--", color="tab:red", label="DRAM-bound model (16 bytes per pass of K steps)")
            ax.axhline(c, color="tab:gray", lw=0.8, label="one-step copy ceiling")
            by_k = {}
            for r in lad.values():
                if r["variant"] != "stream_ceiling":
                    k = r.get("steps_per_pass", 1)
                    by_k[k] = max(by_k.get(k, 0), r["gcells_per_s"])
            pts = sorted(by_k.items())
            ax.plot([k for k, _ in pts], [v for _, v in pts], "o-", color="tab:blue", label="best rung measured")
            for k, v in pts:
                ax.annotate(f"{v:.0f}", (k, v), textcoords="offset points", xytext=(6, -12), fontsize=8)
            ax.set_xticks(ks)
            ax.set_xlabel("time steps per pass over memory (K)")
            ax.set_ylabel("Gcells × steps / s")
            ax.set_ylim(0, max(model) * 1.1)
            ax.set_title(_name(slug, doc), fontsize=10)
            ax.legend(fontsize=7, loc="upper left")
        fig.tight_layout()
        fig.savefig(out_dir / "ch07_roofline.png", dpi=110)
        plt.close(fig)
        written.append("ch07_roofline.png")
    return written


def _plot_scaling(plt, docs, out_dir):
    """ch07_scaling.png: one row of panels per machine (strong, weak): efficiency against GPUs, measured
    with and without overlap, and the halo model without overlap, one colour per rung."""
    sets = _scaling_sets(docs)
    slugs = sorted({slug for slug, table, _ in sets if table == "strong"})
    if not slugs:
        return []
    halo = _stencil_halo(docs)
    fig, axes = plt.subplots(len(slugs), 2, figsize=(9.5, 3.9 * len(slugs)), squeeze=False)
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown")
    for row_axes, slug in zip(axes, slugs):
        for ax, table in zip(row_axes, ("strong", "weak")):
            keys = sorted((k for k in sets if k[0] == slug and k[1] == table), key=lambda k: k[2] or "")
            low, counts = 100.0, set()
            for colour, key in zip(colours, keys):
                rows, variant = sets[key], key[2]
                model = _halo_model(docs, rows, halo)
                for overlap, style in ((True, "o-"), (False, "s--")):
                    pts = sorted((g, 100 * r["efficiency"]) for (g, ov), (_, r) in rows.items()
                                 if ov == overlap and r.get("efficiency") is not None)
                    if pts:
                        ax.plot([g for g, _ in pts], [e for _, e in pts], style, color=colour,
                                label=f"{variant}, {'overlap' if overlap else 'no overlap'}")
                        low = min(low, *(e for _, e in pts))
                        counts |= {g for g, _ in pts}
                # The model's efficiency, against the measured one-GPU time without overlap.
                base = rows.get((1, False))
                pts = [(g, e["model_ms"]) for g, e in sorted(model.items()) if e.get("model_ms")]
                if base and pts:
                    t1 = base[1]["ms_per_step"]
                    eff = [100 * t1 / ((g if table == "strong" else 1) * m) for g, m in pts]
                    # Wide and pale, under the measured lines: at the count it is taken from, it meets them.
                    ax.plot([g for g, _ in pts], eff, "-", color=colour, lw=6, alpha=0.25, zorder=1,
                            label=f"{variant}, halo model (no overlap)")
                    low = min(low, *eff)
            # Whole GPUs only: a tick at 1.5 GPUs would read as a measurement that was never made.
            ax.set_xticks(sorted(counts) or [1])
            ax.set_xlabel("GPUs")
            ax.set_ylabel("efficiency (%)")
            first = next(iter(sets[keys[0]].values()))[1] if keys else None
            doc = next(iter(sets[keys[0]].values()))[0] if keys else {}
            size = ("" if first is None else f"{first['nx']}×{first['ny']} mesh" if table == "strong" else
                    f"{first['nx']}×{first['ny'] // first['gpus']} per GPU")
            ax.set_title(f"{table} scaling, {_name(slug, doc)} ({slug}), {size}", fontsize=9)
            ax.set_ylim(max(0, 5 * math.floor((low - 3) / 5)), 105)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_dir / "ch07_scaling.png", dpi=110)
    plt.close(fig)
    return ["ch07_scaling.png"]
