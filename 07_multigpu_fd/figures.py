"""Tables and plots of 07_multigpu_fd from committed results (see CONTRIBUTING.md)."""
import base64
import pathlib

NO_RESULTS = "No results are committed yet: run `bash 07_multigpu_fd/bench.sh <build> <results dir>` on a GPU machine."


def _rows(results, table):
    out = []
    for slug in sorted(results):
        for row in results[slug].get("rows", []):
            if row.get("table") == table:
                out.append((slug, row))
    return out


def _name(slug, doc):
    return doc.get("device", {}).get("name", slug)


def _ladder(results):
    rows = _rows(results, "ladder")
    if not rows:
        return NO_RESULTS
    lines = ["| GPU | variant | what changes | ms/step | Gcells/s | GB/s | % of copy roofline | vs previous |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for slug, r in rows:
        prev = r.get("speedup_vs_previous")
        lines.append(f"| {_name(slug, results[slug])} | `{r['variant']}` | {r.get('teaches', '')} | {r['ms_per_step']:.3f} | "
                     f"{r['gcells_per_s']:.1f} | {r['gb_per_s']:.0f} | {r['roofline_pct']:.1f} | "
                     f"{'-' if prev is None else f'{prev:.2f}x'} |")
    return "\n".join(lines)


def _scaling(results):
    rows = _rows(results, "strong") + _rows(results, "weak") + _rows(results, "nccl") + _rows(results, "run")
    if not rows:
        return NO_RESULTS
    lines = ["| GPU | kind | backend | grid | GPUs | slabs | overlap | ms/step | Gcells/s | efficiency | bitwise = 1 GPU |",
             "|---|---|---|---|---:|---:|---|---:|---:|---:|---|"]
    for slug, r in rows:
        eff = r.get("efficiency")
        bit = r.get("bitwise_equal")
        lines.append(f"| {_name(slug, results[slug])} | {r['table']} | {r['backend']} | {r['nx']}×{r['ny']} | {r['gpus']} | "
                     f"{r['slabs']} | {'yes' if r['overlap'] else 'no'} | {r['ms_per_step']:.3f} | {r['gcells_per_s']:.1f} | "
                     f"{'-' if eff is None else f'{100 * eff:.1f}%'} | {'-' if bit is None else ('equal' if bit else 'DIFFERS')} |")
    return "\n".join(lines)


def _snapshots(results):
    for slug in sorted(results):
        for i, snap in enumerate(results[slug].get("extra", {}).get("snapshots", [])):
            yield slug, i, snap


def _snapshot_name(slug, snap):
    return f"ch07_wavefield_{snap['velocity']}_{slug}.png"


def _images(results):
    names = [_snapshot_name(slug, s) for slug, _, s in _snapshots(results)]
    plots = []
    if _rows(results, "ladder"):
        plots.append("ch07_ladder.png")
    if _rows(results, "strong"):
        plots.append("ch07_scaling.png")
    if not names and not plots:
        return NO_RESULTS
    return "\n".join(f"\\image html {n}" for n in names + plots)


def tables(results):
    return {"ch07_ladder": _ladder(results), "ch07_scaling": _scaling(results), "ch07_images": _images(results)}


def plots(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir = pathlib.Path(out_dir)
    written = []
    for slug, _, snap in _snapshots(results):
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

    ladder = _rows(results, "ladder")
    if ladder:
        fig, ax = plt.subplots(figsize=(8, 4))
        labels = [f"{r['variant']}\n({slug})" if len(results) > 1 else r["variant"] for slug, r in ladder]
        ax.barh(labels, [r["gcells_per_s"] for _, r in ladder], color="tab:blue")
        for slug, r in ladder:
            ceiling = results[slug]["extra"]["copy_bandwidth_gbs"] / results[slug]["extra"].get("bytes_per_cell", 12)
            ax.axvline(ceiling, color="tab:red", ls="--", lw=1)
        ax.invert_yaxis()
        ax.set_xlabel("Gcells/s (red: copy bandwidth / 12 bytes per cell)")
        ax.set_title("16384² single-GPU ladder")
        fig.tight_layout()
        fig.savefig(out_dir / "ch07_ladder.png", dpi=110)
        plt.close(fig)
        written.append("ch07_ladder.png")

    strong = _rows(results, "strong")
    if strong:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
        for ax, kind in zip(axes, ("strong", "weak")):
            for overlap, style in ((True, "o-"), (False, "s--")):
                pts = [(r["gpus"], r["efficiency"]) for _, r in _rows(results, kind) if r["overlap"] == overlap]
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
