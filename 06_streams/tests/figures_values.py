"""figures_values.py: the lesson's generated prose follows the results, not the other way round.

1. Every inline value the README shows is one the committed results give (never the placeholder), no
   value sits where Doxygen would mangle it, and the prose outside generated text types no measured
   number (a decimal followed by x, ×, ms, µs, GB/s or %: the model's whole numbers are allowed).
2. Made-up results with another story (staggered issue fastest on one queue; one copy engine) make the
   same values and the scenarios' caption say so: a verdict typed into figures.py would fail here.
3. The answer key (instructor/answer_key.md) likewise: every value it names is one the committed results
   give, its Questions type no measured number outside a value, the per-chunk arithmetic it shows adds
   up, and the sweep's values follow the best N of the results rather than a typed one.
4. The speedup baseline the pages state is the one the program computes: every sweep row's speedup is the
   serial time (the unchunked run timed before the sweep, `serial_ms`) over the row's time, in the results;
   the lesson states that time as a value, and the speedups its sweep table shows are that time over the
   times it shows (to their rounding), as are the notebook's small-size tables over their own serial times.
5. The lab notebook (notebook.md) is held to the README's rules: its values come from the results and no
   measured number is typed into its prose.
Exit 1, naming what differs."""
import copy
import re
import pathlib
import sys

chapter = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(chapter.parent / "scripts"))
import prose_checks  # noqa: E402  (shared with the other figures_values tests: prose, answer key, failures)

figures, committed = prose_checks.load_chapter(chapter)
given = figures.values(committed)
failures = prose_checks.Failures(prose_checks.prose_failures(chapter, figures, committed))
expect = failures.expect


# 2. The committed H100 run, retold: staggered issue fastest on one queue, and a device with one copy engine.
for slug, doc in committed.items():
    other = copy.deepcopy(doc)
    for setting in other["extra"]["issue_order"]:
        if setting["connections"] == 1:
            for o in setting["orders"]:
                o["wall_ms"] = {"depth_first": 9.0, "breadth_first": 3.0, "staggered": 2.0}[o["order"]]
    other["device"]["async_engine_count"] = 1
    other["extra"]["calibration"]["copy_engines"] = 1
    v = figures.values({"other": other})
    expect("staggered verdict", v.get("other.one_queue.staggered_verdict"), "faster than both")
    expect("depth over breadth", v.get("other.one_queue_depth_over_breadth"), "3.00×")
    expect("engines reported", v.get("other.async_engine_count"), "1")
    expect("engines in the model", v.get("other.model_copy_engines"), "1")
    caption = figures.tables({"other": other})["streams_scenarios"].splitlines()[0]
    if "1 copy engines reported by the device" not in caption or "1 in the model" not in caption:
        failures.append(f"the scenarios' caption does not follow the device: {caption}")
    committed_caption = figures.tables({slug: doc})["streams_scenarios"].splitlines()[0]
    expect("committed caption names the device's count",
           f"{doc['device']['async_engine_count']} copy engines reported by the device" in committed_caption, True)

# 3. The answer key: generated from the same values, and its Questions type no measured number.
# A handout has no instructor/ folder: there the answer key is not checked.
failures += prose_checks.answer_key_failures(chapter, figures, given, section="Questions")
for slug in committed:
    v = {k.split(".", 1)[1]: x for k, x in given.items() if k.startswith(slug + ".")}
    try:
        shown = (float(v["sweep.last_excess_ms"]) - float(v["sweep.next_excess_ms"])) / int(v["sweep.next_to_last_chunks"]) * 1e3
    except (KeyError, ValueError, ZeroDivisionError) as e:
        failures.append(f"{slug}: the answer key's per-chunk arithmetic has no values: {e}")
    else:
        if abs(shown - float(v["sweep.per_chunk_us"])) > 0.051:
            failures.append(f"{slug}: the per-chunk arithmetic gives {shown:.2f} µs, the key says {v['sweep.per_chunk_us']}")
    # The same run with its best N moved one point left: the values after the best move with it.
    other = copy.deepcopy(committed[slug])
    sweep = sorted(other["extra"]["sweep"], key=lambda p: p["chunks"])
    best = next(i for i, p in enumerate(sweep) if p["chunks"] == other["extra"]["summary"]["balanced_pipeline"]["best_chunks"])
    if best >= 1:
        other["extra"]["summary"]["balanced_pipeline"]["best_chunks"] = sweep[best - 1]["chunks"]
        w = figures.values({"other": other})
        expect("the N after a moved best", w.get("other.sweep.next_n"), str(sweep[best]["chunks"]))
        expect("the best ms of a moved best", w.get("other.sweep.best_ms"), f"{sweep[best - 1]['measured_ms']:.3f}")
    # A sweep whose best N is its last has no right side of the U: the values say so, never a typed number.
    other["extra"]["summary"]["balanced_pipeline"]["best_chunks"] = sweep[-1]["chunks"]
    expect("the N after a best that is the last", figures.values({"other": other}).get("other.sweep.next_n"), figures.MISSING)

# 4. The sweep's baseline, as computed (scenario_pipeline.cpp) and as the pages state it.
def shown_speedups(table_text):
    """(measured ms, shown speedup) of each row of the first Markdown table in table_text whose header has
    'measured ms' followed by 'speedup' (the N sweep's columns)."""
    rows, header = [], None
    for line in table_text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None and "measured ms" in cells and "speedup" in cells:
            header = cells
        elif header and line.startswith("|") and not set(line) <= set("|-: "):
            rows.append((float(cells[header.index("measured ms")]), float(cells[header.index("speedup")].rstrip("x"))))
        elif header and rows and not line.startswith("|"):
            break
    return rows


def agrees(serial, measured, shown, serial_decimals, measured_decimals):
    """shown (2 decimals) is serial / measured, both given rounded to the decimals the page shows them with."""
    exact = serial / measured
    slack = exact * (0.5 * 10 ** -serial_decimals / serial + 0.5 * 10 ** -measured_decimals / measured)
    return abs(shown - exact) <= 0.005 + slack + 1e-12


lesson = (chapter / "README.md").read_text()
notebook_path = chapter / "notebook.md"
for slug, doc in committed.items():
    serial = doc["extra"]["serial_ms"]
    for p in doc["extra"]["sweep"]:
        if abs(p["speedup"] - serial / p["measured_ms"]) > 1e-9 * p["speedup"]:
            failures.append(f"{slug}: N={p['chunks']} stores speedup {p['speedup']}, serial_ms / measured_ms is "
                            f"{serial / p['measured_ms']}: the baseline the pages state is not the program's")
    if f"<!-- value:{slug}.serial_ms -->" not in lesson:
        failures.append(f"{slug}: the lesson does not state the sweep's baseline (value {slug}.serial_ms)")
    shown_serial = float(given[f"{slug}.serial_ms"])
    block = figures.tables({slug: doc})["streams_sweep"]
    rows = shown_speedups(block)
    if not rows:
        failures.append(f"{slug}: no row of the sweep table could be read")
    for measured, shown in rows:
        if not agrees(shown_serial, measured, shown, 3, 3):
            failures.append(f"{slug}: the sweep shows {shown:.2f}x at {measured} ms, but the stated baseline "
                            f"{shown_serial} ms over {measured} ms is {shown_serial / measured:.4f}")
    best = doc["extra"]["summary"]["balanced_pipeline"]
    at_best = next(p for p in doc["extra"]["sweep"] if p["chunks"] == best["best_chunks"])
    expect(f"{slug}: the best speedup is the sweep's row at the best N", given[f"{slug}.best_speedup"],
           f"{at_best['speedup']:.2f}×")
    for tag, run in figures.load_small(slug).items():
        small_serial = float(given[f"{slug}.small_copies.{tag}.serial_ms"])
        for p in run["extra"]["sweep"]:
            shown = float(f"{p['speedup']:.2f}")
            if not agrees(small_serial, float(f"{p['measured_ms']:.3f}"), shown, 4, 3):
                failures.append(f"{slug} {tag}: N={p['chunks']} shows {shown:.2f}x, the stated baseline "
                                f"{small_serial} ms over {p['measured_ms']:.3f} ms does not give it")

# 5. The lab notebook is held to the README's rules by prose_checks.prose_failures (above); it must exist.
if not notebook_path.is_file():
    failures.append("06_streams/notebook.md, the lab notebook, is missing")

failures.finish()
