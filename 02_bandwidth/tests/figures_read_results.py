"""figures_read_results.py RESULTS_JSON: the lesson's tables render from a results file the program's
tables code wrote (tests/test_tables.cpp writes one from made-up measurements), as they do from the
committed ones (and the blocks the committed ones do not hold yet, such as "copy_return"), that the
committed results give every inline value of the lesson, its lab notebook and its answer key (instructor/answer_key.md),
and that each value sits in those pages where Doxygen and Markdown show it as written. Exit 1, naming the
block, value or line, when not."""
import copy
import importlib.util
import json
import re
import pathlib
import sys

chapter = pathlib.Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("figures_02", chapter / "figures.py")
figures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(figures)

doc = json.loads(pathlib.Path(sys.argv[1]).read_text())
blocks = figures.tables({"made_up": doc})
expected = {  # block -> text it must show
    "k80_vs_today": "device → device (read + write)",
    "book_size": "write-combined",
    "fits": "`d2d_sm_kernel`",
    "timing_methods": "`d2d_memcpy`",
    "copy_return": "| `cudaMemcpyAsync` | 32 MiB |",
    "d2d_duel": "Fastest SM copy",
    "p2p": "| 1 → 0 | enabled |",
    "plots": "ch02_bandwidth_sweep_made_up.png",
}
failed = [name for name, text in expected.items() if text not in blocks.get(name, "")]
for name in failed:
    print(f"block {name}: expected '{expected[name]}' in:\n{blocks.get(name)}", file=sys.stderr)
# The inline values read the program's results file without failing (made-up measurements lack the
# device's details and the real tuned copies, so some of them say they were not measured) ...
figures.values({"made_up": doc})
# ... and every value the lesson, its notebook or its answer key shows is one the committed results give, never the
# placeholder.
committed = {path.parent.name: json.loads(path.read_text())
             for path in sorted((chapter.parent / "results").glob("*/02_bandwidth.json"))}
given = figures.values(committed)
# A handout has no instructor/ folder: its answer key is checked where it exists.
pages = [p for p in (chapter / "README.md", chapter / "notebook.md", chapter / "instructor" / "answer_key.md")
         if p.is_file()]
unmeasured = []
for page in pages:
    for name in re.findall(r"<!-- value:([\w.-]+) -->", page.read_text()):
        if given.get(name, figures.MISSING) == figures.MISSING:
            unmeasured.append(name)
            print(f"{page.relative_to(chapter)}: value {name}: the committed results do not give it", file=sys.stderr)
# Doxygen drops the whitespace after an HTML comment ("4.0×<!-- /value --> faster" shows "4.0×faster"),
# and Markdown reads a line that starts with "<!--" as an HTML block, ending the paragraph: so a value
# ends its line when a word follows, and never starts one (not even indented, in a list item).
badly_placed = [(page, line) for page in pages for line in page.read_text().splitlines()
                if re.search(r"<!-- /value --> ", line) or re.match(r"\s*<!-- value:", line)]
for page, line in badly_placed:
    print(f"{page.relative_to(chapter)}: a line with a value followed by a space, or starting with one: "
          f"{line.strip()}", file=sys.stderr)
# The copy-return summary is read from the rows: the committed H100 rows say pageable host → device calls
# return early and device → host ones complete; rows that say otherwise give another sentence.
wrong_summary = []
h100 = committed.get("h100")
if h100 is not None:
    summary = figures.values({"h100": h100})["h100.copy_return.summary"]
    for phrase in ("Pageable, host → device: both calls returned before the copy was complete",
                   "Pageable, device → host: both calls returned only once the copy was complete"):
        if phrase not in summary:
            wrong_summary.append(f"committed summary lacks '{phrase}': {summary}")
    flipped = copy.deepcopy(h100)
    for r in flipped["rows"]:
        if r.get("scenario") == "copy_return" and (r["memory"], r["copy"]) == ("pageable", "d2h"):
            r["after_return_us"] = r["wait_floor_us"] + 50.0  # the copy still running after the return
    summary = figures.values({"h100": flipped})["h100.copy_return.summary"]
    if "Pageable, device → host: both calls returned before the copy was complete" not in summary:
        wrong_summary.append(f"the summary does not follow rows that tell another story: {summary}")
for problem in wrong_summary:
    print(f"copy_return.summary: {problem}", file=sys.stderr)
sys.exit(1 if failed or unmeasured or badly_placed or wrong_summary else 0)
