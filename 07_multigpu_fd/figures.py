"""Tables and plots of 07_multigpu_fd from committed results (see CONTRIBUTING.md).

bench.sh writes one results file per run: <gpu>/07_multigpu_fd.json (the ladder on one GPU, the scaling
on several), which scripts/make_figures.py hands to tables() and plots(), and <gpu>/07_multigpu_fd.<kind>.json
for each other run (snapshots, the slab check, the NCCL runs), which are read here. Results made before
that split hold every run in the one file; both shapes give the same tables.
"""
import base64
import json
import pathlib

NO_RESULTS = "No results are committed yet: run `bash 07_multigpu_fd/bench.sh <build> <results dir>` on a GPU machine."
CHAPTER = "07_multigpu_fd"
RESULTS_DIR = pathlib.Path(__file__).resolve().parent.parent / "results"
# The other runs' files, in the order bench.sh makes them (rows of one lesson table keep that order).
RUN_KINDS = ("snapshot_layered", "snapshot_constant", "slabs", "nccl_overlap", "nccl_no_overlap")


def _documents(results):
    """[(slug, results JSON)]: each <slug>/07_multigpu_fd.json given, then its siblings in bench order."""
    docs = []
    for slug in sorted(results):
        docs.append((slug, results[slug]))
        siblings = {path.name[len(CHAPTER) + 1:-len(".json")]: path
                    for path in (pathlib.Path(RESULTS_DIR) / slug).glob(f"{CHAPTER}.*.json")}
        order = sorted(siblings, key=lambda kind: (RUN_KINDS.index(kind) if kind in RUN_KINDS else len(RUN_KINDS), kind))
        for kind in order:
            with siblings[kind].open() as f:
                docs.append((slug, json.load(f)))
    return docs


def _rows(docs, table):
    """[(slug, results JSON, row)] of one lesson table, in document order."""
    return [(slug, doc, row) for slug, doc in docs for row in doc.get("rows", []) if row.get("table") == table]


def _name(slug, doc):
    return doc.get("device", {}).get("name", slug)


def _ladder(docs):
    rows = _rows(docs, "ladder")
    if not rows:
        return NO_RESULTS
    lines = ["| GPU | variant | what changes | ms/step | Gcells/s | GB/s | % of copy roofline | vs previous |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for slug, doc, r in rows:
        prev = r.get("speedup_vs_previous")
        lines.append(f"| {_name(slug, doc)} | `{r['variant']}` | {r.get('teaches', '')} | {r['ms_per_step']:.3f} | "
                     f"{r['gcells_per_s']:.1f} | {r['gb_per_s']:.0f} | {r['roofline_pct']:.1f} | "
                     f"{'-' if prev is None else f'{prev:.2f}x'} |")
    return "\n".join(lines)


def _scaling(docs):
    rows = _rows(docs, "strong") + _rows(docs, "weak") + _rows(docs, "nccl") + _rows(docs, "run")
    if not rows:
        return NO_RESULTS
    lines = ["| GPU | kind | backend | grid | GPUs | slabs | overlap | ms/step | Gcells/s | efficiency | bitwise = 1 GPU |",
             "|---|---|---|---|---:|---:|---|---:|---:|---:|---|"]
    for slug, doc, r in rows:
        eff = r.get("efficiency")
        bit = r.get("bitwise_equal")
        lines.append(f"| {_name(slug, doc)} | {r['table']} | {r['backend']} | {r['nx']}×{r['ny']} | {r['gpus']} | "
                     f"{r['slabs']} | {'yes' if r['overlap'] else 'no'} | {r['ms_per_step']:.3f} | {r['gcells_per_s']:.1f} | "
                     f"{'-' if eff is None else f'{100 * eff:.1f}%'} | {'-' if bit is None else ('equal' if bit else 'DIFFERS')} |")
    return "\n".join(lines)


def _snapshots(docs):
    for slug, doc in docs:
        for snap in doc.get("extra", {}).get("snapshots", []):
            yield slug, snap


def _snapshot_name(slug, snap):
    return f"ch07_wavefield_{snap['velocity']}_{slug}.png"


def _images(docs):
    names = [_snapshot_name(slug, s) for slug, s in _snapshots(docs)]
    plots = []
    if _rows(docs, "ladder"):
        plots.append("ch07_ladder.png")
    if _rows(docs, "strong"):
        plots.append("ch07_scaling.png")
    if not names and not plots:
        return NO_RESULTS
    return "\n".join(f"\\image html {n}" for n in names + plots)


def tables(results):
    docs = _documents(results)
    return {"ch07_ladder": _ladder(docs), "ch07_scaling": _scaling(docs), "ch07_images": _images(docs)}


def plots(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir = pathlib.Path(out_dir)
    docs = _documents(results)
    written = []
    for slug, snap in _snapshots(docs):
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
        name = _snapshot_name(slug, snap)
        fig.savefig(out_dir / name, dpi=110)
        plt.close(fig)
        written.append(name)

    ladder = _rows(docs, "ladder")
    if ladder:
        fig, ax = plt.subplots(figsize=(8, 4))
        labels = [f"{r['variant']}\n({slug})" if len(results) > 1 else r["variant"] for slug, _, r in ladder]
        ax.barh(labels, [r["gcells_per_s"] for _, _, r in ladder], color="tab:blue")
        for _, doc, r in ladder:
            ceiling = doc["extra"]["copy_bandwidth_gbs"] / doc["extra"].get("bytes_per_cell", 12)
            ax.axvline(ceiling, color="tab:red", ls="--", lw=1)
        ax.invert_yaxis()
        ax.set_xlabel("Gcells/s (red: copy bandwidth / 12 bytes per cell)")
        ax.set_title("16384² single-GPU ladder")
        fig.tight_layout()
        fig.savefig(out_dir / "ch07_ladder.png", dpi=110)
        plt.close(fig)
        written.append("ch07_ladder.png")

    strong = _rows(docs, "strong")
    if strong:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
        for ax, kind in zip(axes, ("strong", "weak")):
            for overlap, style in ((True, "o-"), (False, "s--")):
                pts = [(r["gpus"], r["efficiency"]) for _, _, r in _rows(docs, kind) if r["overlap"] == overlap]
                if pts:
                    ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], style,
                            label="overlap" if overlap else "no overlap")
            ax.set_xlabel("GPUs")
            ax.set_ylabel("efficiency (%)")
            ax.set_title(f"{kind} scaling")
            ax.set_ylim(80, 105)
            ax.legend()
        fig.tight_layout()
        fig.savefig(out_dir / "ch07_scaling.png", dpi=110)
        plt.close(fig)
        written.append("ch07_scaling.png")
    return written
