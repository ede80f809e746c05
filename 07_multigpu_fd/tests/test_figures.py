"""The lesson's tables and the numbers its prose quotes are the same whether a GPU's runs sit in one
results file (results made before bench.sh wrote one file per run) or in one file per run, as bench.sh
writes them now.

    python3 test_figures.py <repository root>
"""
import importlib.util
import json
import pathlib
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
    print(f"{len(expected)} blocks and {len(expected_values)} values identical from {len(merged)} GPU(s), "
          "one file or one file per run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
