"""Chapter 00: the ladder's table, the stride sweep, the memory-hierarchy table and the numbers the lesson
quotes, from results/<gpu>/00_first_kernel.json (and 00_first_kernel.strides.json), with the L2 and HBM
latency and cudaMemcpy's bandwidth read from chapter 02's committed results of the same GPU.

Until bench.sh has run on a GPU there is no 00_first_kernel.json: every block and value this chapter's own
results fill then says "not measured yet" (and make_figures --check still passes); the rows of the hierarchy
table that chapter 02's results or NVIDIA's documents give are filled all the same.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

SCRIPTS = str(Path(__file__).resolve().parents[1] / "scripts")
if SCRIPTS not in sys.path:  # make_figures.py puts scripts/ there; a test that loads this file may not
    sys.path.insert(0, SCRIPTS)
import figures_lib  # noqa: E402  (results files by the naming rule, Markdown tables)

LADDER = ("saxpy", "saxpy_grid_stride", "copy_coalesced", "copy_strided", "copy_2d", "transpose_naive",
          "transpose_shared")
PENDING = "*Not measured yet: run `00_first_kernel/bench.sh` on a GPU, then `python3 scripts/make_figures.py`.*"
PENDING_VALUE = "(not measured yet)"
VALUE_NAMES = ("run", "gpu", "saxpy_gbs", "grid_stride_vs_saxpy", "coalesced_gbs", "strided_gbs", "strided_slower",
               "copy_2d_gbs", "naive_gbs", "naive_slower", "shared_gbs", "shared_vs_naive", "shared_of_copy_2d",
               "shared_ns", "l1_ns", "l2_gbs", "l2_ns", "hbm_ns", "memcpy_gbs", "coalesced_of_memcpy",
               "launch_1d", "launch_2d", "stride_sectors_gbs", "device", "sm_count", "littles_law",
               "launch_grid_stride", "stride1_gbs", "copy_2d_of_coalesced", "graded_solution_ms",
               "graded_reference_ms", "graded_solution_ratio", "graded_solution_points", "graded_stub_ms",
               "graded_stub_reference_ms", "graded_stub_ratio", "graded_zero_line")
# The grader's record of exercise 00.3 (results/<gpu>/grading/key.json, the answer key graded; every round also
# clocks the untouched stub), read from the repository: seconds per repetition, clocked by the grader. The
# handout's grade did not time 00.3 (00.3 runs 00.2's kernel, a stub there).
GRADING_DIR = Path(__file__).resolve().parent.parent / "results"


def _graded(slug: str) -> dict[str, str]:
    """00.3 as the grader clocked it on one GPU, times in ms per repetition; {} where no record is committed."""
    path = GRADING_DIR / slug / "grading" / "key.json"
    if not path.is_file():
        return {}
    entry = next((e for e in json.loads(path.read_text()).get("exercises", []) if e.get("id") == "00.3"), None)
    perf = entry and entry.get("perf")
    rounds = [r for r in (perf or {}).get("rounds", []) if r.get("stub") and r.get("stub_reference")]
    if not perf or "stub_ratio" not in perf or not rounds:
        return {}
    from course_lib import scoring  # here, not at the top: the lesson's tables need no grader
    # The record's stub_ratio is the median round's (scoring.verdict); quote that round's two times.
    median = min(rounds, key=lambda r: abs(r["stub"] / r["stub_reference"] - perf["stub_ratio"]))
    return {"graded_solution_ms": f"{perf['time'] * 1e3:.3f} ms", "graded_reference_ms": f"{perf['reference_time'] * 1e3:.3f} ms",
            "graded_solution_ratio": _times(perf["ratio"]),
            "graded_solution_points": f"{entry['points']} of {entry['max_points']} points",
            "graded_stub_ms": f"{median['stub'] * 1e3:.3f} ms", "graded_stub_reference_ms": f"{median['stub_reference'] * 1e3:.3f} ms",
            "graded_stub_ratio": _times(perf["stub_ratio"]), "graded_zero_line": _times(scoring.zero_point(perf["stub_ratio"]))}


def _first(results: dict[str, dict]) -> tuple[str, dict] | None:
    """The results the prose quotes: the H100's when there are several GPUs, else the first."""
    if not results:
        return None
    slug = "h100" if "h100" in results else sorted(results)[0]
    return slug, results[slug]


def _sibling(slug: str, chapter: str, kind: str | None = None) -> dict | None:
    return figures_lib.load_sibling(slug, chapter, kind)


def _ladder_rows(doc: dict) -> dict[str, dict]:
    return {r["variant"]: r for r in doc["rows"] if "variant" in r}


def _level_rows(doc: dict) -> dict[str, dict]:
    return {r["level"]: r for r in doc["rows"] if "level" in r}


def _gbs(x: float) -> str:
    return f"{x:,.0f} GB/s"


def _times(x: float) -> str:
    return f"{x:.2f}×"


def _latency_02(slug: str) -> tuple[float, float] | None:
    """Chapter 02's pointer chase: the latency of one load at the smallest footprint (in L2) and the
    largest (in HBM), in ns."""
    doc = _sibling(slug, "02_bandwidth", "latency")
    if not doc or not doc.get("rows"):
        return None
    rows = sorted(doc["rows"], key=lambda r: r["bytes"])
    return rows[0]["ns_per_load"], rows[-1]["ns_per_load"]


def _latency_02_footprints(slug: str) -> tuple[str, str] | None:
    doc = _sibling(slug, "02_bandwidth", "latency")
    if not doc or not doc.get("rows"):
        return None
    rows = sorted(doc["rows"], key=lambda r: r["bytes"])
    return rows[0]["footprint"], rows[-1]["footprint"]


def _memcpy_02(slug: str) -> float | None:
    """cudaMemcpy device to device at 1 GiB in chapter 02's duel, bytes read + written per second."""
    doc = _sibling(slug, "02_bandwidth")
    if not doc:
        return None
    for d in doc.get("extra", {}).get("d2d_duel", []):
        if d.get("copy") == "d2d_memcpy" and "gbs_read_plus_write" in d:
            return d["gbs_read_plus_write"]
    return None


def _device_doc(results: dict[str, dict]) -> tuple[str, dict] | None:
    """The GPU the hierarchy table describes: this chapter's run, else chapter 02's latency run (H100)."""
    first = _first(results)
    if first:
        return first[0], first[1]["device"]
    doc = _sibling("h100", "02_bandwidth", "latency")
    return ("h100", doc["device"]) if doc else None


def _ladder_table(slug: str, doc: dict) -> str:
    rows = _ladder_rows(doc)
    base = rows.get("copy_coalesced")
    cfg = doc["config"]
    out = [f"{doc['device']['name']}, median of {cfg['reps']} event-timed runs after {cfg['warmup']} warm-up runs; "
           f"1-D arrays of {cfg['n']:,} floats, the matrix {cfg['width']} × {cfg['height']}, stride {cfg['stride']} "
           f"(`results/{slug}/00_first_kernel.json`). GB/s counts read + write: the bytes read plus the bytes written, per second.", ""]
    cells = []
    for name in LADDER:
        r = rows.get(name)
        if r is None:
            continue
        ratio = f"{r['gbs'] / base['gbs']:.2f}" if base else "-"
        cells.append([f"`{name}`", r["launch"], f"{r['time_ms']:.3f}", f"{r['gbs']:,.0f}", ratio])
    out.append(figures_lib.markdown_table(["Variant", "Grid × block", "Time (ms)", "GB/s", "× copy_coalesced's GB/s"],
                                          cells, align="llrrr"))
    return "\n".join(out)


def _stride_table(slug: str) -> str:
    doc = _sibling(slug, "00_first_kernel", "strides")
    if not doc:
        return PENDING
    out = ["`copy_strided` alone at each stride (`results/" + slug + "/00_first_kernel.strides.json`). "
           "Sectors per warp load is arithmetic, not a measurement: 32 lanes reading 4 bytes each, `stride` floats "
           "apart, touch min(32, 4 × stride) sectors of 32 bytes.", ""]
    runs = doc["runs"]
    base = runs["1"]["rows"][0]["gbs"] if "1" in runs else None
    cells = []
    for stride in sorted(runs, key=int):
        r = runs[stride]["rows"][0]
        s = int(stride)
        ratio = f"{r['gbs'] / base:.2f}" if base else "-"
        cells.append([s, 4 * s, min(32, 4 * s), f"{r['gbs']:,.0f}", ratio])
    out.append(figures_lib.markdown_table(["Stride (floats)", "Bytes between lanes", "Sectors per warp load", "GB/s",
                                           "× stride 1"], cells, align="rrrrr"))
    return "\n".join(out)


def _hierarchy_table(results: dict[str, dict]) -> str:
    dev = _device_doc(results)
    if dev is None:
        return PENDING
    slug, device = dev
    first = _first(results)
    levels = _level_rows(first[1]) if first else {}
    ladder = _ladder_rows(first[1]) if first else {}
    lat = _latency_02(slug)
    feet = _latency_02_footprints(slug)
    memcpy = _memcpy_02(slug)
    ours = f"`results/{slug}/00_first_kernel.json`"
    ch02 = f"`results/{slug}/02_bandwidth.latency.json`"

    def level(name: str, key: str, unit: str) -> str:
        r = levels.get(name)
        if r is None or r.get(key) is None or (isinstance(r[key], float) and math.isnan(r[key])):
            return PENDING_VALUE
        return f"{r[key]:.1f} ns" if unit == "ns" else _gbs(r[key])

    hbm_bw = _gbs(ladder["copy_coalesced"]["gbs"]) + " (`copy_coalesced`)" if "copy_coalesced" in ladder else PENDING_VALUE
    if memcpy:
        hbm_bw += f"; cudaMemcpy {_gbs(memcpy)} (chapter 02)"
    l2_lat = f"{lat[0]:.0f} ns ({feet[0]} chased, chapter 02)" if lat else "-"
    hbm_lat = f"{lat[1]:.0f} ns ({feet[1]} chased, chapter 02)" if lat else "-"
    out = [f"{device['name']}. Sizes: the CUDA C++ Programming Guide's table of compute capability 9.0 (registers, "
           "shared memory), NVIDIA's H100 architecture whitepaper (L1), the device query (L2, HBM). Latency and "
           f"bandwidth: measured, by this program ({ours}) and by chapter 02's pointer chase ({ch02}).", "",
           "| Level | Whose | Size | One load's latency | Bandwidth |",
           "|---|---|---|---|---|",
           "| registers | one thread's | 65,536 × 4 bytes per SM; at most 255 per thread | none: an instruction reads "
           "them directly | - |",
           f"| shared memory | one block's | up to 228 KiB per SM | {level('shared', 'ns_per_load', 'ns')} | "
           "32 banks × 4 bytes per cycle per SM |",
           f"| L1 cache | one SM's | 256 KiB per SM, shared memory included | {level('L1', 'ns_per_load', 'ns')} | - |",
           f"| L2 cache | the whole GPU's | {device['l2_bytes'] / 2**20:.0f} MiB | {l2_lat} | "
           f"{level('L2', 'gbs', 'gbs')} (read) |",
           f"| HBM (global memory) | the whole GPU's | {device['global_mem_bytes'] / 2**30:.1f} GiB | {hbm_lat} | "
           f"{hbm_bw} (read + write) |"]
    return "\n".join(out)


def tables(results: dict[str, dict]) -> dict[str, str]:
    first = _first(results)
    out = {"hierarchy": _hierarchy_table(results)}
    if first is None:
        return out | {"ladder": PENDING, "strides": PENDING}
    slug, doc = first
    return out | {"ladder": _ladder_table(slug, doc), "strides": _stride_table(slug)}


def plots(results: dict[str, dict], out_dir: Path) -> list[str]:
    return []  # the chapter's numbers are few: tables, and the concept diagrams (diagrams.py)


def values(results: dict[str, dict]) -> dict[str, str]:
    out = {name: PENDING_VALUE for name in VALUE_NAMES}
    dev = _device_doc(results)
    if dev:
        out |= {"device": dev[1]["name"], "sm_count": str(dev[1]["sm_count"])}
        lat = _latency_02(dev[0])
        if lat:
            out |= {"l2_ns": f"{lat[0]:.0f} ns", "hbm_ns": f"{lat[1]:.0f} ns"}
        if (memcpy := _memcpy_02(dev[0])) is not None:
            out["memcpy_gbs"] = _gbs(memcpy)
            if lat:  # Little's law: bytes in flight = bandwidth x latency (GB/s x ns = bytes)
                out["littles_law"] = f"{memcpy * lat[1] / 1e6:.1f} MB"
    first = _first(results)
    if first is None:
        return out
    slug, doc = first
    out |= _graded(slug)
    rows, levels = _ladder_rows(doc), _level_rows(doc)
    cfg = doc["config"]
    out["run"] = f"{doc['device']['name']}, median of {cfg['reps']} runs"
    out["gpu"] = doc["device"]["name"]

    def gbs(name: str) -> float:
        return rows[name]["gbs"]

    def ms(name: str) -> float:
        return rows[name]["time_ms"]

    if "saxpy" in rows:
        out["saxpy_gbs"] = _gbs(gbs("saxpy"))
        out["launch_1d"] = rows["saxpy"]["launch"]
        if "saxpy_grid_stride" in rows:
            out["grid_stride_vs_saxpy"] = _times(ms("saxpy") / ms("saxpy_grid_stride"))
            out["launch_grid_stride"] = rows["saxpy_grid_stride"]["launch"]
    if "copy_coalesced" in rows:
        out["coalesced_gbs"] = _gbs(gbs("copy_coalesced"))
        if "copy_strided" in rows:
            out["strided_gbs"] = _gbs(gbs("copy_strided"))
            out["strided_slower"] = _times(ms("copy_strided") / ms("copy_coalesced"))
        if (memcpy := _memcpy_02(slug)) is not None:
            out["coalesced_of_memcpy"] = f"{100 * gbs('copy_coalesced') / memcpy:.0f} %"
    if "copy_2d" in rows:
        out["copy_2d_gbs"] = _gbs(gbs("copy_2d"))
        if "copy_coalesced" in rows:
            out["copy_2d_of_coalesced"] = f"{100 * gbs('copy_2d') / gbs('copy_coalesced'):.0f} %"
        out["launch_2d"] = rows["copy_2d"]["launch"]
    if "transpose_naive" in rows:
        out["naive_gbs"] = _gbs(gbs("transpose_naive"))
        if "copy_2d" in rows:
            out["naive_slower"] = _times(ms("transpose_naive") / ms("copy_2d"))
    if "transpose_shared" in rows:
        out["shared_gbs"] = _gbs(gbs("transpose_shared"))
        if "transpose_naive" in rows:
            out["shared_vs_naive"] = _times(ms("transpose_naive") / ms("transpose_shared"))
        if "copy_2d" in rows:
            out["shared_of_copy_2d"] = f"{100 * gbs('transpose_shared') / gbs('copy_2d'):.0f} %"
    if "shared" in levels:
        out["shared_ns"] = f"{levels['shared']['ns_per_load']:.1f} ns"
    if "L1" in levels:
        out["l1_ns"] = f"{levels['L1']['ns_per_load']:.1f} ns"
    if "L2" in levels:
        out["l2_gbs"] = _gbs(levels["L2"]["gbs"])
    strides = _sibling(slug, "00_first_kernel", "strides")
    if strides and "8" in strides["runs"]:
        out["stride_sectors_gbs"] = _gbs(strides["runs"]["8"]["rows"][0]["gbs"])
    if strides and "1" in strides["runs"]:
        out["stride1_gbs"] = _gbs(strides["runs"]["1"]["rows"][0]["gbs"])
    return out
