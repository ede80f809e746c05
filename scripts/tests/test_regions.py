#!/usr/bin/env python3
"""Solution regions (course_lib/regions.py): parsing the markers of both comment styles, every
malformed form refused with file:line, and rendering the stub or the solution.

    python3 scripts/tests/test_regions.py [-v] [TestClass.test_name]
"""
from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from course_lib import regions  # noqa: E402


class MarkerTests(unittest.TestCase):
    GOOD = "\n".join([
        "int before;",
        "// BEGIN SOLUTION 03.1",
        "#ifndef COURSE_STUB_03_1",
        "#if defined(FAST)",
        "int solution_a;",
        "#else",
        "int solution_b;",
        "#endif",
        "#else",
        "int stub;  // TODO",
        "#endif",
        "// END SOLUTION 03.1",
        "int after;",
    ])

    def parse(self, text: str, path: str = "03_x/src/k.cu"):
        return regions.parse_regions(path, text)

    def assert_marker_error(self, text: str, line: int, phrase: str, path: str = "03_x/src/k.cu"):
        with self.assertRaises(regions.MarkerError) as caught:
            self.parse(text, path)
        self.assertIn(f"{path}:{line}:", str(caught.exception))
        self.assertIn(phrase, str(caught.exception))

    def test_a_region_with_nested_conditionals_parses(self):
        (region,) = self.parse(self.GOOD)
        self.assertEqual((region.exercise, region.begin, region.end), ("03.1", 2, 12))
        self.assertEqual(region.solution, ["#if defined(FAST)", "int solution_a;", "#else", "int solution_b;", "#endif"])
        self.assertEqual(region.stub, ["int stub;  // TODO"])

    def test_render_writes_the_stub_or_the_solution_without_markers(self):
        parsed = self.parse(self.GOOD)
        self.assertEqual(regions.render(self.GOOD, parsed, {"03.1"}), "int before;\nint stub;  // TODO\nint after;")
        solution = regions.render(self.GOOD, parsed, set())
        self.assertNotIn("SOLUTION", solution)
        self.assertNotIn("COURSE_STUB", solution)
        self.assertIn("int solution_a;", solution)

    def lines(self):
        return self.GOOD.split("\n")

    def variant(self, index: int, replacement: list[str]) -> str:
        lines = self.lines()
        lines[index:index + 1] = replacement
        return "\n".join(lines)

    def test_begin_never_closed(self):
        self.assert_marker_error("\n".join(self.lines()[:11]), 2, "never closed")

    def test_end_without_begin(self):
        self.assert_marker_error("x\n// END SOLUTION 03.1\n", 2, "without a BEGIN")

    def test_nested_region(self):
        self.assert_marker_error(self.variant(4, ["// BEGIN SOLUTION 03.2"]), 5, "nested BEGIN SOLUTION 03.2")

    def test_duplicate_begin(self):
        self.assert_marker_error(self.variant(4, ["// BEGIN SOLUTION 03.1"]), 5, "duplicate BEGIN SOLUTION 03.1")

    def test_missing_else(self):
        text = "\n".join(["// BEGIN SOLUTION 03.1", "#ifndef COURSE_STUB_03_1", "int s;", "#endif",
                          "// END SOLUTION 03.1"])
        self.assert_marker_error(text, 4, "missing #else")

    def test_duplicate_else(self):
        self.assert_marker_error(self.variant(9, ["int stub;", "#else"]), 11, "duplicate #else")

    def test_missing_or_wrong_guard(self):
        self.assert_marker_error(self.variant(2, ["#ifndef COURSE_STUB_03_2"]), 3, "#ifndef COURSE_STUB_03_1")
        self.assert_marker_error(self.variant(2, ["#if 1"]), 3, "#ifndef COURSE_STUB_03_1")

    def test_end_of_another_region(self):
        self.assert_marker_error(self.variant(11, ["// END SOLUTION 03.2"]), 12, "END SOLUTION 03.2")

    def test_end_before_endif(self):
        self.assert_marker_error(self.variant(10, []), 11, "without #endif")

    def test_bad_id(self):
        self.assert_marker_error("// BEGIN SOLUTION 3.1\n", 1, "not an exercise id")

    def test_stub_macro_outside_a_region(self):
        self.assert_marker_error("#ifdef COURSE_STUB_03_1\n#endif\n", 1, "outside a BEGIN/END")

    def test_elif(self):
        self.assert_marker_error(self.variant(8, ["#elif X"]), 9, "#elif")

    def test_hash_form_uncomments_the_stub_lines(self):
        text = "a = 1\n    # BEGIN SOLUTION 03.1\n    b = solve()\n    # STUB: b = None  # TODO\n" \
               "    # STUB:\n    # END SOLUTION 03.1\nc = 3\n"
        (region,) = self.parse(text, "03_x/tool.py")
        self.assertEqual(regions.render(text, [region], {"03.1"}), "a = 1\n    b = None  # TODO\n    \nc = 3\n")
        self.assertEqual(regions.render(text, [region], set()), "a = 1\n    b = solve()\nc = 3\n")

    def test_hash_form_errors(self):
        self.assert_marker_error("# BEGIN SOLUTION 03.1\nx = 1\n# END SOLUTION 03.1\n", 3, "missing '# STUB:'",
                                 "CMakeLists.txt")
        self.assert_marker_error("# BEGIN SOLUTION 03.1\n# STUB: x\ny\n# END SOLUTION 03.1\n", 3,
                                 "after the '# STUB:' lines", "a.py")
        self.assert_marker_error("# STUB: x\n", 1, "outside", "a.cmake")
        self.assert_marker_error("# BEGIN SOLUTION 03.1\n# STUB: x\n", 1, "never closed", "a.py")

    def test_other_files_are_not_parsed(self):
        self.assertEqual(self.parse("// BEGIN SOLUTION nonsense\n", "README.md"), [])


if __name__ == "__main__":
    unittest.main()
