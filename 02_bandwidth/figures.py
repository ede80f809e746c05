"""Tables, inline values and plots of 02_bandwidth from committed results (see CONTRIBUTING.md).

tables(results) and values(results) are pure Python (json only); plots(results, out_dir) needs matplotlib.
results: gpu slug -> the program's results JSON (results/<slug>/02_bandwidth.json).
"""
import json
import pathlib
import sys

SCRIPTS = str(pathlib.Path(__file__).resolve().parents[1] / "scripts")
if SCRIPTS not in sys.path:  # make_figures.py puts scripts/ there; a test that loads this file may not
    sys.path.insert(0, SCRIPTS)
import figures_lib  # noqa: E402  (results files by the naming rule, Markdown tables)

NO_RESULTS = "No results are committed yet: run `bash 02_bandwidth/bench.sh <build> <results dir>` on a GPU machine."
NOT_YET = ("Not in the committed results yet: this table is generated from a run of the program that measures it "
           "(`bash 02_bandwidth/bench.sh <build> <results dir>` on a GPU machine, then commit the results file).")
BLOCKS = ("earlier_runs", "k80_vs_today", "book_size", "duplex", "fits", "timing_methods", "copy_return", "d2d_duel",
          "p2p", "latency", "plots")
# Results files made by an earlier version of the program, kept in results/ but out of every table and
# comparison: commit (as the file names it) -> why. d495630 came before a rework of 28 of chapter 02's
# source files (timing, checks, the tile kernel, the tuned copies), so its numbers are not this code's.
EARLIER_CODE = {"d495630": "made before a rework of 28 of the chapter's source files"}
# memory_latency's results sit beside the program's: results/<slug>/02_bandwidth.latency.json (bench.sh writes both).
LATENCY_KIND = "latency"
KIND_ORDER = ("pageable", "pinned", "write-combined", "registered", "device")


def _name(slug, doc):
    return figures_lib.device_name(doc, slug)


def _earlier_code(doc):
    """Why a results file is from an earlier version of the program, or None when it is from this one."""
    commit = str(doc.get("commit", ""))
    return next((why for c, why in EARLIER_CODE.items() if commit.startswith(c)), None)


def current(results):
    """The results files this version of the program made: the only ones tables and values compare."""
    return {slug: doc for slug, doc in results.items() if _earlier_code(doc) is None}


def _earlier_runs(results):
    earlier = [(slug, doc) for slug, doc in sorted(results.items()) if _earlier_code(doc) is not None]
    if not earlier:
        return "Every committed results file of this chapter comes from the current program."
    lines = []
    for slug, doc in earlier:
        lines.append(f"`results/{slug}/02_bandwidth.json` ({_name(slug, doc)}, measured {str(doc.get('date', ''))[:10]} at commit {str(doc.get('commit', ''))[:7]}) comes from "
                     f"an earlier version of this program, {_earlier_code(doc)}. It is left out of every table, "
                     "value and comparison on this page except the peer-to-peer table, which only it has and which "
                     "says so; that machine is not available to re-measure.")
    return "\n\n".join(lines)


def _extra(doc):
    return doc.get("extra", {})


def _size(n):
    n = int(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or n % 1024:
            return f"{n} {unit}"
        n //= 1024
    return f"{n} TiB"


def _human(n):
    """A fitted (not exact) byte count in decimal units: "106 kB", "4.4 MB"."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def _pct(value):
    return "-" if value is None else f"{value:.1f}%"


def _k80_vs_today(results):
    lines = ["| copy | K80, blog post (legacy MB/s) | GPU | today (legacy MB/s) | today (GB/s) | x K80 |",
             "|---|---:|---|---:|---:|---:|"]
    labels = {("h2d", "pinned"): "host → device, pinned", ("d2h", "pinned"): "device → host, pinned",
              ("d2d_memcpy", "device"): "device → device (read + write)"}
    found = False
    for key, label in labels.items():
        for slug in sorted(results):
            for row in _extra(results[slug]).get("book_size", []):
                if (row["copy"], row["memory"]) != key or row.get("k80_legacy_mbs") is None:
                    continue
                found = True
                gbs = row["gbs"] * (2 if row.get("legacy_counts_twice") else 1)
                lines.append(f"| {label} | {row['k80_legacy_mbs']:.1f} | {_name(slug, results[slug])} | "
                             f"{row['legacy_mbs']:.1f} | {gbs:.2f} | {row['legacy_mbs'] / row['k80_legacy_mbs']:.1f}x |")
    return "\n".join(lines) if found else NO_RESULTS


def _book_size(results):
    lines = ["| GPU | memory | H2D GB/s | D2H GB/s | both at once GB/s | both / (H2D + D2H) |",
             "|---|---|---:|---:|---:|---:|"]
    found = False
    for slug in sorted(results):
        extra = _extra(results[slug])
        one_way = {(r["copy"], r["memory"]): r["gbs"] for r in extra.get("book_size", [])}
        both = {r["memory"]: r for r in extra.get("bidirectional", [])}
        for kind in KIND_ORDER[:-1]:
            if ("h2d", kind) not in one_way:
                continue
            found = True
            b = both.get(kind)
            both_gbs = "-" if b is None else f"{b['gbs_both_ways']:.2f}"
            both_ratio = "-" if b is None else f"{b['gbs_both_ways'] / b['gbs_one_way_sum']:.2f}"
            lines.append(f"| {_name(slug, results[slug])} | {kind} | {one_way[('h2d', kind)]:.2f} | "
                         f"{one_way.get(('d2h', kind), 0):.2f} | {both_gbs} | {both_ratio} |")
    return "\n".join(lines) if found else NO_RESULTS


def _duplex(results):
    """Pinned (and the other kinds') H2D and D2H at once: each direction's own rate while the other runs,
    beside its one-way rate at the same size, and the two together."""
    lines = ["| GPU | memory | H2D alone GB/s | H2D during D2H GB/s | D2H alone GB/s | D2H during H2D GB/s | "
             "both together GB/s |",
             "|---|---|---:|---:|---:|---:|---:|"]
    found = False
    for slug in sorted(results):
        for b in _extra(results[slug]).get("bidirectional", []):
            if b.get("gbs_h2d_during") is None:
                continue
            found = True
            lines.append(f"| {_name(slug, results[slug])} | {b['memory']} | {b['gbs_h2d_one_way']:.2f} | "
                         f"{b['gbs_h2d_during']:.2f} | {b['gbs_d2h_one_way']:.2f} | {b['gbs_d2h_during']:.2f} | "
                         f"{b['gbs_both_ways']:.2f} |")
    return "\n".join(lines) if found else NOT_YET


def _fits(results):
    """One table per GPU (seven columns: a page-wide table stays readable), then the peaks it compares with."""
    out = []
    for slug in sorted(results):
        fits = _extra(results[slug]).get("fits", [])
        if not fits:
            continue
        out.append(f"**{_name(slug, results[slug])}**\n")
        out.append("| copy | memory | α (µs): spin-blocked / events | β (GB/s) | n½ | β as % of peak | max residual |")
        out.append("|---|---|---:|---:|---:|---:|---:|")
        for f in fits:
            out.append(f"| `{f['copy']}` | {f['memory']} | {f['latency_us']:.2f} / {f['events_latency_us']:.2f} | "
                       f"{f['bandwidth_gbs']:.2f} | {_human(max(0.0, f['half_bandwidth_bytes']))} | "
                       f"{_pct(f.get('percent_of_peak'))} | {100 * f['max_relative_residual']:.0f}% |")
        out.append("")
    if not out:
        return NO_RESULTS
    pcie = []
    for slug in sorted(results):
        p = _extra(results[slug]).get("pcie", {})
        ceiling = _extra(results[slug]).get("copy_ceiling", {}).get("gbs_read_plus_write")
        link = (f"PCIe gen {p['generation']} x{p['width']}, {p['theoretical_gbs']:.1f} GB/s one way"
                if p.get("theoretical_gbs") else "PCIe link unknown (not visible to the program, e.g. in a VM)")
        ceiling_text = "-" if ceiling is None else f"{ceiling:.0f}"
        pcie.append(f"{_name(slug, results[slug])}: {link}; copy ceiling {ceiling_text} GB/s read + write.")
    return "\n".join(out) + "\nPeaks: " + " ".join(pcie)


def _timing_methods(results):
    lines = ["| GPU | copy | bytes | µs per copy, spin-blocked | µs per copy, events | events / spin | spin covered |",
             "|---|---|---:|---:|---:|---:|---:|"]
    found = False
    for slug in sorted(results):
        for row in results[slug].get("rows", []):
            if row.get("scenario") != "sweep" or row.get("memory") not in ("pinned", "device"):
                continue
            if row["copy"] not in ("h2d", "d2h", "d2d_memcpy") or row["bytes"] > 1 << 20:
                continue
            found = True
            spin, ev = row["spin_blocked"], row["events"]
            lines.append(f"| {_name(slug, results[slug])} | `{row['copy']}` | {_size(row['bytes'])} | "
                         f"{1e3 * spin['ms_median']:.2f} | {1e3 * ev['ms_median']:.2f} | "
                         f"{ev['ms_median'] / spin['ms_median']:.2f}x | {100 * spin['spin_covered_fraction']:.0f}% |")
    return "\n".join(lines) if found else NO_RESULTS


def _copy_return(results):
    """One table per GPU, seven columns: the last holds the time from return to complete and, in brackets,
    what the same synchronize takes with nothing queued."""
    out = []
    for slug in sorted(results):
        rows = [r for r in results[slug].get("rows", []) if r.get("scenario") == "copy_return"]
        if not rows:
            continue
        out.append(f"**{_name(slug, results[slug])}**\n")
        out.append("| copy | memory | call | bytes | µs until the call returns | µs until the copy is complete | "
                   "µs from return to complete (with nothing queued) |")
        out.append("|---|---|---|---:|---:|---:|---:|")
        for row in rows:
            out.append(f"| `{row['copy']}` | {row['memory']} | `{row['call']}` | {_size(row['bytes'])} | "
                       f"{row['return_us']:.2f} | {row['complete_us']:.2f} | {row['after_return_us']:.2f} "
                       f"({row['wait_floor_us']:.2f}) |")
        out.append("")
    return "\n".join(out).rstrip("\n") if out else NOT_YET


def _d2d_duel(results):
    lines = ["| GPU | copy | bytes | GB/s (bytes copied) | GB/s (read + write) | CV | x cudaMemcpy |",
             "|---|---|---:|---:|---:|---:|---:|"]
    found = False
    for slug in sorted(results):
        for d in _extra(results[slug]).get("d2d_duel", []):
            found = True
            lines.append(f"| {_name(slug, results[slug])} | `{d['copy']}` | {_size(d['bytes'])} | {d['gbs']:.0f} | "
                         f"{d['gbs_read_plus_write']:.0f} | {100 * d['cv']:.1f}% | {d['vs_memcpy']:.3f}x |")
    best = [(slug, _extra(results[slug])["d2d_best_sm_copy"]) for slug in sorted(results)
            if "d2d_best_sm_copy" in _extra(results[slug])]
    if best:
        lines.append("")
        for slug, b in best:
            lines.append(f"Fastest SM copy on {_name(slug, results[slug])}: `{b['copy']}` at {b['vs_memcpy']:.3f}x "
                         "cudaMemcpy.")
    return "\n".join(lines) if found else NO_RESULTS


def _p2p(results):
    out = []
    for slug in sorted(results):
        p = _extra(results[slug]).get("p2p", {})
        if not p.get("pairs"):
            continue
        earlier = _earlier_code(results[slug])
        note = (f" (from an earlier version of this program, commit {str(results[slug].get('commit', ''))[:7]}, "
                "not re-measured: compare it with nothing on this page)") if earlier else ""
        out.append(f"{_name(slug, results[slug])} × {p['device_count']}, cudaMemcpyPeerAsync of {_size(p['bytes'])}"
                   f"{note}:\n")
        out.append("| src → dst | peer access | GB/s one way | GB/s both ways (sum) |")
        out.append("|---|---|---:|---:|")
        for q in p["pairs"]:
            access = "enabled" if q["peer_access"] else ("off" if q["peer_capable"] else "unavailable")
            out.append(f"| {q['src']} → {q['dst']} | {access} | {q['gbs_one_way']:.1f} | {q['gbs_both_ways']:.1f} |")
        if not p.get("peer_access_available"):
            out.append("\nPeer access is unavailable between these GPUs: only the staged path was measured.")
        out.append("")
    if out:
        return "\n".join(out).rstrip("\n")
    if results:
        return "No peer-to-peer matrix in the committed results (it needs a machine with two or more GPUs)."
    return NO_RESULTS


def load_latency(slug):
    """memory_latency's results on one GPU (ns per dependent load per footprint), or None where not run."""
    return figures_lib.load_sibling(slug, "02_bandwidth", LATENCY_KIND)


def _served_by(row, l2_bytes):
    """Where a footprint's loads are served: far inside the L2, far beyond it, or in between."""
    x = row["bytes"] / l2_bytes
    return "L2" if x <= 0.5 else "DRAM" if x >= 4 else "L2 and DRAM"


def _dram_row(lat):
    """The smallest footprint at least 4 x the L2: nearly every line a DRAM access, with the least TLB reach
    needed (larger footprints add TLB misses to the latency)."""
    l2 = lat["device"]["l2_bytes"]
    return min((r for r in lat["rows"] if r["bytes"] >= 4 * l2), key=lambda r: r["bytes"])


def _l2_row(lat):
    """The largest footprint at most half the L2."""
    l2 = lat["device"]["l2_bytes"]
    return max((r for r in lat["rows"] if r["bytes"] <= l2 / 2), key=lambda r: r["bytes"])


def _latency(results):
    lines = []
    for slug in sorted(results):
        lat = load_latency(slug)
        if not lat:
            continue
        cfg, l2 = lat["config"], lat["device"]["l2_bytes"]
        lines.append(f"**{lat['device']['name']}** (L2 {_size(l2)}), `memory_latency`: one thread, "
                     f"{cfg['loads']:,} dependent loads per timed run through a random cycle of "
                     f"{cfg['line_bytes']}-byte lines, each run going on from where the last stopped; median "
                     f"(min-max) of {cfg['reps']} runs after {cfg['warmup']} warm-up.\n")
        lines.append("| footprint | x L2 | served from | ns per load |")
        lines.append("|---:|---:|---|---:|")
        for r in sorted(lat["rows"], key=lambda r: r["bytes"]):
            lines.append(f"| {r['footprint']} | {r['x_l2']:.2f} | {_served_by(r, l2)} | {r['ns_per_load']:.1f} "
                         f"({r['ns_min']:.1f}-{r['ns_max']:.1f}) |")
        lines.append("")
    return "\n".join(lines).rstrip("\n") if lines else NOT_YET


def _plot_names(results):
    results = current(results)
    names = []
    for slug in sorted(results):
        if any(r.get("scenario") == "sweep" for r in results[slug].get("rows", [])):
            names.append((slug, f"ch02_bandwidth_sweep_{slug}.png", f"ch02_timing_methods_{slug}.png"))
    return names


def _plots_block(results):
    names = _plot_names(results)
    if not names:
        return NO_RESULTS
    lines = []
    for slug, sweep, timing in names:
        gpu = _name(slug, results[slug])
        lines.append(f"\\image html {sweep} \"{gpu}: bandwidth against size per host memory kind, with the fit\"")
        lines.append("")
        lines.append(f"\\image html {timing} \"{gpu}: time per copy, spin-blocked against events around each copy\"")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def tables(results):
    if not results:
        return {name: NO_RESULTS for name in BLOCKS}
    now = current(results)  # results from an earlier version of the program stay out of the comparisons
    if not now:
        blocks = {name: NO_RESULTS for name in BLOCKS}
        blocks.update(earlier_runs=_earlier_runs(results), p2p=_p2p(results))
        return blocks
    return {"earlier_runs": _earlier_runs(results), "k80_vs_today": _k80_vs_today(now), "book_size": _book_size(now),
            "duplex": _duplex(now), "fits": _fits(now), "timing_methods": _timing_methods(now),
            "copy_return": _copy_return(now), "d2d_duel": _d2d_duel(now), "p2p": _p2p(results),
            "latency": _latency(now), "plots": _plots_block(now)}


# ---------------------------------------------------------------------------------------------------
# Inline values: every measured number in the lesson's prose, as <!-- value:NAME -->TEXT<!-- /value -->.
# Names are "<gpu slug>.<what>"; ratios carry their "×", percentages their "%", other numbers no unit
# (the prose names it). A value the committed results cannot give reads "(not measured)".

MISSING = "(not measured)"
# PCIe gen 3 x16, one way, in theory: 8 GT/s per lane, 128b/130b coding, 16 lanes (the K80's link).
PCIE_GEN3_X16_GBS = 8 * 16 * 128 / 130 / 8
LEGACY_MB = 1.024e6  # the old bandwidthTest's "MB" (model.hpp)


def _sweep_point(doc, copy, memory, nbytes):
    for r in doc.get("rows", []):
        if r.get("scenario") == "sweep" and (r["copy"], r["memory"], r["bytes"]) == (copy, memory, nbytes):
            return r
    raise KeyError((copy, memory, nbytes))


def _spin_us(doc, copy, memory, nbytes):
    return 1e3 * _sweep_point(doc, copy, memory, nbytes)["spin_blocked"]["ms_median"]


def _duel(doc):
    return {d["copy"]: d for d in _extra(doc).get("d2d_duel", [])}


def _book(doc, copy, memory):
    for r in _extra(doc).get("book_size", []):
        if (r["copy"], r["memory"]) == (copy, memory):
            return r
    raise KeyError((copy, memory))


def _fit(doc, copy, memory):
    for f in _extra(doc).get("fits", []):
        if (f["copy"], f["memory"]) == (copy, memory):
            return f
    raise KeyError((copy, memory))


def _ratio(x):
    return f"{x:.3f}×"


def _list(items):
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _fit_departures(doc, copy="d2d_memcpy", memory="device", threshold=0.10):
    """Sizes where the measured bandwidth beats the fitted line by more than `threshold`, the largest such
    excess, and the first size after the last of them."""
    f = _fit(doc, copy, memory)
    alpha, beta = f["latency_us"] * 1e-6, f["bandwidth_gbs"] * 1e9
    pts = sorted((r["bytes"], r["spin_blocked"]["ms_median"] * 1e-3) for r in doc.get("rows", [])
                 if r.get("scenario") == "sweep" and (r["copy"], r["memory"]) == (copy, memory))
    excess = [(n, (alpha + n / beta) / t - 1) for n, t in pts]
    above = [(n, e) for n, e in excess if e > threshold]
    if not above:
        return [], 0.0, None
    after = [n for n, _ in excess if n > above[-1][0]]
    return [n for n, _ in above], max(e for _, e in above), (after[0] if after else None)


def _dram_ns(doc):
    """The measured latency of a DRAM load on this results file's GPU (memory_latency, same slug)."""
    return _dram_row(load_latency(doc["_slug"]))["ns_per_load"]


def _gpu_values(doc):
    """name (without the slug) -> a function of the results document giving the text: the device and its
    memory, the host's copies over PCIe, the device-to-device copies, the answer key's, and each copy of the
    duel against cudaMemcpy."""
    v = _device_memory_values(doc) | _host_copy_values(doc) | _device_copy_values(doc) | _answer_key_values(doc)
    for name in _duel(doc):
        v[f"x.{name}"] = (lambda n=name: _ratio(_duel(doc)[n]["vs_memcpy"]))
    return v


def _device_memory_values(doc):
    """The device's SMs and L2, what is in flight, the copy ceiling and the latency of a load (memory_latency)."""
    dev = doc.get("device", {})
    ceiling = _extra(doc).get("copy_ceiling", {}).get("gbs_read_plus_write", 0)
    return {
        "sm_count": lambda: str(dev["sm_count"]),
        "l2_mib": lambda: f"{dev['l2_bytes'] / 2**20:.0f}",
        # One int4 per thread, 2048 resident threads per SM (sm_90), every SM.
        "grid_stride_in_flight_mb": lambda: f"{16 * 2048 * dev['sm_count'] / 1e6:.1f}",
        # Eight 256-thread blocks per SM, one 4 KiB tile each.
        "resident_tiles": lambda: str(8 * dev["sm_count"]),
        "resident_window_mib": lambda: f"{8 * dev['sm_count'] * 4096 / 2**20:.1f}",
        "ceiling_tbs": lambda: f"{ceiling / 1e3:.2f}",
        "latency.l2_ns": lambda: f"{_l2_row(load_latency(doc['_slug']))['ns_per_load']:.0f}",
        "latency.dram_ns": lambda: f"{_dram_ns(doc):.0f}",
        "latency.dram_footprint": lambda: _dram_row(load_latency(doc["_slug"]))["footprint"],
        "latency.largest_ns": lambda: f"{max(load_latency(doc['_slug'])['rows'], key=lambda r: r['bytes'])['ns_per_load']:.0f}",
        "latency.largest_footprint": lambda: max(load_latency(doc["_slug"])["rows"], key=lambda r: r["bytes"])["footprint"],
        # Little's law at the copy ceiling with the measured (unloaded) DRAM latency: bytes in flight, MB.
        "littles_mb": lambda: f"{ceiling * 1e9 * _dram_ns(doc) * 1e-9 / 1e6:.2f}",
    }


def _host_copy_values(doc):
    """Host <-> device over PCIe: the link, the book's sizes against the K80, the fit, what the events add, and
    pageable against pinned at 4 KiB."""
    def uncovered_from(copy, memory):
        for r in sorted((r for r in doc.get("rows", []) if r.get("scenario") == "sweep"
                         and (r["copy"], r["memory"]) == (copy, memory)), key=lambda r: r["bytes"]):
            if r["spin_blocked"]["spin_covered_fraction"] < 1:
                return _size(r["bytes"])
        return "no size measured"

    def covered(copy, memory, nbytes):
        return f"{100 * _sweep_point(doc, copy, memory, nbytes)['spin_blocked']['spin_covered_fraction']:.0f}%"

    v = {
        "pcie_gbs": lambda: f"{_extra(doc)['pcie']['theoretical_gbs']:.0f}",
        "pinned_h2d_pct_of_link": lambda: f"{100 * _book(doc, 'h2d', 'pinned')['gbs'] / _extra(doc)['pcie']['theoretical_gbs']:.0f}%",
        "x_k80.h2d": lambda: f"{_book(doc, 'h2d', 'pinned')['legacy_mbs'] / _book(doc, 'h2d', 'pinned')['k80_legacy_mbs']:.1f}×",
        "x_k80.d2d": lambda: f"{_book(doc, 'd2d_memcpy', 'device')['legacy_mbs'] / _book(doc, 'd2d_memcpy', 'device')['k80_legacy_mbs']:.1f}×",
        "pinned_h2d_1gib_ms": lambda: f"{_spin_us(doc, 'h2d', 'pinned', 2**30) / 1e3:.1f}",
        "pinned_h2d_1gib_residual_us": lambda: f"{_spin_us(doc, 'h2d', 'pinned', 2**30) * 1e-3:.0f}",
        "alpha.pinned_h2d": lambda: f"{_fit(doc, 'h2d', 'pinned')['latency_us']:.1f}",
        "events_extra_1k_h2d_us": lambda: f"{1e3 * _sweep_point(doc, 'h2d', 'pinned', 1024)['events']['ms_median'] - _spin_us(doc, 'h2d', 'pinned', 1024):.1f}",
        "events_extra_4k_h2d_us": lambda: f"{1e3 * _sweep_point(doc, 'h2d', 'pinned', 4096)['events']['ms_median'] - _spin_us(doc, 'h2d', 'pinned', 4096):.1f}",
        "events_extra_16k_h2d_us": lambda: f"{1e3 * _sweep_point(doc, 'h2d', 'pinned', 16384)['events']['ms_median'] - _spin_us(doc, 'h2d', 'pinned', 16384):.1f}",
        "ratio_4k.h2d_pinned_over_pageable": lambda: f"{_spin_us(doc, 'h2d', 'pinned', 4096) / _spin_us(doc, 'h2d', 'pageable', 4096):.1f}×",
        "ratio_4k.d2h_pageable_over_pinned": lambda: f"{_spin_us(doc, 'd2h', 'pageable', 4096) / _spin_us(doc, 'd2h', 'pinned', 4096):.1f}×",
        "ratio_book.h2d_pinned_over_pageable": lambda: f"{_book(doc, 'h2d', 'pinned')['gbs'] / _book(doc, 'h2d', 'pageable')['gbs']:.1f}×",
        "ratio_book.d2h_pinned_over_pageable": lambda: f"{_book(doc, 'd2h', 'pinned')['gbs'] / _book(doc, 'd2h', 'pageable')['gbs']:.1f}×",
        "pageable_h2d_uncovered_from": lambda: uncovered_from("h2d", "pageable"),
        "covered_4k.pageable_h2d": lambda: covered("h2d", "pageable", 4096),
        "covered_4k.pageable_d2h": lambda: covered("d2h", "pageable", 4096),
    }
    for memory in ("pageable", "pinned"):
        for copy in ("h2d", "d2h"):
            v[f"us_4k.{memory}_{copy}"] = (lambda m=memory, c=copy: f"{_spin_us(doc, c, m, 4096):.2f}")
    return v


def _device_copy_values(doc):
    """Device to device: cudaMemcpy against the fit and the duel, the tuned copies, and the link both ways."""
    dev = doc.get("device", {})

    def x(copy):
        return _duel(doc)[copy]["vs_memcpy"]

    def best_knob():
        # The tuned copies that are not the lesson's tile kernel with one knob changed.
        lesson = {"d2d_memcpy", "d2d_sm_kernel", "d2d_grid_stride"}
        knobs = [d for name, d in _duel(doc).items() if name not in lesson and not name.startswith("sm_tile_")]
        best = max(knobs, key=lambda d: d["vs_memcpy"])
        return f"`{best['copy']}` at {_ratio(best['vs_memcpy'])}"

    v = {
        # Sweep sizes where cudaMemcpy device to device beat its own rate in the 1 GiB duel (the HBM rate) by
        # more than 5% (the sweep's own large sizes land within a few percent of the duel either way).
        "d2d_above_duel": lambda: _list(_size(r["bytes"]) for r in sorted(
            (r for r in doc.get("rows", []) if r.get("scenario") == "sweep" and (r["copy"], r["memory"]) == ("d2d_memcpy", "device")
             and r["spin_blocked"]["gbs"] > 1.05 * _duel(doc)["d2d_memcpy"]["gbs"]), key=lambda r: r["bytes"])) or "no size",
        "d2d_above_fit": lambda: _list(_size(n) for n in _fit_departures(doc)[0]),
        "d2d_above_fit_max": lambda: f"{100 * _fit_departures(doc)[1]:.0f}%",
        "d2d_below_fit_from": lambda: _size(_fit_departures(doc)[2]),
        "duel_lesson_cv_max": lambda: f"{100 * max(_duel(doc)[c]['cv'] for c in ('d2d_memcpy', 'd2d_sm_kernel', 'd2d_grid_stride')):.1f}%",
        "sm_over_grid": lambda: f"{100 * (x('d2d_sm_kernel') / x('d2d_grid_stride') - 1):.1f}%",
        "evict_last_gain": lambda: f"{100 * (x('sm_tile_4KiB_evict_last') / x('d2d_sm_kernel') - 1):.1f}%",
        "best_knob": best_knob,
    }
    duel_bytes = lambda: _duel(doc)["d2d_memcpy"]["bytes"]  # noqa: E731
    return v | {
        # The naive rung's grid: 2048 resident threads per SM, one int4 (16 bytes) each per trip; a thread
        # makes at most this many trips (the last one only where the int4s have not run out).
        "grid_stride_trips": lambda: str(-(-duel_bytes() // (16 * 2048 * dev['sm_count']))),
        "duel_size": lambda: _size(duel_bytes()),
        # The fitted β of cudaMemcpy device → device against its rate at the duel's size.
        "d2d_fit_beta_gbs": lambda: f"{_fit(doc, 'd2d_memcpy', 'device')['bandwidth_gbs']:.0f}",
        "d2d_fit_pct_peak": lambda: f"{_fit(doc, 'd2d_memcpy', 'device')['percent_of_peak']:.0f}%",
        "d2d_duel_gbs": lambda: f"{_duel(doc)['d2d_memcpy']['gbs']:.0f}",
        "d2d_fit_vs_duel": lambda: ("above" if _fit(doc, 'd2d_memcpy', 'device')['bandwidth_gbs'] >
                                    _duel(doc)['d2d_memcpy']['gbs'] else "at or below"),
        "d2d_largest_sweep_gbs": lambda: f"{_largest_sweep(doc)['spin_blocked']['gbs']:.0f}",
        "d2d_largest_sweep_size": lambda: _size(_largest_sweep(doc)["bytes"]),
        "knobs_vs_lesson": lambda: _knobs_vs_lesson(doc),
        "duplex": lambda: _duplex_sentence(doc),
        "duplex_verdict": lambda: ("is full duplex: it carried more in both directions at once than it can carry "
                                   "one way" if _both(doc, "pinned")["gbs_both_ways"] > _extra(doc)["pcie"]["theoretical_gbs"]
                                   else "did not, in this run, carry more both ways than its one-way rate"),
    }


def _largest_sweep(doc, copy="d2d_memcpy", memory="device"):
    return max((r for r in doc.get("rows", []) if r.get("scenario") == "sweep" and (r["copy"], r["memory"]) == (copy, memory)),
               key=lambda r: r["bytes"])


def _knobs_vs_lesson(doc):
    """Whether the tuned copies beyond the lesson beat its tile kernel, in the duel of this results file:
    the usual knobs (every tuned copy that is not the tile kernel with one change) and the tile kernel's
    own variants, each against the lesson's kernel, with the trials' spread beside the margins."""
    duel = _duel(doc)
    lesson = duel["d2d_sm_kernel"]["vs_memcpy"]
    knobs = [d for name, d in duel.items() if name.startswith(("sm_", "tma_")) and not name.startswith("sm_tile_")]
    tiles = [d for name, d in duel.items() if name.startswith("sm_tile_")]
    if not knobs or not tiles:
        raise KeyError("tuned copies")
    best = max(knobs, key=lambda d: d["vs_memcpy"])
    parts = []
    if best["vs_memcpy"] < lesson:
        parts.append(f"none of the usual knobs reached the lesson's kernel ({_ratio(lesson)} `cudaMemcpy`): the best, "
                     f"`{best['copy']}`, ran at {_ratio(best['vs_memcpy'])}")
    else:
        parts.append(f"a usual knob beat the lesson's kernel ({_ratio(lesson)} `cudaMemcpy`): `{best['copy']}` ran at "
                     f"{_ratio(best['vs_memcpy'])}")
    faster = sorted((d for d in tiles if d["vs_memcpy"] > lesson), key=lambda d: -d["vs_memcpy"])
    if faster:
        margin = max(100 * (d["vs_memcpy"] / lesson - 1) for d in faster)
        cv = 100 * max([duel["d2d_sm_kernel"]["cv"]] + [d["cv"] for d in faster])
        names = _list(f"`{d['copy']}` ({_ratio(d['vs_memcpy'])})" for d in faster)
        count = {1: "one variant", 2: "two variants", 3: "three variants"}.get(len(faster), f"{len(faster)} variants")
        parts.append(f"{count} of the tile kernel itself did beat it, {names}, by at most {margin:.1f}%, "
                     f"a margin {_next_to_spread(margin, cv)} the trials' spread (CV up to {cv:.1f}%)")
    else:
        parts.append("no variant of the tile kernel beat it either")
    return "; ".join(parts)


def _next_to_spread(margin, cv):
    """How a margin (%) compares with the trials' CV (%), in words."""
    if margin <= 1.5 * cv:
        return "about the size of"
    return f"about {margin / cv:.0f} times"


def _duplex_sentence(doc):
    """What pinned H2D and D2H at once show, from the bidirectional row (and each direction's own rate
    where the results hold it): the sentence the lesson and chapter 06 can both say."""
    b = _both(doc, "pinned")
    link = _extra(doc).get("pcie", {}).get("theoretical_gbs")
    faster_one_way = max(_book(doc, "h2d", "pinned")["gbs"], _book(doc, "d2h", "pinned")["gbs"])  # same size
    text = (f"with pinned memory, H2D and D2H copies of {_size(b['bytes'])} on two streams moved "
            f"{b['gbs_both_ways']:.1f} GB/s together, {b['gbs_both_ways'] / faster_one_way:.2f}× the faster direction "
            f"alone and {100 * b['gbs_both_ways'] / b['gbs_one_way_sum']:.0f}% of the two one-way rates summed")
    if link and b["gbs_both_ways"] > link:
        text += f", more than the {link:.0f} GB/s the link can carry one way in theory"
    if b.get("gbs_h2d_during") is not None and b.get("gbs_d2h_during") is not None:
        text += (f"; while the other direction ran, H2D kept {100 * b['gbs_h2d_during'] / b['gbs_h2d_one_way']:.0f}% "
                 f"of its one-way rate and D2H {100 * b['gbs_d2h_during'] / b['gbs_d2h_one_way']:.0f}%")
    else:
        text += ("; each direction's own rate while the other runs is in the duplex table once the results are "
                 "re-measured with this version of the program")
    return text


# Values the instructor page (instructor/answer_key.md) quotes beyond the lesson's; same naming.
ANSWER_KEY_D2D_SIZES = (4 << 20, 16 << 20, 32 << 20)  # the sizes question 5's answer walks through


def _size_tag(n):
    return _size(n).replace(" ", "")


def _events_us(doc, copy, memory, nbytes):
    return 1e3 * _sweep_point(doc, copy, memory, nbytes)["events"]["ms_median"]


def _both(doc, memory):
    for b in _extra(doc).get("bidirectional", []):
        if b["memory"] == memory:
            return b
    raise KeyError(memory)


def _p2p_pair(doc, peer_access, src=0, dst=1):
    for q in _extra(doc)["p2p"]["pairs"]:
        if (q["peer_access"], q["src"], q["dst"]) == (peer_access, src, dst):
            return q
    raise KeyError((peer_access, src, dst))


def _fitted_gbs(doc, nbytes, copy="d2d_memcpy", memory="device"):
    f = _fit(doc, copy, memory)
    return nbytes / (f["latency_us"] * 1e-6 + nbytes / (f["bandwidth_gbs"] * 1e9)) / 1e9


# The grader's records of exercise 02.3 (results/<gpu>/grading/: key.json grades the answer key,
# handout.json the untouched handout, whose 02.3 IS the stub), read from the repository whatever results
# folder the tables use: times in seconds per repetition (one 1 GiB copy), clocked by the grader.
GRADING_DIR = pathlib.Path(__file__).resolve().parent.parent / "results"


def _graded(slug, record, exercise="02.3"):
    """One exercise's entry in results/<slug>/grading/<record>.json; KeyError where there is none."""
    path = GRADING_DIR / slug / "grading" / f"{record}.json"
    entries = {e["id"]: e for e in json.loads(path.read_text()).get("exercises", [])} if path.is_file() else {}
    entry = entries[exercise]
    if not entry.get("perf"):
        raise KeyError(f"{record}.json does not time {exercise}")
    return entry


def _zero_line(stub_ratio):
    """Where the grader's points reach 0 for a stub ratio (course_lib/scoring.py, imported here, not at the
    top: a diagram that loads this file needs no grader)."""
    from course_lib import scoring
    return scoring.zero_point(stub_ratio)


def _grading_values(slug):
    key = lambda: _graded(slug, "key")  # noqa: E731
    stub = lambda: _graded(slug, "handout")  # noqa: E731  (the untouched handout: the student is the stub)
    ms = lambda seconds: f"{seconds * 1e3:.3f}"  # noqa: E731
    return {
        "graded.solution_ms": lambda: ms(key()["perf"]["time"]),
        "graded.solution_reference_ms": lambda: ms(key()["perf"]["reference_time"]),
        "graded.solution_ratio": lambda: f"{key()['perf']['ratio']:.2f}×",
        "graded.solution_points": lambda: f"{key()['points']} of {key()['max_points']}",
        "graded.zero_line": lambda: f"{_zero_line(key()['perf']['stub_ratio']):.2f}×",
        "graded.stub_ms": lambda: ms(stub()["perf"]["time"]),
        "graded.stub_reference_ms": lambda: ms(stub()["perf"]["reference_time"]),
        "graded.stub_ratio": lambda: f"{stub()['perf']['ratio']:.2f}×",
        "graded.stub_points": lambda: f"{stub()['points']} of {stub()['max_points']}",
    }


def _answer_key_values(doc):
    dev = doc.get("device", {})
    ceiling = _extra(doc).get("copy_ceiling", {}).get("gbs_read_plus_write", 0)
    v = {
        "gpu_name": lambda: dev["name"],
        "pcie_link": lambda: f"PCIe gen {_extra(doc)['pcie']['generation']} x{_extra(doc)['pcie']['width']}",
        "ceiling_gbs": lambda: f"{ceiling:.0f}" if ceiling else MISSING,
        "l2_bytes": lambda: f"{dev['l2_bytes']:,}",
        "async_engines": lambda: str(dev["async_engine_count"]),
        # Little's law per SM at the copy ceiling, with the measured DRAM latency (the lesson's).
        "littles_kb_per_sm": lambda: f"{ceiling * _dram_ns(doc) / dev['sm_count'] / 1e3:.1f}",
        "p2p_size": lambda: _size(_extra(doc)["p2p"]["bytes"]),
    } | _grading_values(doc.get("_slug", ""))
    for copy in ("h2d", "d2h"):
        v[f"us_1k.pinned_{copy}"] = (lambda c=copy: f"{_spin_us(doc, c, 'pinned', 1024):.2f}")
        v[f"us_1k_events.pinned_{copy}"] = (lambda c=copy: f"{_events_us(doc, c, 'pinned', 1024):.2f}")
        v[f"events_extra_1k_{copy}_us"] = (
            lambda c=copy: f"{_events_us(doc, c, 'pinned', 1024) - _spin_us(doc, c, 'pinned', 1024):.1f}")
        for memory in KIND_ORDER[:-1]:
            v[f"book_gbs.{memory}_{copy}"] = (lambda m=memory, c=copy: f"{_book(doc, c, m)['gbs']:.1f}")
    for memory in KIND_ORDER[:-1]:
        v[f"both_gbs.{memory}"] = (lambda m=memory: f"{_both(doc, m)['gbs_both_ways']:.1f}")
        v[f"one_way_sum_gbs.{memory}"] = (lambda m=memory: f"{_both(doc, m)['gbs_one_way_sum']:.1f}")
        v[f"both_pct.{memory}"] = (
            lambda m=memory: f"{100 * _both(doc, m)['gbs_both_ways'] / _both(doc, m)['gbs_one_way_sum']:.0f}%")
        v[f"both_cv.{memory}"] = (lambda m=memory: f"{100 * _both(doc, m)['cv']:.1f}%")
    for n in ANSWER_KEY_D2D_SIZES:
        v[f"d2d_gbs.{_size_tag(n)}"] = (
            lambda n=n: f"{_sweep_point(doc, 'd2d_memcpy', 'device', n)['spin_blocked']['gbs']:.0f}")
        v[f"d2d_fit_gbs.{_size_tag(n)}"] = (lambda n=n: f"{_fitted_gbs(doc, n):.0f}")
    for access, tag in ((False, "off"), (True, "on")):
        v[f"p2p.{tag}_one_way"] = (lambda a=access: f"{_p2p_pair(doc, a)['gbs_one_way']:.1f}")
        v[f"p2p.{tag}_both"] = (lambda a=access: f"{_p2p_pair(doc, a)['gbs_both_ways']:.1f}")
    # When each copy call returns: copy_return.<copy>_<memory>_<sync|async>_<size>.<field> (µs).
    for r in doc.get("rows", []):
        if r.get("scenario") != "copy_return":
            continue
        call = "async" if r["call"] == "cudaMemcpyAsync" else "sync"
        stem = f"copy_return.{r['copy']}_{r['memory']}_{call}_{_size_tag(r['bytes'])}"
        for field in ("return_us", "complete_us", "after_return_us", "wait_floor_us"):
            v[f"{stem}.{field}"] = (lambda r=r, f=field: f"{r[f]:.2f}")
    v["copy_return.summary"] = lambda: _copy_return_summary(doc)
    return v


def _still_running(row) -> bool:
    """A copy was still running when its call returned: more than 2 µs and twice the wait floor were left
    between the return and the synchronize that saw it complete."""
    left = row["after_return_us"] - row["wait_floor_us"]
    return left > max(2.0, 2 * row["wait_floor_us"])


def _copy_return_summary(doc) -> str:
    """What the copy-return table shows, in words, from the rows themselves (so a re-measured table that
    tells another story changes the sentence): for each memory kind and direction, whether each call
    returned with its copy still running, at every size measured."""
    rows = [r for r in doc["rows"] if r.get("scenario") == "copy_return"]
    if not rows:
        raise KeyError("copy_return")

    def running(memory, copy, call):
        found = [_still_running(r) for r in rows if (r["memory"], r["copy"], r["call"]) == (memory, copy, call)]
        if not found:
            raise KeyError(f"copy_return {memory} {copy} {call}")
        return "all" if all(found) else "none" if not any(found) else "some"

    pinned_like = [m for m in KIND_ORDER[:-1] if m != "pageable" and any(r["memory"] == m for r in rows)]
    directions = ("h2d", "d2h")
    asyncs = {running(m, c, "cudaMemcpyAsync") for m in pinned_like for c in directions}
    syncs = {running(m, c, "cudaMemcpy") for m in pinned_like for c in directions}
    kinds = ", ".join(pinned_like[:-1]) + f" or {pinned_like[-1]}" if len(pinned_like) > 1 else pinned_like[0]
    parts = []
    if asyncs == {"all"} and syncs == {"none"}:
        parts.append(f"every {kinds} `cudaMemcpyAsync` returned with its copy still running, and every "
                     f"`cudaMemcpy` with that memory returned only once its copy was complete.")
    else:
        parts.append(f"with {kinds} memory, the calls did not split cleanly into returning at once "
                     f"(`cudaMemcpyAsync`) and returning complete (`cudaMemcpy`): see the table.")
    name = {"h2d": "Host → device", "d2h": "Device → host"}
    for copy in directions:
        sync, asyn = running("pageable", copy, "cudaMemcpy"), running("pageable", copy, "cudaMemcpyAsync")
        if sync == asyn == "all":
            parts.append(f"Pageable, {name[copy].lower()}: both calls returned before the copy was complete, "
                         "at every size measured.")
        elif sync == asyn == "none":
            parts.append(f"Pageable, {name[copy].lower()}: both calls returned only once the copy was "
                         "complete, `cudaMemcpyAsync` included.")
        else:
            parts.append(f"Pageable, {name[copy].lower()}: `cudaMemcpy` returned with the copy still running "
                         f"in {sync} of the sizes, `cudaMemcpyAsync` in {asyn}.")
    # Host → host and device → device, where the results hold them (runs before they were measured lack them).
    h2h_kinds = [m for m in KIND_ORDER[:-1] if any((r["memory"], r["copy"]) == (m, "h2h") for r in rows)]
    if h2h_kinds:
        states = {running(m, "h2h", c) for m in h2h_kinds for c in ("cudaMemcpy", "cudaMemcpyAsync")}
        which = _list(h2h_kinds)
        if states == {"none"}:
            parts.append(f"Host → host ({which}): both calls returned only once the copy was complete.")
        else:
            parts.append(f"Host → host ({which}): some calls returned with the copy still running: see the table.")
    if any(r["copy"] == "d2d" for r in rows):
        sync, asyn = running("device", "d2d", "cudaMemcpy"), running("device", "d2d", "cudaMemcpyAsync")
        said = {"all": "returned with its copy still running at every size measured",
                "none": "returned only once its copy was complete, at every size measured",
                "some": "returned with its copy still running at some of the sizes"}
        parts.append(f"Device → device: `cudaMemcpy` {said[sync]}; `cudaMemcpyAsync` {said[asyn]}.")
    return " ".join(parts)


def _verdict(ratios):
    if ratios and all(r > 1 for r in ratios):
        return "faster than"
    if ratios and all(r < 1 for r in ratios):
        return "slower than"
    return "level with"


def values(results):
    results = current(results)  # results from an earlier version of the program give no value
    out = {}
    for slug in sorted(results):
        doc = dict(results[slug], _slug=slug)  # the slug finds the GPU's other results files
        for name, get in _gpu_values(doc).items():
            try:
                out[f"{slug}.{name}"] = get()
            except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
                out[f"{slug}.{name}"] = MISSING
    ratios = [_duel(doc)["d2d_sm_kernel"]["vs_memcpy"] for doc in results.values() if "d2d_sm_kernel" in _duel(doc)]
    out["verdict.d2d_sm_kernel"] = _verdict(ratios)
    k80 = next((_extra(doc)["k80"] for doc in results.values() if "k80" in _extra(doc)), None)
    out["k80.h2d_pct_of_gen3"] = (MISSING if k80 is None else
                                  f"{100 * k80['h2d_legacy_mbs'] * LEGACY_MB / 1e9 / PCIE_GEN3_X16_GBS:.0f}%")
    out["k80.pcie_gen3_gbs"] = f"{PCIE_GEN3_X16_GBS:.1f}"
    return out


def _size_axis(ax, smallest, largest):
    """A log2 size axis labelled in binary units (1 KiB, 32 KiB, 1 MiB, …) instead of powers of two."""
    lo, hi = max(0, int(smallest).bit_length() - 1), int(largest).bit_length() - 1
    ax.set_xscale("log", base=2)
    major = [2 ** k for k in range(lo, hi + 1) if k % 5 == 0] or [2 ** lo, 2 ** hi]
    ax.set_xticks(major, [_size(n) for n in major])
    ax.set_xticks([2 ** k for k in range(lo, hi + 1)], minor=True)
    ax.xaxis.set_minor_formatter(lambda *_: "")
    ax.set_xlabel("bytes per copy")


def plots(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = pathlib.Path(out_dir)
    written = []
    for slug, sweep_name, timing_name in _plot_names(results):
        doc = results[slug]
        rows = [r for r in doc["rows"] if r.get("scenario") == "sweep"]
        sizes = [r["bytes"] for r in rows]
        fits = {(f["copy"], f["memory"]): f for f in _extra(doc).get("fits", [])}
        panels = (("h2d", "host → device", "GB/s"), ("d2h", "device → host", "GB/s"),
                  ("d2d", "device → device", "GB/s (bytes copied)"))
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), sharey=False)
        host_paced = False
        for ax, (prefix, title, ylabel) in zip(axes, panels):
            series = sorted({(r["copy"], r["memory"]) for r in rows if r["copy"].startswith(prefix)},
                            key=lambda s: (s[0], KIND_ORDER.index(s[1]) if s[1] in KIND_ORDER else 9))
            for marker, (copy, memory) in zip("osD^v", series):
                pts = sorted((r["bytes"], r["spin_blocked"]["gbs"], r["spin_blocked"]["spin_covered_fraction"] < 1)
                             for r in rows if (r["copy"], r["memory"]) == (copy, memory))
                label = memory if prefix != "d2d" else copy
                line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker, ms=4, fillstyle="none", label=label)
                # Where the spin did not outlast the enqueueing, the time is paced by the host: filled.
                paced = [p for p in pts if p[2]]
                if paced:
                    host_paced = True
                    ax.plot([p[0] for p in paced], [p[1] for p in paced], marker, ms=4, color=line.get_color())
                f = fits.get((copy, memory))
                if f and f["bandwidth_gbs"] > 0:
                    xs = [pts[0][0] * (pts[-1][0] / pts[0][0]) ** (i / 100) for i in range(101)]
                    alpha, beta = f["latency_us"] * 1e-6, f["bandwidth_gbs"] * 1e9
                    ax.plot(xs, [x / (alpha + x / beta) / 1e9 if alpha + x / beta > 0 else float("nan") for x in xs],
                            "--", color=line.get_color(), lw=1)
            _size_axis(ax, min(sizes), max(sizes))
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
            ax.set_title(title)
            ax.grid(True, which="major", alpha=0.3)
            ax.legend(fontsize=8, loc="upper left")
        fig.suptitle(f"{_name(slug, doc)}: copy bandwidth against size, spin-blocked timing; "
                     "dashed: the fit n / (α + n/β)")
        if host_paced:
            fig.text(0.5, 0.01, "Filled markers: the spin kernel did not outlast the enqueueing (\"spin covered\" "
                     "below 100%), so the time is paced by the host, not by the GPU.", ha="center", fontsize=9)
        fig.tight_layout(rect=(0, 0.04 if host_paced else 0, 1, 1))
        fig.savefig(out_dir / sweep_name, dpi=110)
        plt.close(fig)
        written.append(sweep_name)

        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        plotted = []
        for copy in ("h2d", "d2h"):
            pts = sorted((r["bytes"], r["spin_blocked"]["ms_median"] * 1e3, r["events"]["ms_median"] * 1e3)
                         for r in rows if r["copy"] == copy and r["memory"] == "pinned")
            if not pts:
                continue
            plotted += [p[0] for p in pts]
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=4, label=f"{copy} pinned, spin-blocked")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "s--", ms=4, color=line.get_color(),
                    label=f"{copy} pinned, events around each copy")
        if plotted:
            _size_axis(ax, min(plotted), max(plotted))
        ax.set_yscale("log")
        ax.set_ylabel("µs per copy (median)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
        ax.set_title(f"{_name(slug, doc)}: what the timing method adds to small copies")
        fig.tight_layout()
        fig.savefig(out_dir / timing_name, dpi=110)
        plt.close(fig)
        written.append(timing_name)
    return written
