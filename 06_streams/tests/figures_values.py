"""figures_values.py: the lesson's generated prose follows the results, not the other way round.

1. Every inline value the README shows is one the committed results give (never the placeholder), no
   value sits where Doxygen would mangle it, and the prose outside generated text types no measured
   number (a decimal followed by x, ×, ms, µs, GB/s or %: the model's whole numbers are allowed).
2. Made-up results with another story (staggered issue fastest on one queue; one copy engine) make the
   same values and the scenarios' caption say so: a verdict typed into figures.py would fail here.
3. The answer key (instructor/answer_key.md) likewise: every value it names is one the committed results
   give, its Questions type no measured number outside a value, the per-chunk arithmetic it shows adds
   up, and the sweep's values follow the best N of the results rather than a typed one.
Exit 1, naming what differs."""
import copy
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

failures.finish()
