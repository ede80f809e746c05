"""Concept diagrams for scripts/make_figures.py: draw each chapter's NN_topic/diagrams.py and keep
docs/images/diagrams.lock, the record that lets --check (standard library only) tell a stale or hand-edited
diagram from a fresh one.

The lock is JSON, one entry per chapter with a diagrams.py:

    "03_reduce_divergence": {
      "inputs": {"03_reduce_divergence/diagrams.py": "<sha256>", "scripts/diagram_style.py": "<sha256>", ...},
      "files":  {"ch03_divergent_warp_diagram.svg": "<sha256>"}
    }

"inputs" are the diagrams.py, the shared style, and every other file of the repository the drawing read
(a results file, a module with the program's facts): recorded while draw() runs by an audit hook on
open(), so a diagram drawn from a fact goes stale when the fact changes. "files" are the SVGs draw()
returned, with the hash of the bytes it wrote.

In a student handout (no docs/instructors.md) the inputs are not compared: `scripts/course handout` turns
solution regions into stubs, so a source a diagram was drawn from differs there by design; the diagrams
were checked against their inputs in the course repository, and the handout checks only that each SVG is
there and unchanged.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STYLE = ROOT / "scripts" / "diagram_style.py"
LOCK_NAME = "diagrams.lock"
# Files read from these folders are tools or build output, not facts of the course.
_NOT_INPUTS = {".git", "build", "site-packages", ".venv", "venv", "__pycache__"}

_recording: list[set[Path]] = []  # while draw() runs: the set of repository files opened for reading


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _audit(event: str, args: tuple) -> None:
    if event != "open" or not _recording:
        return
    path, mode = args[0], args[1]
    if not isinstance(path, (str, bytes, os.PathLike)) or (isinstance(mode, str) and set(mode) & set("wax+")):
        return
    try:
        p = Path(os.fsdecode(path))
        p = (p if p.is_absolute() else Path.cwd() / p).resolve()
        rel = p.relative_to(ROOT)
    except (ValueError, OSError):
        return  # outside the repository (matplotlib, fonts, the standard library)
    if rel.parts and rel.parts[-2:-1] == ("__pycache__",) and p.suffix == ".pyc":
        p = p.parent.parent / (p.name.split(".")[0] + ".py")  # a cached import: its source is the input
        rel = p.relative_to(ROOT)
    if not (set(rel.parts[:-1]) & _NOT_INPUTS) and p.is_file():
        _recording[-1].add(p)


_hook_installed = False


def chapters_with_diagrams() -> list[Path]:
    return sorted(p.parent for p in ROOT.glob("[0-9][0-9]_*/diagrams.py"))


def load_lock(images: Path) -> dict:
    path = images / LOCK_NAME
    if not path.is_file():
        return {}
    with path.open() as f:
        return json.load(f)


def write_lock(images: Path, lock: dict) -> None:
    path = images / LOCK_NAME
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)


def draw_chapter(chapter: Path, images: Path) -> dict:
    """Runs chapter/diagrams.py's draw(images) and returns its lock entry."""
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(_audit)  # (a hook cannot be removed; it records only while _recording is non-empty)
        _hook_installed = True
    # Forget the repository's modules imported by an earlier chapter, so that this chapter's imports are
    # opened (and recorded) again.
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name != "__main__" and file and Path(file).resolve().is_relative_to(ROOT):
            del sys.modules[name]
    for folder in (str(ROOT / "scripts"), str(chapter)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    read: set[Path] = set()
    _recording.append(read)
    import matplotlib  # drawing needs it; --check never comes here
    try:
        # The diagram style sets rcParams (fonts, minus signs): keep them to this drawing, or the results
        # plots drawn after it in the same run would change with the order the chapters are drawn in.
        with matplotlib.rc_context():
            spec = importlib.util.spec_from_file_location(f"diagrams_{chapter.name}", chapter / "diagrams.py")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            names = module.draw(images)
    finally:
        _recording.pop()
        sys.path.remove(str(chapter))
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{chapter.name}/diagrams.py: draw() must return the list of file names it wrote")
    read |= {chapter / "diagrams.py", STYLE}
    read = {p for p in read if not p.resolve().is_relative_to(images.resolve())}
    return {
        "inputs": {p.relative_to(ROOT).as_posix(): sha256(p) for p in sorted(read)},
        "files": {name: sha256(images / name) for name in sorted(names)},
    }


def check(chapters: list[Path], images: Path, every_chapter: bool) -> list[str]:
    """One line per problem: a chapter never drawn, an input changed since the drawing, a listed SVG missing
    or not the bytes the drawing wrote, a diagram SVG no chapter draws, a lock entry without a chapter."""
    lock = load_lock(images)
    problems = []
    redraw = "run python3 scripts/make_figures.py --chapter {}"
    handout = not (ROOT / "docs" / "instructors.md").is_file()
    for chapter in chapters:
        entry = lock.get(chapter.name)
        if entry is None:
            problems.append(f"{chapter.name}: diagrams.py was never drawn ({redraw.format(chapter.name)})")
            continue
        for rel, digest in ({} if handout else entry["inputs"]).items():
            path = ROOT / rel
            if not path.is_file():
                problems.append(f"{chapter.name}: {rel}, read by its diagrams, is gone ({redraw.format(chapter.name)})")
            elif sha256(path) != digest:
                problems.append(f"{chapter.name}: {rel} changed since its diagrams were drawn "
                                f"({redraw.format(chapter.name)})")
        for name, digest in entry["files"].items():
            path = images / name
            if not path.is_file():
                problems.append(f"{chapter.name}: docs/images/{name} is missing ({redraw.format(chapter.name)})")
            elif sha256(path) != digest:
                problems.append(f"{chapter.name}: docs/images/{name} is not what its diagrams.py drew (edited by "
                                f"hand?) ({redraw.format(chapter.name)})")
    if every_chapter:
        names = {c.name for c in chapters}
        for stale in sorted(set(lock) - names):
            problems.append(f"{stale}: docs/images/{LOCK_NAME} has an entry but the chapter has no diagrams.py "
                            "(run python3 scripts/make_figures.py)")
        drawn = {name for entry in lock.values() for name in entry["files"]}
        for svg in sorted(images.glob("*_diagram*.svg")):
            if svg.name not in drawn:
                problems.append(f"docs/images/{svg.name} is drawn by no chapter's diagrams.py (delete it, or "
                                "draw it from one)")
    return problems
