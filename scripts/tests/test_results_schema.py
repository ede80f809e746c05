#!/usr/bin/env python3
"""make_figures.py refuses malformed results files with one line naming the file and the field
(scripts/results_schema.py); the committed results load.

    python3 scripts/tests/test_results_schema.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import REPO  # noqa: E402


class ResultsSchemaTests(unittest.TestCase):
    """make_figures.py refuses malformed results files with one line naming the file and the field
    (issue 31, item 13): each was a traceback, or NaN printed as "nan×" in the lesson."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, str(REPO / "scripts"))
        import make_figures  # noqa: E402 (scripts/ on the path first)
        cls.make_figures = make_figures
        cls.good = json.loads((REPO / "results/h100/06_streams.json").read_text())

    def load_from(self, text: str) -> subprocess.CompletedProcess:
        """load_results of a results tree holding only `text` as results/h100/06_streams.json."""
        root = Path(tempfile.mkdtemp(prefix="course-results-"))
        self.addCleanup(shutil.rmtree, root, True)
        (root / "results/h100").mkdir(parents=True)
        (root / "results/h100/06_streams.json").write_text(text)
        code = ("import sys, pathlib; sys.path.insert(0, sys.argv[1]); import make_figures as m; "
                "m.ROOT = pathlib.Path(sys.argv[2]); print(len(m.load_results('06_streams')))")
        return subprocess.run([sys.executable, "-c", code, str(REPO / "scripts"), str(root)], capture_output=True,
                              text=True, timeout=120)

    def with_row(self, **fields) -> str:
        data = json.loads(json.dumps(self.good))
        data["rows"][3].update(fields)
        return json.dumps(data)

    def test_the_committed_results_load(self):
        import results_schema  # noqa: E402
        for path in sorted((REPO / "results").glob("*/*.json")):
            chapter = path.name[:-len(".json")]
            if chapter in results_schema.ROW_FIELDS:
                self.assertTrue(results_schema.load(path, chapter)["rows"], path)
        result = self.load_from(json.dumps(self.good))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "1")

    def test_malformed_files_are_refused_naming_file_and_field(self):
        text = json.dumps(self.good)
        del_threads = json.loads(text)
        del del_threads["rows"][0]["measured_ms"]
        cases = [
            ("", "empty file"),
            (text[: len(text) // 2], "not valid JSON"),
            ("[]", "not a results file"),
            ('{"schema": "x"}', "no 'chapter' field"),
            (self.with_row(speedup="fast"), "rows[3].speedup must be a finite number or null"),
            (self.with_row(measured_ms=float("nan")), "rows[3].measured_ms is not a finite number"),
            (self.with_row(model_ms=float("inf")), "rows[3].model_ms is not a finite number"),
            (json.dumps(del_threads), "rows[0] has no 'measured_ms' field"),
            (self.with_row(h2d_alone_ms="slow"), "one field, one type"),
            ("[" * 100000 + "]" * 100000, "too deeply"),
        ]
        for content, phrase in cases:
            result = self.load_from(content)
            self.assertEqual(result.returncode, 2, f"{phrase}: {result.stderr[-600:]}")
            self.assertIn("results/h100/06_streams.json", result.stderr, phrase)
            self.assertIn(phrase, result.stderr)
            self.assertNotIn("Traceback", result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
