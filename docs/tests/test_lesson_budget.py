#!/usr/bin/env python3
"""The lesson budget check can fail: a lesson one word or one table line over its budget, a chapter without
a notebook and a lesson that does not link to its notebook are each reported; code, tables, comments and
Doxygen commands are not counted as prose; a page within the budget passes."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import lesson_budget  # noqa: E402

failures = []


def expect(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)


def chapter(root: Path, name: str, lesson: str, notebook: bool = True) -> None:
    (root / name).mkdir()
    (root / name / "README.md").write_text(lesson)
    if notebook:
        (root / name / "notebook.md").write_text("# Lab notebook {#ch%s_notebook}\n" % name[:2])


# The rule: only the prose words count.
page = ("# 42 · Title {#ch42}\n<!-- chapter-summary: not counted at all -->\n[TOC]\n\n"
        "One two three @ref gl_x \"four five\" `six`.\n\n"
        "```cpp\nint not_counted = 1;\n```\n\n    T(n) = a + n / b\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n\\snippet x.cu name\n\\image html x.svg \"Not counted.\"\n"
        "Seven <!-- value:v -->8.0<!-- /value -->&nbsp;nine.\n")
expect(lesson_budget.count(page) == (10, 3), f"counted {lesson_budget.count(page)}, expected (10, 3)")

limit = lesson_budget.LIMITS["prose_words"]
lines = lesson_budget.LIMITS["table_lines"]
link = "See @subpage ch%s_notebook \"the notebook\".\n"
with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    chapter(root, "90_within", "word " * (limit - 3) + "\n\n" + link % "90" + "| t |\n" * lines)
    chapter(root, "91_words", "word " * (limit + 1) + "\n\n" + link % "91")
    chapter(root, "92_tables", link % "92" + "| t |\n" * (lines + 1))
    chapter(root, "93_no_notebook", "Short.\n", notebook=False)
    chapter(root, "94_unlinked", "Short, no link to its notebook.\n")
    lesson_budget.TEMPORARY_ALLOWANCES = set()
    _, found = lesson_budget.problems(root)
    text = "\n".join(found)
    expect("90_within" not in text, f"a page within the budget was reported: {text}")
    expect(f"91_words/README.md: {limit + 1 + 3} words" in text, f"too many words not reported: {text}")
    expect(f"92_tables/README.md: {lines + 1} table lines" in text, f"too many table lines not reported: {text}")
    expect("93_no_notebook: has no notebook.md" in text, f"a missing notebook not reported: {text}")
    expect("94_unlinked/README.md: does not link to its notebook" in text, f"an unlinked notebook not reported: {text}")
    lesson_budget.TEMPORARY_ALLOWANCES = {"91_words"}
    _, found = lesson_budget.problems(root)
    expect(not any("91_words" in f for f in found), "an allowed chapter was still reported")

for failure in failures:
    print(f"FAIL: {failure}")
print("lesson budget check: ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
