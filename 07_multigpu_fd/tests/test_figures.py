"""The lesson's tables and the numbers its prose quotes are the same whether a GPU's runs sit in one
results file (results made before bench.sh wrote one file per run) or in one file per run, as bench.sh
writes them now. The scaling section handles any number of GPUs: a synthetic 4-GPU sweep (one-step and
temporal rungs, never committed as results) gives a row per GPU count and a halo model that reproduces
times made by the model's own rule. And the lesson stays a lesson: within its budget of prose words and
table lines, with an in-page table of contents, linking its lab notebook.

    python3 test_figures.py <repository root>
"""
import importlib.util
import json
import pathlib
import re
import sys
import tempfile

CHAPTER = "07_multigpu_fd"


def load_figures(root):
    spec = importlib.util.spec_from_file_location("figures_07", root / CHAPTER / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split(doc):
    """One merged results file -> (main file, {kind: file}) as bench.sh now writes them."""
    def part(rows, snapshots=()):
        out = dict(doc, rows=list(rows), extra={k: v for k, v in doc.get("extra", {}).items() if k != "snapshots"})
        if snapshots:
            out["extra"]["snapshots"] = list(snapshots)
        return out

    rows = doc.get("rows", [])
    main = part(r for r in rows if r["table"] in ("ladder", "tune", "strong", "weak"))
    snapshots = list(doc.get("extra", {}).get("snapshots", []))
    siblings = {}
    for r in (r for r in rows if r["table"] == "run"):
        if snapshots:  # bench.sh makes the snapshot runs first, one row and one picture each
            snap = snapshots.pop(0)
            siblings["snapshot_" + snap["velocity"]] = part([r], [snap])
        else:
            siblings["slabs"] = part([r])
    for r in (r for r in rows if r["table"] == "nccl"):
        siblings["nccl_overlap" if r["overlap"] else "nccl_no_overlap"] = part([r])
    return main, siblings


def load_budget(root):
    """The course's one rule for a lesson's budget (scripts/lesson_budget.py, issue 39)."""
    spec = importlib.util.spec_from_file_location("lesson_budget", root / "scripts" / "lesson_budget.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_pages(root):
    """The lesson within budget, both pages with a table of contents, the notebook a subpage of the lesson."""
    lesson = (root / CHAPTER / "README.md").read_text()
    notebook_path = root / CHAPTER / "notebook.md"
    failures = []
    budget = load_budget(root)
    words, tables = budget.count(lesson)
    if words > budget.LIMITS["prose_words"]:
        failures.append(f"the lesson has {words} words of prose (budget {budget.LIMITS['prose_words']}): move the "
                        "rest to notebook.md")
    if tables > budget.LIMITS["table_lines"]:
        failures.append(f"the lesson has {tables} table lines (budget {budget.LIMITS['table_lines']}): move tables "
                        "to notebook.md")
    if not notebook_path.is_file():
        return failures + ["no notebook.md beside the lesson"]
    notebook = notebook_path.read_text()
    first = notebook.split("\n", 1)[0]
    if not re.fullmatch(r"# 07 · Lab notebook \{#ch07_notebook\}", first):
        failures.append(f"notebook.md's first line is {first!r}, not '# 07 · Lab notebook {{#ch07_notebook}}'")
    if not re.search(r"^[\\@]subpage ch07_notebook\b", lesson, re.M) and "@subpage ch07_notebook" not in lesson:
        failures.append("the lesson does not make the notebook its subpage (@subpage ch07_notebook)")
    for name, text in (("README.md", lesson), ("notebook.md", notebook)):
        if "[TOC]" not in text:
            failures.append(f"{name} has no in-page table of contents ([TOC])")
    return failures


PITCH = 16448  # a stored row of the 16384-wide mesh, padded, in floats (the rows the program records)


def temporal_copy_bytes(k):
    """One halo copy of a K-step rung per pass: 4·K padded rows of both fields it exchanges."""
    return 4 * k * PITCH * 4 * 2


def synthetic_sweep(name, rungs, counts, t1, copy_ms, nx=16384, ny=16384):
    """A results file of strong and weak sweeps over 1 … counts GPUs, with and without overlap, for each
    (variant, steps per pass) in `rungs`, whose times follow the halo model's own rule exactly: without
    overlap, the tallest slab at the one-GPU rate plus copy_ms per copy the busiest GPU sends, per pass of
    K steps. With overlap, the compute alone."""
    rows = []
    for variant, k in rungs:
        for table in ("strong", "weak"):
            for g in range(1, counts + 1):
                height = ny if table == "strong" else ny * g
                tallest = -(-height // g)
                compute = t1 * tallest / ny
                for overlap in (True, False):
                    ms = compute + (0 if overlap else min(2, g - 1) * copy_ms / k)
                    base = t1
                    row = {"table": table, "backend": "single", "variant": variant, "nx": nx, "ny": height,
                           "gpus": g, "slabs": g, "overlap": overlap, "ms_per_step": ms,
                           "gb_per_s": nx * height * 12.0 / (ms * 1e-3) / 1e9,
                           "efficiency": base / ((g if table == "strong" else 1) * ms),
                           "bitwise_equal": None if g == 1 else True}
                    if k > 1:
                        row["steps_per_pass"] = k
                        if g > 1:  # as the program records it: every copy, both fields, padded rows
                            row["halo_bytes_per_step"] = 2 * (g - 1) * temporal_copy_bytes(k) / k
                    rows.append(row)
    return {"chapter": CHAPTER, "device": {"name": name, "sm_count": 132}, "extra": {"bytes_per_cell": 12.0},
            "rows": rows}


def check_any_gpu_count(figures, committed):
    """A 4-GPU machine's sweep: the lesson shows it (most GPUs), one row per count 1 … 4, the halo bytes
    from the stencil's radius and K, and a model that reproduces times made by its own rule."""
    failures = []
    t1, copy_ms, ny = 0.8, 0.02, 16384
    rungs = (("wide_vec4_prefetch_r8_b128_m5", 1), ("temporal_3_b128_s8_r256", 3))
    fixture = synthetic_sweep("Synthetic four-GPU machine", rungs, 4, t1, copy_ms, ny=ny)
    results = dict(committed, fixture4=fixture)
    blocks = figures.tables(results)
    lesson = blocks["ch07_scaling_model"]
    if "results/fixture4" not in lesson or "wide_vec4_prefetch_r8_b128_m5" not in lesson:
        failures.append(f"the lesson's scaling block does not show the 4-GPU machine's one-step sweep:\n{lesson}")
    counts = [int(m) for m in re.findall(r"^\| (\d+) \|", lesson, re.M)]
    if counts != [1, 2, 3, 4]:
        failures.append(f"the lesson's scaling table has GPU counts {counts}, not 1 … 4")
    halo = figures._stencil_halo(figures._documents(results))
    if halo is None:
        return failures + ["no committed kernel listing gives the stencil's halo"]
    for variant, k in rungs:
        key = ("fixture4", "strong", variant)
        sets = figures._scaling_sets(figures._documents(results))
        model = figures._halo_model(figures._documents(results), sets[key], halo)
        for g in range(1, 5):
            expected = t1 * (-(-ny // g)) / ny + min(2, g - 1) * copy_ms / k
            got = model[g]["model_ms"]
            if got is None or abs(got - expected) > 1e-9:
                failures.append(f"{variant} on {g} GPUs: model {got} ms/step, expected {expected}")
            # Rows that record halo_bytes_per_step (the temporal rung here) give the copy's size; the one-step
            # rows here, like rows recorded before that field, are 4 rows of one field of nx floats.
            expected_bytes = temporal_copy_bytes(k) if k > 1 else halo * k * 16384 * 4
            if g > 1 and model[g]["copy_bytes"] != expected_bytes:
                failures.append(f"{variant}: {model[g]['copy_bytes']} bytes per copy, expected {expected_bytes}")
    notebook = blocks["ch07_scaling_models"]
    for variant, k in rungs:
        for table in ("strong", "weak"):
            if f"**{table} scaling, `{variant}`, Synthetic four-GPU machine (results/fixture4)**" not in notebook:
                failures.append(f"the notebook has no {table} model table of {variant} on the 4-GPU machine")
    if "2 × 1542 KiB per 3 steps" not in notebook:
        failures.append("the temporal rung's 4-GPU halo is not 2 copies of 4·3 padded rows of two fields "
                        "(1542 KiB) per 3 steps")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib missing: the 4-GPU scaling plot is not drawn here")
    else:
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        with tempfile.TemporaryDirectory() as out:
            drawn = figures._plot_scaling(plt, figures._documents(results), pathlib.Path(out))
            if drawn != ["ch07_scaling.png"] or not (pathlib.Path(out) / "ch07_scaling.png").is_file():
                failures.append("no scaling plot drawn for the 4-GPU machine")
    return failures


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    figures = load_figures(root)
    merged = {p.parent.name: json.loads(p.read_text()) for p in sorted((root / "results").glob(f"*/{CHAPTER}.json"))}
    if not merged:
        print("no committed results of", CHAPTER)
        return 1
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as split_dir:
        figures.RESULTS_DIR = pathlib.Path(empty)  # no siblings: every run in the one file
        expected = figures.tables(merged)
        expected_values = figures.values(merged)
        mains = {}
        for slug, doc in merged.items():
            mains[slug], siblings = split(doc)
            (pathlib.Path(split_dir) / slug).mkdir()
            for kind, part in siblings.items():
                (pathlib.Path(split_dir) / slug / f"{CHAPTER}.{kind}.json").write_text(json.dumps(part))
        figures.RESULTS_DIR = pathlib.Path(split_dir)
        got = figures.tables(mains)
        got_values = figures.values(mains)
    for name in expected:
        if got.get(name) != expected[name]:
            print(f"block {name} differs with one file per run:\n--- one file\n{expected[name]}\n--- per run\n{got.get(name)}")
            return 1
    for name in expected_values:
        if got_values.get(name) != expected_values[name]:
            print(f"value {name} differs with one file per run: {expected_values[name]!r} / {got_values.get(name)!r}")
            return 1
    missing = [name for name, text in expected_values.items() if text == "(no results)"]
    if not (root / CHAPTER / "instructor" / "answer_key.md").is_file():
        # A handout: it has neither the answer key nor the grader's runs (results/*/grading/) the key quotes.
        missing = [name for name in missing if name not in figures.KEY_VALUES]
    if missing:
        print(f"the committed results give no value for: {', '.join(missing)}")
        return 1
    figures.RESULTS_DIR = root / "results"
    failures = check_any_gpu_count(figures, merged) + check_pages(root)
    if failures:
        print("\n".join(failures))
        return 1
    print(f"{len(expected)} blocks and {len(expected_values)} values identical from {len(merged)} GPU(s), "
          "one file or one file per run; a 4-GPU sweep shown with its halo model; the lesson within its budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
