"""What the chapters' figures.py share: finding and loading a chapter's results files by the one naming rule,
and writing a Markdown table.

A chapter's results on one GPU are results/<gpu>/<chapter>.json (its main run, which make_figures.py loads and
hands to tables()/values()/plots()) and results/<gpu>/<chapter>.<kind>.json for its other files: a second
program (02_bandwidth.latency), a sweep (00_first_kernel.strides, 06_streams.small), a profile
(05_reduce_unroll.profile), a listing or a split run (07_multigpu_fd.variants, .slabs, ...).
scripts/results_schema.py (misnamed) refuses any other name, so these readers see every file.

A figures.py imports this module with scripts/ on sys.path (make_figures.py puts it there; a figures.py
loaded by a test adds it itself: `sys.path` gets ROOT / "scripts" before `import figures_lib`).
Python 3 standard library only.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"


def results_file(slug: str, chapter: str, kind: str | None = None, results_dir: Path = RESULTS) -> Path:
    """results/<slug>/<chapter>.json, or results/<slug>/<chapter>.<kind>.json."""
    return Path(results_dir) / slug / (f"{chapter}.{kind}.json" if kind else f"{chapter}.json")


def load_sibling(slug: str, chapter: str, kind: str | None = None, results_dir: Path = RESULTS) -> dict | None:
    """The results file <chapter>.<kind>.json of one GPU (kind None: <chapter>.json, another chapter's main
    run), or None where that run has not been made on that GPU (a lesson then says "not measured", never
    fails)."""
    path = results_file(slug, chapter, kind, results_dir)
    return json.loads(path.read_text()) if path.is_file() else None


def sibling_kinds(slug: str, chapter: str, results_dir: Path = RESULTS) -> dict[str, Path]:
    """{kind: path} of every <chapter>.<kind>.json of one GPU (not the main run), in no particular order."""
    prefix = f"{chapter}."
    return {path.name[len(prefix):-len(".json")]: path
            for path in (Path(results_dir) / slug).glob(f"{chapter}.*.json")}


def device_name(doc: dict, default: str) -> str:
    """The GPU (or CPU) a results file names, else `default` (usually its results folder)."""
    return doc.get("device", {}).get("name", default)


def markdown_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table: a header row, its rule (`align`: "l", "r" or "c" per column, e.g. "llr"; default every column "---"),
    then one line per row; the cells are written as given (no escaping: a cell must not hold '|')."""
    rules = {"l": "---", "r": "---:", "c": ":---:"}
    rule = [rules[a] for a in align] if align else ["---"] * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
