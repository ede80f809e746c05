#!/usr/bin/env python3
"""scripts/check_html.py can fail: a page broken the way chapter 02's was (a @ref label split over two
lines makes Doxygen 1.9 print the rest of the page as raw markup, with zero warnings) must be reported,
with the command, the lost heading and the lost table named; the same page fixed must pass. Also: a dead
#anchor, the same picture under two names, code spans left as text (backticks) and emphasis markers left as
text (bold around a link, bold that starts with a code span of "-": chapters 04, 05 and 07 had them) are reported.

    python3 docs/tests/test_check_html.py DOXYGEN
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_html.py"

PAGE = """# Page {{#page}}

Some text that links @ref other {label} and goes on.

\\snippet snippet.txt marker

## Run it

```
cmake --workflow --preset test
```

Options: `--variants`, `--size`.

| option | what it does |
|---|---|
| `--variants` | the rows to run |
| `--size` | bytes per copy |

{extra}

## Other {{#other}}

End.
"""
SNIPPET = "// [marker]\nint x = 1;\n// [marker]\n"


def build(doxygen: str, folder: Path, label: str, extra: str = "") -> Path:
    (folder / "page.md").write_text(PAGE.format(label=label, extra=extra))
    (folder / "snippet.txt").write_text(SNIPPET)
    (folder / "Doxyfile").write_text(
        f"INPUT = {folder / 'page.md'}\nOUTPUT_DIRECTORY = {folder / 'out'}\nGENERATE_LATEX = NO\nQUIET = YES\n"
        f"EXAMPLE_PATH = {folder}\nIMAGE_PATH = {folder}\nWARN_LOGFILE = {folder / 'warnings.log'}\n"
        f"HTML_EXTRA_STYLESHEET = {ROOT / 'docs' / 'course.css'}\n")
    subprocess.run([doxygen, str(folder / "Doxyfile")], check=True, cwd=folder, capture_output=True)
    return folder / "out" / "html"


def check(html: Path, doxyfile: Path) -> tuple[int, str]:
    run = subprocess.run([sys.executable, str(CHECK), "--html", str(html), "--doxyfile", str(doxyfile)],
                         capture_output=True, text=True)
    return run.returncode, run.stdout


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: test_check_html.py DOXYGEN", file=sys.stderr)
        return 2
    doxygen = sys.argv[1]
    failures = []

    def expect(what: str, condition: bool, output: str) -> None:
        if not condition:
            failures.append(f"{what}\n{output}")

    with tempfile.TemporaryDirectory() as tmp:
        broken = Path(tmp) / "broken"
        broken.mkdir()
        rc, out = check(build(doxygen, broken, '"beyond\nthe lesson"'), broken / "Doxyfile")
        expect("the split label must fail the check", rc == 1, out)
        expect("the raw \\snippet must be named", "page.html" in out and "\\snippet" in out, out)
        expect("the lost heading must be named", "the heading 'Run it' is not a heading" in out, out)
        expect("the lost table must be named", "the table '| option | what it does |' is not a table" in out, out)
        expect("the escaped <tt> must be named", "<tt>--variants</tt>" in out, out)
        expect("the split label itself must be named", "page.md:3: the label of a @ref runs onto the next line" in out,
               out)

        fixed = Path(tmp) / "fixed"
        fixed.mkdir()
        rc, out = check(build(doxygen, fixed, '"beyond the lesson"'), fixed / "Doxyfile")
        expect("the same page with the label on one line must pass", rc == 0 and not out.strip(), out)

        links = Path(tmp) / "links"
        links.mkdir()
        picture = bytes(range(256)) * 4
        (links / "a.png").write_bytes(picture)
        (links / "b.png").write_bytes(picture)
        extra = ('<a href="#nowhere">a dead anchor</a>\n\n\\image html a.png "One picture."\n\n'
                 '\\image html b.png "The same picture again."\n')
        rc, out = check(build(doxygen, links, '"beyond the lesson"', extra), links / "Doxyfile")
        expect("a dead anchor must be named", "no anchor #nowhere in page.html" in out, out)
        expect("a picture under two names must be named", "the same picture under 2 names: a.png, b.png" in out, out)

        ticks = Path(tmp) / "ticks"
        ticks.mkdir()
        extra = ('Run it: `build/prog` (32,000 atoms, all strategies, 1…nproc\n'
                 'threads, 100 MD steps each); `--help` lists `--cells --steps --reference-steps --threads 8|1,2,4 --variants name,...\n'
                 '--rebuild-every --dt --temperature --density --cutoff --skin --seed --data --minimum-image --reps --warmup\n'
                 '--json --csv`.\n\nThe compiler, @ref other "`nvcc`", is named.\n')
        rc, out = check(build(doxygen, ticks, '"beyond the lesson"', extra), ticks / "Doxyfile")
        expect("a code span over two line breaks (chapter 01's option list) must be named",
               "Markdown syntax is shown as text: 'lists `" in out, out)
        expect("a code span in a @ref label must be named", "nvcc" in out, out)

        # The three shapes the pages had: bold around a glossary @ref (04), bold around a @ref in a list item
        # (05), bold that starts with a code span of an option "-..." (07).
        stars = Path(tmp) / "stars"
        stars.mkdir()
        extra = ('The tree runs **in place in @ref other "global memory"**, on the input.\n\n'
                 '- The whole reduction is **one @ref other "launch"**, which matters.\n\n'
                 '**`-use_fast_math` and `-G`.** Two flags.\n')
        rc, out = check(build(doxygen, stars, '"beyond the lesson"', extra), stars / "Doxyfile")
        emphasis = [line for line in out.splitlines() if "an emphasis marker is shown as text" in line]
        expect("bold around a link must be named", any("'The tree runs **in place in'" in line for line in emphasis),
               out)
        expect("bold around a link in a list item must be named",
               any("'whole reduction is **one'" in line for line in emphasis), out)
        expect("bold that starts with a code span of '-' must be named",
               any("'.** Two flags.'" in line for line in emphasis), out)
        # Rendered emphasis, arithmetic and identifiers in code are not reported.
        fine = Path(tmp) / "fine"
        fine.mkdir()
        extra = ('Plain **bold**, *italic* and __strong__ render; 2 * 3 * 4 is arithmetic, a*b*c a product, and\n'
                 '`__syncwarp()` and `**p` are code.\n')
        rc, out = check(build(doxygen, fine, '"beyond the lesson"', extra), fine / "Doxyfile")
        expect("rendered emphasis, arithmetic and code must pass", rc == 0 and not out.strip(), out)

    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"test_check_html: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
