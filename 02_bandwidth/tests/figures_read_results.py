"""figures_read_results.py RESULTS_JSON: the lesson's tables render from a results file the program's
tables code wrote (tests/test_tables.cpp writes one from made-up measurements), as they do from the
committed ones. Exit 1, naming the block, when one does not."""
import importlib.util
import json
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
    "d2d_duel": "Fastest SM copy",
    "p2p": "| 1 → 0 | enabled |",
    "plots": "ch02_bandwidth_sweep_made_up.png",
}
failed = [name for name, text in expected.items() if text not in blocks.get(name, "")]
for name in failed:
    print(f"block {name}: expected '{expected[name]}' in:\n{blocks.get(name)}", file=sys.stderr)
sys.exit(1 if failed else 0)
