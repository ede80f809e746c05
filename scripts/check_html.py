#!/usr/bin/env python3
r"""Checks the Doxygen site as a student sees it (build/docs/html), not just Doxygen's warning log.

A Markdown slip can make Doxygen print markup as text without a single warning (a @ref label split over two
lines turned half of chapter 02's page into raw `\snippet`, `@section`, `@verbatim` and `&lt;tt&gt;`). This
check reads the built HTML and reports, one line each:
  - Doxygen commands or markers in the visible text outside code (\snippet, @ref, \ref, @section, @verbatim,
    \f$, \image, a {#id}, a Markdown table rule), and HTML tags or comments that were escaped into text
    (`<tt>` shown as `<tt>`), and a backtick (a code span Doxygen left as text: one running over a line break,
    or one inside a @ref label), and emphasis markers left as text: any `**`, or a lone pair of `__` or `*`
    around words (Doxygen 1.9 prints the asterisks of bold around a link, or of bold that starts with "-");
  - a heading of a source Markdown page that is not a heading of its HTML page (page -> file by the {#id}
    of its first line; \mainpage -> index.html);
  - a Markdown table whose rows did not all become rows of an HTML table (matched by its header);
  - a @ref whose "label" runs onto the next line of the source (the cause of chapter 02's broken page);
  - an <img>/<object>/<link>/<script> source or a local href (file and #anchor) that does not resolve;
  - two pictures shown on the pages that are the same file under two names (a plot drawn twice from one run);
  - a page that does not load course.css (the stylesheet that makes wide tables and code scroll).
Exit 0 when clean, 1 with problems, 2 for usage.

    python3 scripts/check_html.py [--html build/docs/html] [--doxyfile build/docs/Doxyfile]
"""
from __future__ import annotations

import argparse
import hashlib
import html
import re
import shlex
import sys
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STYLESHEET = "course.css"

# Doxygen commands that must never be seen as text (outside code, where a lesson may show them on purpose).
COMMAND = re.compile(r"(?<![\w\\@])[\\@](snippet|ref|section|subsection|subsubsection|verbatim|endverbatim|code|"
                     r"endcode|image|page|mainpage|anchor|include|dontinclude|copydoc)\b|\\f[$\[\]]")
ESCAPED_TAG = re.compile(r"</?(tt|b|i|em|strong|code|kbd|br|sub|sup|a|img|table|tr|td|th|div|span|p|ul|ol|li|pre|"
                         r"small|h[1-6])(\s[^<>]*)?/?>|<!--", re.I)
# A backtick in the visible text outside code is a code span Doxygen did not render (one that runs over a line
# break, or one inside a @ref label).
MARKDOWN_LEFTOVER = re.compile(r"\{#[\w-]+\}|^\s*\|?\s*:?-{3,}:?\s*\||`")
# Emphasis Doxygen did not render: "**" anywhere in the visible text outside code (bold around a @ref or a
# Markdown link, bold that starts with "-"), or a pair of "__" or "*" around words ("__x__", "*x*") that is
# not part of a word or of arithmetic ("a*b*c", "2 * 3").
EMPHASIS = re.compile(r"\*\*|(?<![\w*])\*(?=[^\s*])[^*\n]*?(?<=[^\s*])\*(?![\w*])|(?<!\w)__(?=[^\s_])[^\n]*?(?<=[^\s_])__(?!\w)")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^(https?:|mailto:|ftp:|javascript:|data:|//)", re.I)  # not checked (no network)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # any other "scheme:" is an auto-link gone wrong ("file:line")


def words(text: str) -> str:
    """What two renderings of a heading or table header share: its words, case-folded."""
    return " ".join(re.findall(r"[^\W_]+", html.unescape(text).casefold()))


def markdown_text(text: str) -> str | None:
    """The text a Markdown heading or table line shows: {#id} dropped, @ref id "label" -> label, tags
    removed. None when it holds a reference without a label (its text is the target's title)."""
    text = re.sub(r"\{#[\w-]+\}", "", text)
    text = re.sub(r"[\\@]ref\s+[\w.-]+\s+\"([^\"]*)\"", r"\1", text)
    if re.search(r"[\\@]ref\s", text):
        return None
    return re.sub(r"<[^>]+>", " ", text)


class Page(HTMLParser):
    """One HTML file: its visible text outside code, headings, tables, ids and links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[tuple[int, str]] = []      # (line, text) outside code, scripts and styles
        self.headings: list[str] = []
        self.tables: list[dict] = []               # {"header": words of the first row, "rows": n}
        self.ids: set[str] = set()
        self.links: list[tuple[int, str, str]] = []  # (line, attribute, value)
        self.stylesheets: list[str] = []
        self._divs: list[bool] = []                # per open div: is it a code fragment?
        self._code = 0
        self._skip = 0
        self._heading: list[str] | None = None
        self._title_div: int | None = None
        self._table_stack: list[dict] = []
        self._row_cells: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if tag != "meta" and a.get(key):
                self.ids.add(a[key])
        line = self.getpos()[0]
        for attr in {"a": ("href",), "img": ("src",), "link": ("href",), "script": ("src",), "object": ("data",),
                     "iframe": ("src",)}.get(tag, ()):
            if a.get(attr):
                self.links.append((line, f"{tag} {attr}", a[attr]))
        if tag == "link" and (a.get("rel") or "") == "stylesheet":
            self.stylesheets.append(a.get("href") or "")
        classes = (a.get("class") or "").split()
        if tag == "div":
            fragment = "fragment" in classes
            self._divs.append(fragment)
            self._code += fragment
            if "title" in classes and self._heading is None:
                self._heading, self._title_div = [], len(self._divs)
        elif tag in ("pre", "code", "tt"):
            self._code += 1
        elif tag in ("script", "style", "head"):
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading = []
        elif tag == "table":
            self._table_stack.append({"header": None, "rows": 0})
        elif tag == "tr" and self._table_stack:
            self._table_stack[-1]["rows"] += 1
            self._row_cells = [] if self._table_stack[-1]["header"] is None else None

    def handle_endtag(self, tag):
        if tag == "div" and self._divs:
            if self._title_div == len(self._divs) and self._heading is not None:
                self.headings.append(" ".join(self._heading))
                self._heading, self._title_div = None, None
            self._code -= self._divs.pop()
        elif tag in ("pre", "code", "tt"):
            self._code = max(0, self._code - 1)
        elif tag in ("script", "style", "head"):
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) and self._heading is not None and self._title_div is None:
            self.headings.append(" ".join(self._heading))
            self._heading = None
        elif tag == "tr" and self._table_stack and self._row_cells is not None:
            self._table_stack[-1]["header"] = words(" ".join(self._row_cells))
            self._row_cells = None
        elif tag == "table" and self._table_stack:
            self.tables.append(self._table_stack.pop())

    def handle_data(self, data):
        if self._skip:
            return
        if self._heading is not None:
            self._heading.append(data)
        if self._row_cells is not None:
            self._row_cells.append(data)
        if not self._code and data.strip():
            self.text.append((self.getpos()[0], data))


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    page.close()
    return page


def source_structure(md: Path) -> tuple[str | None, list[str], list[tuple[str, int, int]], list[int]]:
    """(the HTML file name of a Markdown page, its headings, its tables as (header, rows, line), the lines
    whose @ref label runs onto the next line). Skips code fences, \\code/\\verbatim blocks and comments."""
    lines = md.read_text(encoding="utf-8").split("\n")
    first = lines[0] if lines else ""
    target = None
    if first.startswith("\\mainpage") or first.startswith("@mainpage"):
        target = "index.html"
    elif m := re.search(r"\{#([\w-]+)\}\s*$", first):
        target = f"{m.group(1)}.html"
    headings, tables, split_labels = [], [], []
    fence = None
    in_comment = False
    in_block = None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if in_comment:
            in_comment = "-->" not in line
        elif fence:
            if stripped.startswith(fence):
                fence = None
        elif in_block:
            if re.match(rf"[\\@]end{in_block}\b", stripped):
                in_block = None
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif m := re.match(r"[\\@](code|verbatim)\b", stripped):
            in_block = m.group(1)
        elif stripped.startswith("<!--") and "-->" not in stripped:
            in_comment = True
        elif re.search(r'[\\@]ref\s+[\w.-]+\s+"[^"]*$', line):
            split_labels.append(i + 1)
            i += 1
            continue
        elif i == 0 and target == "index.html":
            text = markdown_text(re.sub(r"^[\\@]mainpage\s*", "", first))
            if text:
                headings.append(" ".join(text.split()))
        elif m := HEADING.match(line):
            text = markdown_text(m.group(2))
            if text is not None:
                headings.append(" ".join(text.split()))
        elif stripped.startswith("|") and i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1]):
            text = markdown_text(stripped)
            rows, j = 1, i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                rows, j = rows + 1, j + 1
            if text is not None:
                tables.append((" ".join(text.split()), rows, i + 1))
            i = j
            continue
        i += 1
    return target, headings, tables, split_labels


def doxygen_pages(doxyfile: Path | None) -> list[Path]:
    """The Markdown pages of the site: the .md files of the Doxyfile's INPUT, or the course's usual ones."""
    if doxyfile and doxyfile.is_file():
        text = doxyfile.read_text()
        m = re.search(r"^INPUT\s*=((?:.*\\\n)*.*)$", text, re.M)
        if m:
            return [Path(p) for p in shlex.split(m.group(1).replace("\\\n", " ")) if p.endswith(".md")]
    pages = [ROOT / "docs" / "mainpage.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted(ROOT.glob("[0-9][0-9]_*/README.md")), *sorted(ROOT.glob("[0-9][0-9]_*/instructor/*.md")),
             ROOT / "reduce_ladder" / "README.md"]
    return list(dict.fromkeys(p for p in pages if p.is_file()))


def check_text(name: str, page: Page, from_markdown: bool = True) -> list[str]:
    """The visible text's leftovers; emphasis only on pages made from Markdown (the API pages print C++
    declarations such as `char **argv` outside code elements)."""
    out = []
    patterns = [(COMMAND, "a Doxygen command reached the text"),
                (ESCAPED_TAG, "an escaped HTML tag or comment is shown as text"),
                (MARKDOWN_LEFTOVER, "Markdown syntax is shown as text")]
    if from_markdown:
        patterns.append((EMPHASIS, "an emphasis marker is shown as text"))
    for line, text in page.text:
        for pattern, what in patterns:
            by_line: dict[int, list[re.Match]] = {}
            for m in pattern.finditer(text):
                by_line.setdefault(line + text.count("\n", 0, m.start()), []).append(m)
            for number, matches in by_line.items():
                m = matches[0]
                excerpt = " ".join(text[max(0, m.start() - 20):m.end() + 40].split())
                more = f" (and {len(matches) - 1} more on this line)" if len(matches) > 1 else ""
                out.append(f"{name}:{number}: {what}: '{excerpt}'{more}")
    return out


def check_links(html_dir: Path, name: str, page: Page, ids: dict[str, set[str]]) -> list[str]:
    out = []
    for line, attr, value in page.links:
        if EXTERNAL.match(value):
            continue
        if SCHEME.match(value):
            out.append(f"{name}:{line}: {attr}=\"{value}\": not a link a browser can follow (an auto-link?)")
            continue
        path, _, anchor = value.partition("#")
        path = path.split("?")[0]
        target = (html_dir / name).parent / path if path else html_dir / name
        if path and not target.exists():
            out.append(f"{name}:{line}: {attr}=\"{value}\": {path} does not exist")
        elif anchor and target.suffix == ".html" and target.is_file():
            key = str(target.resolve())
            if key not in ids:
                ids[key] = parse(target).ids
            if anchor not in ids[key]:
                out.append(f"{name}:{line}: {attr}=\"{value}\": no anchor #{anchor} in {target.name}")
    return out


def check_sources(html_dir: Path, md_pages: list[Path], pages: dict[str, Page]) -> list[str]:
    out = []
    for md in md_pages:
        label = md.relative_to(ROOT) if md.is_relative_to(ROOT) else md
        target, headings, tables, split_labels = source_structure(md)
        for line in split_labels:
            out.append(f"{label}:{line}: the label of a @ref runs onto the next line (write @ref id \"label\" on "
                       "one line: Doxygen 1.9 may print the rest of the page as raw markup, without a warning)")
        if target is None:
            continue
        page = pages.get(target)
        if page is None:
            out.append(f"{label}: its page {target} was not built")
            continue
        shown = {words(h) for h in page.headings}
        for heading in headings:
            if words(heading) and words(heading) not in shown:
                out.append(f"{target} ({label}): the heading '{heading}' is not a heading of the page")
        html_tables = list(page.tables)
        for header, rows, line in tables:
            match = next((t for t in html_tables if t["header"] == words(header)), None)
            short = header if len(header) <= 60 else header[:57] + "..."
            if match is None:
                out.append(f"{target} ({label}:{line}): the table '{short}' is not a table of the page")
                continue
            html_tables.remove(match)
            if match["rows"] != rows:
                out.append(f"{target} ({label}:{line}): the table '{short}' has {rows} rows in the source, "
                           f"{match['rows']} on the page")
    return out


def duplicate_images(html_dir: Path, pages: dict[str, Page]) -> list[str]:
    """Pictures the pages show that are byte for byte the same file under different names."""
    by_hash: dict[str, set[str]] = {}
    for page in pages.values():
        for _, attr, value in page.links:
            if attr in ("img src", "object data") and not EXTERNAL.match(value) and (html_dir / value).is_file():
                by_hash.setdefault(hashlib.sha256((html_dir / value).read_bytes()).hexdigest(), set()).add(value)
    return [f"the same picture under {len(names)} names: {', '.join(sorted(names))}"
            for names in by_hash.values() if len(names) > 1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html", type=Path, default=ROOT / "build" / "docs" / "html", help="the built site")
    ap.add_argument("--doxyfile", type=Path, help="the Doxyfile that built it (its INPUT lists the pages; "
                    "default: the Doxyfile beside the html folder)")
    args = ap.parse_args()
    html_dir = args.html
    if not (html_dir / "index.html").is_file():
        print(f"check_html.py: no built site at {html_dir} (cmake --build build --target docs)", file=sys.stderr)
        return 2
    doxyfile = args.doxyfile or html_dir.parent / "Doxyfile"
    pages = {p.name: parse(p) for p in sorted(html_dir.glob("*.html"))}
    ids = {str((html_dir / n).resolve()): p.ids for n, p in pages.items()}
    md_pages = doxygen_pages(doxyfile)
    from_markdown = {source_structure(md)[0] for md in md_pages if md.is_file()}
    problems = []
    for name, page in pages.items():
        problems += check_text(name, page, name in from_markdown)
        problems += check_links(html_dir, name, page, ids)
        if not any(s.split("/")[-1] == STYLESHEET for s in page.stylesheets):
            problems.append(f"{name}: does not load {STYLESHEET} (HTML_EXTRA_STYLESHEET): wide tables and code "
                            "would widen or be cut off")
    problems += check_sources(html_dir, md_pages, pages)
    problems += duplicate_images(html_dir, pages)
    for problem in problems:
        print(problem)
    print(f"check_html: {len(pages)} pages, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
