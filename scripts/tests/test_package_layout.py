#!/usr/bin/env python3
"""The kit's shape (issue 29, item 2): scripts/course is a short entry point over the package
scripts/course_lib/; no module of the package over 500 lines, no function over 60; every module has its
own test file here (test_<module>.py) that imports it as `from course_lib import <module>`, but the
pure declarations listed below, which every other test exercises.

    python3 scripts/tests/test_package_layout.py [-v]
"""
from __future__ import annotations

import ast
import re
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "course_lib"
ENTRY = HERE.parent / "course"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_ENTRY_LINES = 60
# Modules without a test file of their own, and why.
NO_OWN_TEST = {
    "__init__": "the package marker",
    "errors": "two exception classes; every command's exit 2 / exit 1 is tested in test_cli.py",
    "options": "one dataclass of grade settings; built and read by test_grading.py and test_handout_check.py",
}
# Modules whose tests live in another module's file (the two were written together).
TEST_FILE = {"report_excerpt": "test_scoring.py"}


def modules() -> list[Path]:
    return sorted(PACKAGE.glob("*.py"))


def long_functions(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - first + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{path.name}:{node.lineno} {node.name} is {length} lines")
    return found


class LayoutTests(unittest.TestCase):
    def test_the_entry_point_is_short_and_imports_the_package(self):
        text = ENTRY.read_text(encoding="utf-8")
        self.assertLessEqual(len(text.splitlines()), MAX_ENTRY_LINES)
        self.assertIn("from course_lib.cli import main", text)

    def test_no_module_over_the_limit(self):
        over = [f"{p.name} has {n} lines" for p in modules()
                if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
        self.assertEqual(over, [], f"split these modules (at most {MAX_MODULE_LINES} lines)")

    def test_no_function_over_the_limit(self):
        over = [f for p in modules() for f in long_functions(p)]
        self.assertEqual(over, [], f"split these functions into named helpers (at most {MAX_FUNCTION_LINES} lines)")

    def test_every_module_has_its_own_test_file(self):
        missing = []
        for path in modules():
            name = path.stem
            if name in NO_OWN_TEST:
                continue
            test = HERE / TEST_FILE.get(name, f"test_{name}.py")
            text = test.read_text(encoding="utf-8") if test.is_file() else ""
            if not re.search(rf"^from course_lib(\.{name})? import .*\b{name}\b|^from course_lib\.{name} import",
                             text, re.M):
                missing.append(f"{test.name} (importing course_lib.{name})")
        self.assertEqual(missing, [], "add these test files")

    def test_the_function_limit_can_fail(self):
        with tempfile.TemporaryDirectory(prefix="layout-test-") as tmp:
            sample = Path(tmp) / "sample.py"
            body = "    x = 1\n"
            sample.write_text("def short():\n" + body * (MAX_FUNCTION_LINES - 1) +
                              "\n\n@staticmethod\ndef long():\n" + body * (MAX_FUNCTION_LINES - 1))
            self.assertEqual(long_functions(sample), [f"sample.py:{MAX_FUNCTION_LINES + 4} long is "
                                                      f"{MAX_FUNCTION_LINES + 1} lines"])

if __name__ == "__main__":
    unittest.main()
