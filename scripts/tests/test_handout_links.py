#!/usr/bin/env python3
"""Tests of scripts/course_lib/handout_links.py (issue 30): the handout's README linked
docs/instructors.md, a page the handout leaves out.

    python3 scripts/tests/test_handout_links.py [-v]
"""
from __future__ import annotations

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from course_lib import handout_links  # noqa: E402


class DeadLinkTests(unittest.TestCase):
    def test_a_link_to_a_left_out_page_is_reported_with_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "docs").mkdir()
            (folder / "docs" / "running.md").write_text("[back](../README.md#top) [site](https://x.org/a.md)\n")
            (folder / "README.md").write_text(
                "Students: [running](docs/running.md);\ninstructors: [guide](docs/instructors.md).\n"
                "[anchor](#exercises) [folder](docs/) [titled](docs/running.md \"how to run\")\n")
            files = ["README.md", "docs/running.md"]
            self.assertEqual(handout_links.dead_links(folder, files),
                             ["README.md:2: links docs/instructors.md, which is not in the handout"])
            (folder / "README.md").write_text("instructors: `docs/instructors.md` in the course's repository\n")
            self.assertEqual(handout_links.dead_links(folder, files), [])


if __name__ == "__main__":
    unittest.main()
