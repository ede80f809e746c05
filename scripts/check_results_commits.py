#!/usr/bin/env python3
"""Every committed results file (results/<gpu>/*.json) names, in its "commit" field, a commit that is in the
history of the checked-out branch (HEAD; main on the course repository): the code that produced the
numbers can be checked out and read. A run on a tree that was never committed, or on a copy whose commits
were rewritten, names a commit nobody can find; such results are measured again, never edited.

A results file may carry a "note" (a sentence for the reader, e.g. that it predates a rework of its chapter
and is kept for reference only); a note does not excuse a commit that is not in the history.

Exit 0 when every file passes, 1 with one line per file that does not, 77 (skipped) where there is no
history to check against: not a git work tree, a shallow clone, or a student handout (which has no
history of the course).

    python3 scripts/check_results_commits.py
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = 77


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def skip_reason() -> str | None:
    if not (ROOT / "docs" / "instructors.md").is_file():
        return "a handout (no docs/instructors.md): it has no history of the course"
    top = git("rev-parse", "--show-toplevel")
    if top.returncode != 0:
        return "not a git work tree"
    if Path(top.stdout.strip()).resolve() != ROOT:
        return f"the git work tree is {top.stdout.strip()}, not this repository"
    if git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        return "a shallow clone (fetch the whole history: actions/checkout with fetch-depth: 0)"
    return None


def problem(path: Path) -> str | None:
    rel = path.relative_to(ROOT)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        return f"{rel}: not readable JSON ({e})"
    commit = data.get("commit") if isinstance(data, dict) else None
    if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{7,40}", commit):
        return f"{rel}: names no commit (\"commit\": {json.dumps(commit)})"
    if git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        return (f"{rel}: commit {commit} is not in this repository (measured on an uncommitted or rewritten tree: "
                "run bench.sh again on a committed tree)")
    if git("merge-base", "--is-ancestor", commit, "HEAD").returncode != 0:
        return f"{rel}: commit {commit} is not in the history of HEAD (measured on another branch?)"
    return None


def main() -> int:
    reason = skip_reason()
    if reason:
        print(f"check_results_commits: skipped: {reason}")
        return SKIP
    files = sorted((ROOT / "results").glob("*/*.json"))
    problems = [p for p in map(problem, files) if p]
    for line in problems:
        print(line)
    print(f"check_results_commits: {len(files)} results files, {len(problems)} not from a commit in the history",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
