"""figures_values.py: the lesson's generated prose follows the results, not the other way round.

1. Every inline value the README shows is one the committed results give (never the placeholder), no
   value sits where Doxygen would mangle it, and the prose outside generated text types no measured
   number (a decimal followed by x, ×, ms, µs, GB/s or %: the model's whole numbers are allowed).
2. Made-up results with another story (staggered issue fastest on one queue; one copy engine) make the
   same values and the scenarios' caption say so: a verdict typed into figures.py would fail here.
Exit 1, naming what differs."""
import copy
import importlib.util
import json
import pathlib
import re
import sys

chapter = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(chapter.parent / "scripts"))
import prose_checks  # noqa: E402  (the shared first half: values given, layout, no typed numbers)

figures, committed = prose_checks.load_chapter(chapter)
readme = (chapter / "README.md").read_text()
given = figures.values(committed)
failures = prose_checks.prose_failures(chapter, figures, committed)


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


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

for f in failures:
    print(f, file=sys.stderr)
sys.exit(1 if failures else 0)
