#!/usr/bin/env python3
"""Grading a class (course_lib/gradebook.py), the parts around grade_tree: which entries of a folder are
submissions, the student names, unpacking (a work tree, a bare repository, a .tar.gz; an archive that
writes outside its folder refused) and the CSV rows (an error row for a broken submission). Whole
gradebooks on the fixture course: test_grading.py.

    python3 scripts/tests/test_gradebook.py [-v]
"""
from __future__ import annotations

import csv
import io
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
from kit_fixture import git  # noqa: E402
from course_lib import grading, gradebook  # noqa: E402


def tar_with(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


class EntryTests(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="gradebook-test-"))
        self.addCleanup(__import__("shutil").rmtree, self.tmp, True)

    def test_entries_and_names(self):
        for folder in ("ada", ".hidden", "bob.git"):
            (self.tmp / folder).mkdir()
        for name in ("cy.tar.gz", "dee.tgz", "notes.txt"):
            (self.tmp / name).write_bytes(b"")
        entries = gradebook.submission_entries(self.tmp)
        self.assertEqual([e.name for e in entries], ["ada", "bob.git", "cy.tar.gz", "dee.tgz"])
        (self.tmp / "ada.tgz").write_bytes(b"")
        names = gradebook.unique_names(gradebook.submission_entries(self.tmp))
        self.assertEqual(names[self.tmp / "ada"], "ada")
        self.assertEqual(names[self.tmp / "ada.tgz"], "ada.tgz")  # "ada" is taken: the full name
        self.assertEqual(names[self.tmp / "bob.git"], "bob")

    def test_unpack_a_tar_with_one_top_folder(self):
        archive = tar_with(self.tmp / "s.tar.gz", {"work/CMakeLists.txt": b"x", "work/src/a.cpp": b"int a;"})
        tree = gradebook.unpack(archive, self.tmp / "out")
        self.assertEqual(tree.name, "work")
        self.assertEqual((tree / "src/a.cpp").read_text(), "int a;")

    def test_an_archive_escaping_its_folder_is_refused(self):
        archive = tar_with(self.tmp / "evil.tar.gz", {"../escaped.txt": b"x"})
        with self.assertRaises(ValueError) as caught:
            gradebook.unpack(archive, self.tmp / "out")
        self.assertIn("unsafe path", str(caught.exception))
        self.assertFalse((self.tmp / "escaped.txt").exists())

    def test_a_broken_archive_is_a_value_error(self):
        (self.tmp / "broken.tar.gz").write_bytes(b"not gzip")
        with self.assertRaises(ValueError):
            gradebook.unpack(self.tmp / "broken.tar.gz", self.tmp / "out")

    def committed(self, name: str, executable: tuple[str, ...] = ()) -> Path:
        """A git work tree `name` with one commit: a CMakeLists.txt, and a script for each name in `executable`."""
        work = self.tmp / name
        work.mkdir()
        (work / "CMakeLists.txt").write_text("project(x)\n")
        for script in executable:
            (work / script).write_text("#!/bin/sh\n")
            (work / script).chmod(0o755)
        git(work, "init", "-q", "-b", "main")
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", "x")
        return work

    def test_unpack_a_bare_repository_takes_its_head(self):
        work = self.committed("work")
        git(self.tmp, "clone", "-q", "--bare", str(work), str(self.tmp / "ada.git"))
        tree = gradebook.unpack(self.tmp / "ada.git", self.tmp / "out")
        self.assertEqual((tree / "CMakeLists.txt").read_text(), "project(x)\n")

    def test_a_bare_repositorys_own_filters_never_run(self):
        # Red team, issue 40: the repository's smudge filter (its config, its info/attributes) ran under
        # `git archive`, outside the sandbox, and printed the instructor's answer in place of the student's file.
        work = self.committed("work", executable=("run.sh",))
        bare = self.tmp / "eve.git"
        git(self.tmp, "clone", "-q", "--bare", str(work), str(bare))
        marker = self.tmp / "the-filter-ran"
        git(bare, "config", "filter.x.smudge", f"touch {marker}; echo forged")
        git(bare, "config", "core.fsmonitor", f"touch {marker}")
        (bare / "info").mkdir(exist_ok=True)
        (bare / "info" / "attributes").write_text("* filter=x\n")
        tree = gradebook.unpack(bare, self.tmp / "out")
        self.assertEqual((tree / "CMakeLists.txt").read_text(), "project(x)\n")
        self.assertTrue((tree / "run.sh").stat().st_mode & 0o100)
        self.assertFalse(marker.exists())

    def test_a_work_trees_git_configuration_never_runs(self):
        # Red team, issue 40: `git ls-files` on the submission ran its core.fsmonitor as the grader, outside the
        # sandbox; the hook copied the instructor's answer over the student's file (4/4 for the stub).
        work = self.committed("mallory")
        head = git(work, "rev-parse", "HEAD").strip()
        (work / "new.txt").write_text("untracked\n")
        marker = self.tmp / "the-hook-ran"
        git(work, "config", "core.fsmonitor", f"touch {marker}")
        self.assertEqual(grading.submission_listing(work), ["CMakeLists.txt", "new.txt"])
        self.assertEqual(grading.submission_commit(work), head)
        self.assertFalse(marker.exists())

    def test_csv_rows(self):
        course = type("Course", (), {"exercises": {"01.1": type("E", (), {"points": 4})(),
                                                   "01.2": type("E", (), {"points": 3})()}})()
        graded = {"points": 4, "max_points": 7, "timing": {"total_s": 12.34},
                  "exercises": [{"id": "01.1", "points": 4, "status": "pass", "reason": ""},
                                {"id": "01.2", "points": 0, "status": "needs_gpu", "reason": "needs a GPU"}]}
        path = self.tmp / "book.csv"
        gradebook.write_gradebook(path, [("ada", graded), ("bob", {"error": "cannot unpack"})], ["01.1", "01.2"],
                                  course)
        with path.open(newline="") as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0], ["student", "total", "max", "status", "reason", "wall_s",
                                   "01.1", "01.1 status", "01.2", "01.2 status"])
        self.assertEqual(rows[1], ["ada", "4", "7", "graded", "01.2: needs a GPU", "12.3", "4", "pass", "0",
                                   "needs_gpu"])
        self.assertEqual(rows[2], ["bob", "0", "7", "error", "cannot unpack", "", "0", "error", "0", "error"])


if __name__ == "__main__":
    unittest.main()
