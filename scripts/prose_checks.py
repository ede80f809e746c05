"""What every chapter's figures_values test checks first: the lesson's generated prose follows the
committed results. Every inline value the README shows is one the results give (never figures.MISSING),
no value sits where Doxygen would mangle it, and the prose outside generated text types no measured
number (a decimal followed by x, ×, ms, µs, GB/s or %). The Exercises section states grading
thresholds (targets, not measurements) and is left out."""
import importlib.util
import json
import pathlib
import re
import sys


def load_chapter(chapter: pathlib.Path):
    """The chapter's figures module and its committed results (gpu slug -> results JSON)."""
    spec = importlib.util.spec_from_file_location(f"figures_{chapter.name[:2]}", chapter / "figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    committed = {path.parent.name: json.loads(path.read_text())
                 for path in sorted((chapter.parent / "results").glob(f"*/{chapter.name}.json"))}
    return figures, committed


def prose_failures(chapter: pathlib.Path, figures, committed) -> list[str]:
    """The lesson (README.md) and its lab notebook (notebook.md, where there is one) under the same rules: every
    value a page names is one the committed results give, none sits where Doxygen mangles it, and no measured
    number is typed outside a value or a generated block."""
    failures = []
    given = figures.values(committed)
    for page in ("README.md", "notebook.md"):
        path = chapter / page
        if path.is_file():
            failures.extend(_page_failures(page, path.read_text(), given, figures.MISSING))
    return failures


def _page_failures(page: str, text: str, given: dict, missing) -> list[str]:
    failures = []
    for name in re.findall(r"<!-- value:([\w.-]+) -->", text):
        if given.get(name, missing) == missing:
            failures.append(f"{page}: value {name}: the committed results do not give it")
    for line in text.splitlines():
        if re.match(r"\s*<!-- value:", line) or "<!-- /value --> " in line:
            failures.append(f"{page}: a line starts with a value, or a plain space follows one: {line.strip()}")
    prose = re.sub(r"<!-- BEGIN generated:([\w.-]+) -->.*?<!-- END generated:\1 -->", "", text, flags=re.S)
    prose = re.sub(r"<!-- value:[\w.-]+ -->.*?<!-- /value -->", "", prose, flags=re.S)
    prose = re.sub(r"```.*?```", "", prose, flags=re.S)
    prose = re.sub(r"\n## Exercises\n.*?(?=\n## |\Z)", "\n", prose, flags=re.S)
    for typed in re.findall(r"\d+\.\d+\s*(?:x|×|ms|µs|us|GB/s|%)(?!\w)", prose):
        failures.append(f"{page}: a measured number typed into the prose: {typed}")
    return failures


# What both figures_values tests check of the answer key (instructor/answer_key.md), and how they report.
TYPED_IN_KEY = re.compile(r"\d+\.\d+(?:\s|&nbsp;)*(?:x|×|ms|µs|us|GB/s|%)(?!\w)")


def answer_key(chapter: pathlib.Path) -> str:
    """The chapter's answer key, or "" in a handout (which drops instructor/)."""
    path = chapter / "instructor" / "answer_key.md"
    return path.read_text() if path.is_file() else ""


def answer_key_failures(chapter: pathlib.Path, figures, given: dict[str, str], section: str | None = None) -> list[str]:
    """The answer key is generated from the same values as the lesson: every value it names is one the
    committed results give, no value sits where Doxygen or Markdown would show it otherwise, and no measured
    number is typed outside a value (in the whole key, or in its `## <section>` only, which must then exist).
    [] in a handout (no answer key)."""
    key = answer_key(chapter)
    if not key:
        return []
    failures = []
    for name in re.findall(r"<!-- value:([\w.-]+) -->", key):
        if given.get(name, figures.MISSING) == figures.MISSING:
            failures.append(f"answer key value {name}: the committed results do not give it")
    for line in key.splitlines():
        if re.match(r"\s*<!-- value:", line) or re.search(r"<!-- /value --> +\S", line):
            failures.append(f"answer key line starts with a value, or a plain space follows one: {line.strip()[:80]}")
        if '"<!-- value:' in line:  # Doxygen prints a comment inside a quoted string as text
            failures.append(f"answer key value right after a double quote (Doxygen shows the marker): {line.strip()[:80]}")
    prose = key
    if section is not None:
        found = re.search(rf"\n## {re.escape(section)}\n(.*?)(?=\n## |\Z)", key, flags=re.S)
        if not found:
            return failures + [f"the answer key has no {section} section"]
        prose = found.group(1)
    prose = re.sub(r"<!-- value:[\w.-]+ -->.*?<!-- /value -->", "", prose, flags=re.S)
    prose = re.sub(r"`[^`]*`", "", prose)
    where = f"the answer key's {section}" if section else "the answer key"
    failures += [f"a measured number typed into {where}: {typed}" for typed in TYPED_IN_KEY.findall(prose)]
    return failures


class Failures(list):
    """The failures of one figures_values test: expect() adds one where a value differs, finish() prints
    them all and exits 1 (0 when there are none)."""

    def expect(self, what, got, want) -> None:
        if got != want:
            self.append(f"{what}: got {got!r}, expected {want!r}")

    def finish(self) -> None:
        for failure in self:
            print(failure, file=sys.stderr)
        sys.exit(1 if self else 0)
