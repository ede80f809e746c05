#!/usr/bin/env python3
r"""Turns committed results into the lessons' plots and tables.

For each chapter folder NN_topic with a figures.py, loads every results/<gpu>/NN_topic.json, then
  - plots(results, docs/images) draws the PNGs (needs matplotlib; skipped with --check), and
  - tables(results) gives the Markdown of each block
        <!-- BEGIN generated:NAME -->
        ...
        <!-- END generated:NAME -->
    in the chapter's README.md, its notebook.md (the lab notebook) and its instructor/answer_key.md, which
    are rewritten in place, and
  - values(results) (optional) gives the text of each inline value
        <!-- value:NAME -->1.72x<!-- /value -->
    so that a measured number in lesson prose (or an answer key) is generated too, never typed.
The chapter tables of README.md and docs/mainpage.md are generated from the chapter folders too
(scripts/chapter_tables.py: each chapter's README title line and its chapter-summary / chapter-needs lines).
For each chapter folder with a diagrams.py (concept diagrams, drawn from the code's facts):
  - draw(docs/images) writes its SVGs chNN_<idea>_diagram.svg (with scripts/ on sys.path, so that it can
    `from diagram_style import ...`), and docs/images/diagrams.lock records the hashes of what the drawing
    read and of what it wrote (scripts/diagram_lock.py).
--check also fails when a page references an image (\image html NAME) that docs/images lacks, when a
lesson's image has no caption (\image html NAME "One sentence saying what to look at."), and when a
diagram is stale (its diagrams.py, the shared style or a fact it read changed since it was drawn), missing,
or edited by hand, and when a results file breaks the naming rule results/<gpu>/<chapter>.json or
results/<gpu>/<chapter>.<kind>.json (scripts/results_schema.py: misnamed).

    python3 scripts/make_figures.py            # redraw plots, rewrite tables
    python3 scripts/make_figures.py --check    # fail if a README block differs from the results (CI)
    python3 scripts/make_figures.py --chapter 02_bandwidth
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- BEGIN generated:([\w.-]+) -->\n)(.*?)(<!-- END generated:\2 -->)", re.S)
VALUE = re.compile(r"(<!-- value:([\w.-]+) -->)(.*?)(<!-- /value -->)", re.S)
IMAGE = re.compile(r"^\\image html ([\w.-]+)", re.M)
CAPTIONED = re.compile(r'^\\image html [\w.-]+[ \t]+"[^"\n]*\w[^"\n]*"', re.M)

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: diagram_lock here, diagram_style for draw()
import chapter_tables  # noqa: E402
import diagram_lock  # noqa: E402
import results_schema  # noqa: E402


def load_results(chapter: str) -> dict[str, dict]:
    """gpu slug -> results JSON, for every results/<gpu>/<chapter>.json, each checked against the chapter's
    schema (scripts/results_schema.py): a malformed file (empty, truncated, not a results object, a missing
    or mistyped field, NaN or Infinity) ends the run with one line naming the file and the field, exit 2."""
    out = {}
    for path in sorted((ROOT / "results").glob(f"*/{chapter}.json")):
        try:
            out[path.parent.name] = results_schema.load(path, chapter, str(path.relative_to(ROOT)))
        except results_schema.ResultsError as error:
            print(f"make_figures: {error}", file=sys.stderr)
            sys.exit(2)
    return out


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"figures_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rewrite(readme: Path, blocks: dict[str, str], values: dict[str, str]) -> tuple[str, list[str]]:
    """Returns the new README text and the names of blocks or values the README has but the chapter's
    figures.py did not give."""
    text = readme.read_text()
    missing = []

    def fill(m: re.Match) -> str:
        name = m.group(2)
        if name not in blocks:
            missing.append(name)
            return m.group(0)
        body = blocks[name].rstrip("\n") + "\n"
        return m.group(1) + body + m.group(4)

    def fill_value(m: re.Match) -> str:
        name = m.group(2)
        if name not in values:
            missing.append(f"value:{name}")
            return m.group(0)
        return m.group(1) + values[name] + m.group(4)

    return VALUE.sub(fill_value, BLOCK.sub(fill, text)), missing


def value_layout_problems(page: Path) -> list[str]:
    """Doxygen 1.9 drops the space right after an HTML comment ("1.7x<!-- /value --> faster" renders as
    "1.7xfaster") and ends a paragraph at a line that starts with one: both are refused."""
    out = []
    for number, line in enumerate(page.read_text().split("\n"), 1):
        if line.lstrip().startswith("<!-- value:"):  # indented too: a list item that starts with one
            out.append(f"{page.relative_to(ROOT)}:{number}: a line must not start with a value marker")
        if re.search(r"<!-- /value --> +[^ ]", line):
            out.append(f"{page.relative_to(ROOT)}:{number}: write '<!-- /value -->&nbsp;word' (Doxygen drops that space)")
    return out


def missing_images(pages: list[Path], images: Path) -> list[str]:
    """Every \\image html NAME in the pages whose file is not in docs/images."""
    out = []
    for page in pages:
        for name in IMAGE.findall(page.read_text()):
            if not (images / name).is_file():
                out.append(f"{page.relative_to(ROOT)}: {name}")
    return out


def uncaptioned_images(pages: list[Path]) -> list[str]:
    """Every \\image html of a lesson page without a caption: a reader needs to be told what to look at."""
    out = []
    for page in pages:
        text = page.read_text()
        for m in IMAGE.finditer(text):
            line = text[m.start():].split("\n", 1)[0]
            if not CAPTIONED.match(line):
                number = text.count("\n", 0, m.start()) + 1
                out.append(f"{page.relative_to(ROOT)}:{number}: {m.group(1)} has no caption "
                           '(\\image html NAME "One sentence saying what to look at.")')
    return out


# Every committed PNG is drawn with this matplotlib, so that a redraw changes only what the data change.
PINNED_MATPLOTLIB = "3.9.2"


def chapter_pages(chapter: Path) -> list[Path]:
    """The pages make_figures fills for a chapter: its lesson and, where there are, its lab notebook
    (notebook.md: the tables the lesson leaves out) and its answer key."""
    return [p for p in (chapter / "README.md", chapter / "notebook.md", chapter / "instructor" / "answer_key.md")
            if p.is_file()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only compare README blocks with the results")
    ap.add_argument("--chapter", help="one chapter folder only")
    args = ap.parse_args()

    figure_chapters = {p.parent for p in ROOT.glob("[0-9][0-9]_*/figures.py")}
    diagram_chapters = set(diagram_lock.chapters_with_diagrams())
    chapters = sorted(figure_chapters | diagram_chapters)
    if args.chapter:
        chapters = [c for c in chapters if c.name == args.chapter]
        if not chapters:
            print(f"no chapter {args.chapter} with a figures.py or a diagrams.py", file=sys.stderr)
            return 2
    images = ROOT / "docs" / "images"
    if not args.check:
        try:
            import matplotlib  # (the chapters' plots() import pyplot themselves)
        except ImportError:
            print(f"make_figures.py: drawing the plots needs matplotlib: python3 -m pip install "
                  f"matplotlib=={PINNED_MATPLOTLIB} (or run with --check, which needs only the standard library)",
                  file=sys.stderr)
            return 1
        if matplotlib.__version__ != PINNED_MATPLOTLIB:
            print(f"make_figures.py: matplotlib {matplotlib.__version__} here; the committed plots were drawn with "
                  f"{PINNED_MATPLOTLIB} (python3 -m pip install matplotlib=={PINNED_MATPLOTLIB}): other versions "
                  "redraw every PNG with small differences", file=sys.stderr)
    stale = []
    for problem in results_schema.misnamed(ROOT):  # one naming rule, so that a reader finds every file
        print(f"results name: {problem}", file=sys.stderr)
        stale.append(problem)
    lock = diagram_lock.load_lock(images)
    for chapter in chapters:
        if chapter in diagram_chapters and not args.check:
            lock[chapter.name] = diagram_lock.draw_chapter(chapter, images)
            for name in lock[chapter.name]["files"]:
                print(f"{chapter.name}: drew docs/images/{name}")
        if chapter not in figure_chapters:
            continue
        module = load_module(chapter / "figures.py")
        results = load_results(chapter.name)
        if not args.check and results:
            images.mkdir(parents=True, exist_ok=True)
            for name in module.plots(results, images):
                print(f"{chapter.name}: drew docs/images/{name}")
        values = module.values(results) if hasattr(module, "values") else {}
        tables = module.tables(results)
        # The lesson and its instructor page (answer key): both quote measurements, both are generated.
        for page in chapter_pages(chapter):
            label = page.relative_to(chapter).as_posix()
            new_text, missing = rewrite(page, tables, values)
            for name in missing:
                print(f"{chapter.name}: {label} '{name}' is not given by figures.py", file=sys.stderr)
                stale.append(f"{chapter.name}:{name}")
            if new_text != page.read_text():
                if args.check:
                    print(f"{chapter.name}: {label} tables or values differ from results/ "
                          f"(run python3 scripts/make_figures.py)", file=sys.stderr)
                    stale.append(f"{chapter.name}/{label}")
                else:
                    page.write_text(new_text)
                    print(f"{chapter.name}: rewrote {label} tables and values")
    # The course map (README.md, docs/mainpage.md): one row per chapter folder, from its README.
    try:
        course_pages = chapter_tables.tables(ROOT)
    except chapter_tables.ChapterError as error:
        print(f"chapter tables: {error}", file=sys.stderr)
        stale.append(str(error))
        course_pages = {}
    for page, blocks in course_pages.items():
        label = page.relative_to(ROOT).as_posix()
        new_text, missing = rewrite(page, blocks, {})
        for name in missing:
            print(f"{label}: '{name}' is not given by scripts/chapter_tables.py", file=sys.stderr)
            stale.append(f"{label}:{name}")
        if f"<!-- BEGIN generated:{chapter_tables.BLOCK} -->" not in new_text:
            print(f"{label}: has no generated:{chapter_tables.BLOCK} block (the chapter table)", file=sys.stderr)
            stale.append(f"{label}:{chapter_tables.BLOCK}")
        if new_text != page.read_text():
            if args.check:
                print(f"{label}: the chapter table differs from the chapter folders (run python3 "
                      "scripts/make_figures.py)", file=sys.stderr)
                stale.append(label)
            else:
                page.write_text(new_text)
                print(f"rewrote the chapter table of {label}")
    if not args.check and diagram_chapters:
        if not args.chapter:  # a full run drops the entries of chapters that no longer draw diagrams
            lock = {name: entry for name, entry in lock.items() if ROOT / name in diagram_chapters}
        diagram_lock.write_lock(images, lock)
    for problem in diagram_lock.check(sorted(diagram_chapters & set(chapters)), images, not args.chapter):
        print(f"diagrams: {problem}", file=sys.stderr)
        stale.append(problem)
    pages = [p for c in chapters for p in chapter_pages(c)] + sorted((ROOT / "docs").glob("*.md"))
    for page in pages:
        if page.is_file():
            for problem in value_layout_problems(page):
                print(f"value marker layout: {problem}", file=sys.stderr)
                stale.append(problem)
    for ref in missing_images([p for p in pages if p.is_file()], images):
        print(f"missing image: {ref}", file=sys.stderr)
        stale.append(ref)
    for ref in uncaptioned_images([c / name for c in chapters for name in ("README.md", "notebook.md")
                                   if (c / name).is_file()]):
        print(f"image without a caption: {ref}", file=sys.stderr)
        stale.append(ref)
    if stale:
        return 1
    print(f"checked {len(chapters)} chapter(s): tables match results" if args.check else "done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
