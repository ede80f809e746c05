#!/usr/bin/env python3
"""`scripts/make_figures.py --check` refuses a concept diagram that is stale, missing, edited by hand or
drawn by no chapter, and a lesson image without a caption; it passes the same tree when all is in order.

Runs make_figures.py in a scratch copy of the repository's layout (scripts/, one chapter with a
diagrams.py, docs/images/ with an SVG and its diagrams.lock, a fact file the drawing read), so it needs
only the standard library: --check never draws.

    python3 docs/tests/test_diagram_lock.py
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = "98_demo"
SVG = "ch98_demo_diagram.svg"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_tree(root: Path) -> None:
    (root / "scripts").mkdir()
    for name in ("make_figures.py", "diagram_lock.py", "diagram_style.py", "chapter_tables.py", "results_schema.py"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    chapter = root / CHAPTER
    chapter.mkdir()
    (chapter / "diagrams.py").write_text("def draw(out_dir):\n    return ['ch98_demo_diagram.svg']\n")
    (chapter / "facts.json").write_text('{"warp": 32}\n')
    (chapter / "README.md").write_text(f'# Demo {{#ch98}}\n\n\\image html {SVG} "What to look at."\n')
    images = root / "docs" / "images"
    images.mkdir(parents=True)
    (root / "docs" / "instructors.md").write_text("# the course repository, not a handout\n")
    (images / SVG).write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    lock = {CHAPTER: {
        "inputs": {f"{CHAPTER}/diagrams.py": sha(chapter / "diagrams.py"),
                   f"{CHAPTER}/facts.json": sha(chapter / "facts.json"),
                   "scripts/diagram_style.py": sha(root / "scripts" / "diagram_style.py")},
        "files": {SVG: sha(images / SVG)},
    }}
    (images / "diagrams.lock").write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n")


def check(root: Path) -> tuple[int, str]:
    run = subprocess.run([sys.executable, str(root / "scripts" / "make_figures.py"), "--check"],
                         capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


# (what is done to a fresh tree, the phrase --check must print)
CASES = [
    ("the chapter's diagrams.py changed", lambda r: (r / CHAPTER / "diagrams.py").write_text("# new\n"),
     f"{CHAPTER}/diagrams.py changed since its diagrams were drawn"),
    ("a fact the drawing read changed", lambda r: (r / CHAPTER / "facts.json").write_text('{"warp": 64}\n'),
     f"{CHAPTER}/facts.json changed since its diagrams were drawn"),
    ("the shared style changed", lambda r: (r / "scripts" / "diagram_style.py").open("a").write("# new\n"),
     "scripts/diagram_style.py changed since its diagrams were drawn"),
    ("the SVG was edited by hand", lambda r: (r / "docs" / "images" / SVG).open("a").write("<!-- -->\n"),
     f"docs/images/{SVG} is not what its diagrams.py drew"),
    ("the SVG is missing", lambda r: (r / "docs" / "images" / SVG).unlink(),
     f"docs/images/{SVG} is missing"),
    ("an SVG no chapter draws", lambda r: (r / "docs" / "images" / "ch98_old_diagram.svg").write_text("<svg/>"),
     "docs/images/ch98_old_diagram.svg is drawn by no chapter's diagrams.py"),
    ("a chapter never drawn", lambda r: (r / "docs" / "images" / "diagrams.lock").write_text("{}\n"),
     f"{CHAPTER}: diagrams.py was never drawn"),
    ("an image without a caption", lambda r: (r / CHAPTER / "README.md").write_text(
        f"# Demo {{#ch98}}\n\n\\image html {SVG}\n"), f"{SVG} has no caption"),
    ("a handout's SVG edited by hand", lambda r: ((r / "docs" / "instructors.md").unlink(),
                                                   (r / "docs" / "images" / SVG).open("a").write("<!-- -->\n")),
     f"docs/images/{SVG} is not what its diagrams.py drew"),
]
# A handout stubs the solution regions of the sources a diagram may have been drawn from: there, a changed
# input is not a stale diagram (the course repository checked it), and --check passes.
HANDOUT_PASSES = lambda r: ((r / "docs" / "instructors.md").unlink(),
                            (r / CHAPTER / "facts.json").write_text('{"warp": "stub"}\n'))


def main() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh"
        fresh.mkdir()
        make_tree(fresh)
        rc, out = check(fresh)
        if rc != 0:
            failures.append(f"a tree in order must pass --check (exit {rc}):\n{out}")
        handout = Path(tmp) / "handout"
        handout.mkdir()
        make_tree(handout)
        HANDOUT_PASSES(handout)
        rc, out = check(handout)
        if rc != 0:
            failures.append(f"a handout whose stubbed input differs must pass --check (exit {rc}):\n{out}")
        for i, (what, spoil, phrase) in enumerate(CASES):
            root = Path(tmp) / f"case{i}"
            root.mkdir()
            make_tree(root)
            spoil(root)
            rc, out = check(root)
            if rc != 1 or phrase not in out:
                failures.append(f"{what}: expected exit 1 and '{phrase}', got exit {rc}:\n{out}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"test_diagram_lock: {len(CASES) + 2 - len(failures)} of {len(CASES) + 2} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
