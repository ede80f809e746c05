#!/usr/bin/env python3
"""The course's two chapter tables, generated from the chapter folders (issue 29): README.md's "The chapters"
and docs/mainpage.md's course map. Adding a chapter then touches only its folder (and the root
CMakeLists.txt's add_subdirectory); docs/CMakeLists.txt finds its page for Doxygen by the same NN_* glob.

Each chapter folder NN_topic owns its row, in its README.md:
  - the title line            # NN · Title {#chNN}          (the page Doxygen's \\ref chNN names)
  - a one-line summary        <!-- chapter-summary: what the chapter teaches, one sentence -->
  - what it runs on           <!-- chapter-needs: GPU -->  (or "CPU (OpenMP)", "GPU (1…N)")
both comments right under the title line (HTML comments: neither GitHub nor Doxygen shows them).

scripts/make_figures.py writes the blocks
    <!-- BEGIN generated:chapters --> ... <!-- END generated:chapters -->
of both pages from tables() below; its --check fails when a table differs from the folders. Alone:

    python3 scripts/chapter_tables.py          # print both tables
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = "chapters"
TITLE = re.compile(r"# (?P<number>\d\d) · (?P<title>.+?) \{#(?P<anchor>ch\d\d)\}")
SUMMARY = re.compile(r"^<!-- chapter-summary: (.+?) -->$", re.M)
NEEDS = re.compile(r"^<!-- chapter-needs: (.+?) -->$", re.M)


class ChapterError(ValueError):
    """A chapter folder whose README does not give its row: the message names the file and what is missing."""


@dataclass(frozen=True)
class Chapter:
    folder: str    # 00_first_kernel
    anchor: str    # ch00, the page's Doxygen id
    title: str     # Your first kernel
    summary: str   # one sentence: what the chapter teaches
    needs: str     # GPU, CPU (OpenMP), GPU (1…N)


def read_chapter(folder: Path) -> Chapter:
    readme = folder / "README.md"
    if not readme.is_file():
        raise ChapterError(f"{folder.name}: no README.md (a chapter's lesson page)")
    text = readme.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    title = TITLE.fullmatch(first)
    if not title:
        raise ChapterError(f"{folder.name}/README.md: first line must be '# NN · Title {{#chNN}}', not {first!r}")
    if title["number"] != folder.name[:2] or title["anchor"] != "ch" + folder.name[:2]:
        raise ChapterError(f"{folder.name}/README.md: the title line's number and id must be the folder's "
                           f"({folder.name[:2]}, ch{folder.name[:2]})")
    fields = {}
    for name, pattern in (("summary", SUMMARY), ("needs", NEEDS)):
        found = pattern.findall(text)
        if len(found) != 1:
            raise ChapterError(f"{folder.name}/README.md: needs exactly one '<!-- chapter-{name}: ... -->' line "
                               f"under its title ({len(found)} found)")
        if "|" in found[0]:
            raise ChapterError(f"{folder.name}/README.md: chapter-{name} must not hold '|' (a table cell)")
        fields[name] = found[0].strip()
    return Chapter(folder.name, title["anchor"], title["title"], fields["summary"], fields["needs"])


def chapters(root: Path = ROOT) -> list[Chapter]:
    """Every chapter folder NN_topic of the tree, in order."""
    return [read_chapter(p) for p in sorted(root.glob("[0-9][0-9]_*")) if p.is_dir()]


def readme_table(rows: list[Chapter]) -> str:
    """README.md (read on GitHub): the folder, linked to its lesson page, and what it teaches."""
    lines = ["| Folder | Lesson | Needs |", "|---|---|---|"]
    lines += [f"| [`{c.folder}`]({c.folder}/README.md) | {c.summary} | {c.needs} |" for c in rows]
    return "\n".join(lines)


def mainpage_table(rows: list[Chapter]) -> str:
    """docs/mainpage.md (the Doxygen site): \\ref chNN shows the chapter's title, linked."""
    lines = ["| Chapter | What you learn | Needs |", "|---|---|---|"]
    lines += [f"| \\ref {c.anchor} | {c.summary} | {c.needs} |" for c in rows]
    return "\n".join(lines)


def tables(root: Path = ROOT) -> dict[Path, dict[str, str]]:
    """page -> {block name: Markdown}, for the pages make_figures.py rewrites: those of the two that the tree
    has (both, in the course and in a handout; none in a test's miniature tree, which then needs no rows)."""
    pages = {root / "README.md": readme_table, root / "docs" / "mainpage.md": mainpage_table}
    pages = {page: table for page, table in pages.items() if page.is_file()}
    if not pages:
        return {}
    rows = chapters(root)
    return {page: {BLOCK: table(rows)} for page, table in pages.items()}


def main() -> int:
    try:
        pages = tables()
    except ChapterError as error:
        print(f"chapter_tables: {error}", file=sys.stderr)
        return 1
    for page, blocks in pages.items():
        print(f"{page.relative_to(ROOT)}:\n{blocks[BLOCK]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
