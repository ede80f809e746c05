"""What a chapter's results file must hold before a figure is drawn from it.

scripts/make_figures.py loads every results/<gpu>/<chapter>.json through load(): a file that is not JSON,
is empty or truncated, is not one results object, lacks a row field the chapter's figures read, has a
field of the wrong type, or holds a number that is not finite (NaN, Infinity) is refused with one line
naming the file and the field, so that no lesson ever prints "nan x" or a traceback (issue 31, item 13).

The row fields below are those every row of the chapter's results file has (the programs write them
through course::RunReport, common/src/report.cpp); fields some rows have are checked for finiteness and
for one type per field across the file, not for presence. Python 3 standard library only.

misnamed() holds every results file to one naming rule (issue 29): results/<gpu>/<chapter>.json for a
chapter's main run, results/<gpu>/<chapter>.<kind>.json for any other file of that chapter (a second
program, a sweep, a profile, a listing), <chapter> being a chapter folder NN_topic of the tree. Readers then
find a chapter's files by that one pattern (scripts/figures_lib.py). `python3 scripts/results_schema.py` runs
it alone; make_figures.py runs it on every call, --check included (CI).
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

NUMBER = "a finite number"
NUMBER_OR_NULL = "a finite number or null"
TEXT = "a string"
BOOLEAN = "true or false"
BOOLEAN_OR_NULL = "true, false or null"

_LADDER_ROW = {"kernel": TEXT, "n": NUMBER, "block": NUMBER, "grid": NUMBER, "time_ms": NUMBER,
               "min_ms": NUMBER, "max_ms": NUMBER, "gbs": NUMBER, "pct_copy": NUMBER, "step_speedup": NUMBER,
               "cumulative_speedup": NUMBER, "sum": NUMBER}

ROW_FIELDS: dict[str, dict[str, str]] = {
    "01_critical_vs_triangle": {"strategy": TEXT, "threads": NUMBER, "cells": NUMBER, "atoms": NUMBER,
                                "ns_per_atom_step": NUMBER, "loop_steps_per_s": NUMBER},
    "02_bandwidth": {"scenario": TEXT, "copy": TEXT},
    "03_reduce_divergence": _LADDER_ROW,
    "04_reduce_interleaved": _LADDER_ROW,
    "05_reduce_unroll": _LADDER_ROW,
    "06_streams": {"scenario": TEXT, "variant": TEXT, "measured_ms": NUMBER, "model_ms": NUMBER_OR_NULL,
                   "speedup": NUMBER_OR_NULL, "model_speedup": NUMBER_OR_NULL, "overlap": NUMBER_OR_NULL},
    "07_multigpu_fd": {"table": TEXT, "variant": TEXT, "backend": TEXT, "gpus": NUMBER, "slabs": NUMBER,
                       "nx": NUMBER, "ny": NUMBER, "ms_per_step": NUMBER, "mcells_per_s": NUMBER,
                       "gcells_per_s": NUMBER, "gb_per_s": NUMBER, "roofline_pct": NUMBER, "overlap": BOOLEAN,
                       "efficiency": NUMBER_OR_NULL, "bitwise_equal": BOOLEAN_OR_NULL},
}

# Every results file (course::ResultsFile) starts with these.
HEADER_FIELDS = {"schema": TEXT, "chapter": TEXT, "config": "an object", "device": "an object",
                 "rows": "a list of row objects"}


class ResultsError(ValueError):
    """A results file that no figure may be drawn from: the message names the file and the field."""


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fits(value, kind: str) -> bool:
    if kind in (NUMBER, NUMBER_OR_NULL):
        if value is None:
            return kind == NUMBER_OR_NULL
        return _is_number(value) and math.isfinite(value)
    if kind == TEXT:
        return isinstance(value, str)
    if kind in (BOOLEAN, BOOLEAN_OR_NULL):
        return isinstance(value, bool) or (value is None and kind == BOOLEAN_OR_NULL)
    if kind == "an object":
        return isinstance(value, dict)
    if kind == "a list of row objects":
        return isinstance(value, list) and bool(value) and all(isinstance(row, dict) for row in value)
    raise AssertionError(kind)


def _shown(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _non_finite(value, where: str) -> str | None:
    """The first number inside `value` that is not finite (json.loads reads NaN and Infinity as floats),
    as 'key.key[i]'."""
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if isinstance(value, dict):
        for key, item in value.items():
            found = _non_finite(item, f"{where}.{key}" if where else str(key))
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _non_finite(item, f"{where}[{i}]")
            if found:
                return found
    return None


def check(data, chapter: str, name: str) -> None:
    """Raises ResultsError naming `name` and the field when `data` is no valid results object of `chapter`."""
    if not isinstance(data, dict):
        raise ResultsError(f"{name}: not a results file (a JSON {type(data).__name__}, not an object with "
                           "schema, chapter, config, device and rows)")
    for field, kind in HEADER_FIELDS.items():
        if field not in data:
            raise ResultsError(f"{name}: no '{field}' field (every results file has one)")
        if not _fits(data[field], kind):
            raise ResultsError(f"{name}: '{field}' must be {kind}, not {_shown(data[field])}")
    found = _non_finite(data, "")
    if found:
        raise ResultsError(f"{name}: {found} is not a finite number")
    required = ROW_FIELDS.get(chapter, {})
    types: dict[str, tuple[str, int]] = {}
    for i, row in enumerate(data["rows"]):
        for field, kind in required.items():
            if field not in row:
                raise ResultsError(f"{name}: rows[{i}] has no '{field}' field")
            if not _fits(row[field], kind):
                raise ResultsError(f"{name}: rows[{i}].{field} must be {kind}, not {_shown(row[field])}")
        for field, value in row.items():
            if value is None or isinstance(value, (dict, list)):
                continue
            kind = "number" if _is_number(value) else type(value).__name__
            first = types.setdefault(field, (kind, i))
            if first[0] != kind:
                raise ResultsError(f"{name}: rows[{i}].{field} is {_shown(value)}, but rows[{first[1]}].{field} "
                                   f"is a {first[0]}: one field, one type")


def load(path: Path, chapter: str, name: str | None = None) -> dict:
    """The results file at `path`, checked (see check); ResultsError names it as `name` (default: path)."""
    name = name or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsError(f"{name}: cannot be read ({getattr(error, 'strerror', None) or error})")
    if not text.strip():
        raise ResultsError(f"{name}: empty file (a run that wrote nothing? rerun its bench.sh)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultsError(f"{name}: not valid JSON (truncated?): {error.msg} at line {error.lineno} "
                           f"column {error.colno}")
    except RecursionError:
        raise ResultsError(f"{name}: nested too deeply to be a results file")
    check(data, chapter, name)
    return data


NAME_RULE = "<chapter>.json or <chapter>.<kind>.json (kind: lower-case letters, digits, '_')"
_NAME = re.compile(r"(?P<chapter>[^.]+)(?:\.(?P<kind>[a-z0-9_]+))?\.json")


def _suggested(stem: str, chapters: set[str]) -> str:
    """'00_first_kernel_strides' -> ', e.g. 00_first_kernel.strides.json' where 00_first_kernel is a chapter."""
    for chapter in sorted(chapters, key=len, reverse=True):
        if stem.startswith(chapter + "_"):
            return f", e.g. {chapter}.{stem[len(chapter) + 1:]}.json (git mv, then update its writer and readers)"
    return ""


def misnamed(root: Path) -> list[str]:
    """One line per results/<gpu>/*.json under `root` that breaks the naming rule: its name is not
    <chapter>.json or <chapter>.<kind>.json after a chapter folder of the tree, or its "chapter" field names
    another chapter (files written before the rule may still say <chapter>_<kind> there). The sub-folders
    (results/<gpu>/grading/, the grader's reports) are not results files and are left alone."""
    chapters = {p.name for p in root.glob("[0-9][0-9]_*") if p.is_dir()}
    out = []
    for path in sorted((root / "results").glob("*/*.json")):
        rel = path.relative_to(root).as_posix()
        m = _NAME.fullmatch(path.name)
        if not m or m["chapter"] not in chapters:
            stem = path.name[:-len(".json")]
            out.append(f"{rel}: not named {NAME_RULE} after a chapter folder{_suggested(stem, chapters)}")
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue  # load() names what is wrong with the file itself
        field = data.get("chapter") if isinstance(data, dict) else None
        allowed = {m["chapter"]} | ({f"{m['chapter']}_{m['kind']}"} if m["kind"] else set())
        if field is not None and field not in allowed:
            out.append(f"{rel}: its \"chapter\" field is {json.dumps(field)}, not the chapter its name gives "
                       f"({m['chapter']})")
    return out


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    problems = misnamed(root)
    for line in problems:
        print(f"results name: {line}", file=sys.stderr)
    if not problems:
        print(f"every results file is named {NAME_RULE}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
