"""Tables and plots of chapter 06 (streams) from committed results (see CONTRIBUTING.md)."""
from __future__ import annotations

import pathlib

BLOCKS = ("streams_summary", "streams_scenarios", "streams_sweep", "streams_timelines")
NO_RESULTS = "No results are committed yet: run `bash 06_streams/bench.sh build results/<gpu>` on a GPU."


def _fmt(value, kind):
    if value is None:
        return "-"
    if kind == "ratio":
        return f"{value:.2f}x"
    if kind == "ms":
        return f"{value:.3f}"
    return f"{value:.2f}"


def _device(doc):
    return doc.get("device", {}).get("name", "unknown GPU")


def _summary(results):
    lines = ["| GPU | best N | pipeline speedup (measured) | model | measured / model | "
             "false dependency: depth-first / breadth-first, 1 queue |", "|---|---:|---:|---:|---:|---:|"]
    for slug in sorted(results):
        extra = results[slug].get("extra", {})
        s = extra.get("summary", {})
        b, f = s.get("balanced_pipeline", {}), s.get("false_dependency", {})
        lines.append(f"| {_device(results[slug])} | {b.get('best_chunks', '-')} | "
                     f"{_fmt(b.get('measured_speedup'), 'ratio')} | {_fmt(b.get('model_speedup'), 'ratio')} | "
                     f"{_fmt(b.get('ratio_to_model'), 'plain')} | {_fmt(f.get('one_queue', {}).get('depth_over_breadth'), 'ratio')} |")
    return "\n".join(lines)


def _scenarios(results):
    parts = []
    for slug in sorted(results):
        doc = results[slug]
        cal = doc.get("extra", {}).get("calibration", {})
        parts.append(f"**{_device(doc)}**: H2D {_fmt(cal.get('h2d_ms'), 'ms')} ms, D2H {_fmt(cal.get('d2h_ms'), 'ms')} ms, "
                     f"both at once {_fmt(cal.get('both_copies_ms'), 'ms')} ms, kernel {_fmt(cal.get('kernel_ms'), 'ms')} ms "
                     f"({cal.get('kernel_iterations', '-')} FMAs per element), {cal.get('copy_engines', '-')} copy engines.\n")
        parts.append("| scenario | variant | measured ms | model ms | speedup | model speedup | overlap |")
        parts.append("|---|---|---:|---:|---:|---:|---:|")
        for r in doc.get("rows", []):
            if r.get("scenario") == "pipeline":
                continue  # the sweep has its own table
            parts.append(f"| {r['scenario']} | {r['variant']} | {_fmt(r.get('measured_ms'), 'ms')} | "
                         f"{_fmt(r.get('model_ms'), 'ms')} | {_fmt(r.get('speedup'), 'ratio')} | "
                         f"{_fmt(r.get('model_speedup'), 'ratio')} | {_fmt(r.get('overlap'), 'plain')} |")
        parts.append("")
    return "\n".join(parts).rstrip()


def _sweep(results):
    parts = []
    for slug in sorted(results):
        sweep = results[slug].get("extra", {}).get("sweep", [])
        if not sweep:
            continue
        parts.append(f"**{_device(results[slug])}**\n")
        parts.append("| N | streams | measured ms | model ms | speedup | model speedup | measured / model |")
        parts.append("|---:|---:|---:|---:|---:|---:|---:|")
        for p in sweep:
            parts.append(f"| {p['chunks']} | {p['streams']} | {_fmt(p['measured_ms'], 'ms')} | {_fmt(p['model_ms'], 'ms')} | "
                         f"{_fmt(p['speedup'], 'ratio')} | {_fmt(p['model_speedup'], 'ratio')} | "
                         f"{_fmt(p['ratio_to_model'], 'plain')} |")
        parts.append("")
        parts.append(f"\\image html 06_streams_sweep_{slug}.png\n")
    return "\n".join(parts).rstrip() or NO_RESULTS


def _timeline_names(doc):
    names = [t["name"] for t in doc.get("extra", {}).get("timelines", [])]
    pipeline = [n for n in names if n.startswith("pipeline N=") or n in ("pageable host memory", "pinned host memory")]
    issue = [n for n in names if n.startswith("1 queue, ") and not n.endswith("(model)")]
    issue += [n for n in names if n.startswith("8 queues, 4 streams") and n.endswith("depth_first")]
    return pipeline, issue


def _timelines(results):
    parts = []
    for slug in sorted(results):
        pipeline, issue = _timeline_names(results[slug])
        if pipeline:
            parts.append(f"\\image html 06_streams_pipeline_timelines_{slug}.png\n")
        if issue:
            parts.append(f"\\image html 06_streams_issue_order_timelines_{slug}.png\n")
    return "\n".join(parts).rstrip() or NO_RESULTS


def tables(results: dict[str, dict]) -> dict[str, str]:
    if not results:
        return {name: NO_RESULTS for name in BLOCKS}
    return {"streams_summary": _summary(results), "streams_scenarios": _scenarios(results),
            "streams_sweep": _sweep(results), "streams_timelines": _timelines(results)}


def _plot_timelines(plt, timelines, path):
    colors = {"H": "tab:blue", "K": "tab:orange", "D": "tab:green", "C": "tab:purple", "S": "tab:gray"}
    height = sum(len(t["rows"]) for t in timelines) * 0.35 + len(timelines) * 0.6 + 0.5
    fig, axes = plt.subplots(len(timelines), 1, figsize=(10, height), squeeze=False)
    end = max((i["end_ms"] for t in timelines for i in t["intervals"]), default=1.0)
    for ax, t in zip(axes[:, 0], timelines):
        for kind, color in colors.items():
            for row in range(len(t["rows"])):
                bars = [(i["start_ms"], i["end_ms"] - i["start_ms"]) for i in t["intervals"]
                        if i["row"] == row and i["kind"] == kind]
                if bars:
                    ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=color, edgecolor="white", linewidth=0.3,
                                   label=kind if row == 0 else None)
        ax.set_yticks(range(len(t["rows"])), t["rows"], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, end * 1.02)
        ax.set_title(t["name"], fontsize=9, loc="left")
    axes[-1, 0].set_xlabel("ms since the base event (H = copy in, K = kernel, D = copy out, C = host function)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plots(results: dict[str, dict], out_dir: pathlib.Path) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = pathlib.Path(out_dir)
    written = []
    for slug in sorted(results):
        doc = results[slug]
        sweep = doc.get("extra", {}).get("sweep", [])
        if sweep:
            fig, ax = plt.subplots(figsize=(7, 4))
            n = [p["chunks"] for p in sweep]
            ax.plot(n, [p["measured_ms"] for p in sweep], "o-", label="measured")
            ax.plot(n, [p["model_ms"] for p in sweep], "s--", label="model T(N)")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("chunks N")
            ax.set_ylabel("pipeline time (ms)")
            ax.set_title(f"Chunked H2D -> kernel -> D2H, {_device(doc)}")
            ax.legend()
            ax.grid(True, alpha=0.3)
            fig.tight_layout()
            name = f"06_streams_sweep_{slug}.png"
            fig.savefig(out_dir / name, dpi=110)
            plt.close(fig)
            written.append(name)
        by_name = {t["name"]: t for t in doc.get("extra", {}).get("timelines", [])}
        pipeline, issue = _timeline_names(doc)
        for names, name in ((pipeline, f"06_streams_pipeline_timelines_{slug}.png"),
                            (issue, f"06_streams_issue_order_timelines_{slug}.png")):
            if names:
                _plot_timelines(plt, [by_name[n] for n in names], out_dir / name)
                written.append(name)
    return written
