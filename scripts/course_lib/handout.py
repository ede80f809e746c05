"""Making a student handout: write the stubbed tree, commit it as one commit, and look for solution lines
that leaked into it or markers left behind."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .errors import UsageError
from .proc import git_head, run
from .regions import comment_style, is_kit_file
from .tree import Course, HANDOUT_STAMP


LEAK_MIN_CHARS = 20  # a solution line this long or longer, found in the handout, is a leak


def write_handout(course: Course, out: Path, stubbed: list[str], git_commit: bool = True) -> list[str]:
    """Writes the handout into the empty folder `out`; returns the files written."""
    written = []
    selected = set(stubbed)
    for path in course.handout_files:
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        text = course.handout_text(path, selected)
        if text is None:
            shutil.copyfile(course.root / path, target)
        else:
            target.write_text(text, encoding="utf-8")
        shutil.copymode(course.root / path, target)
        written.append(path)
    stamp = out / HANDOUT_STAMP
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"exercises": stubbed, "instructor_commit": git_head(course.root)}, indent=2) + "\n")
    written.append(HANDOUT_STAMP)
    if git_commit:
        commit_handout(course, out, stubbed)
    return written


def commit_handout(course: Course, out: Path, stubbed: list[str]) -> None:
    head = run(["git", "-C", str(course.root), "log", "-1", "--format=%h%n%cI"]).stdout.split("\n")
    source, date = (head[0], head[1]) if len(head) >= 2 and head[0] else ("unknown", "2000-01-01T00:00:00Z")
    # A fixed author and date: the same sources give the same commit, so rebuilds of a handout hit
    # the compiler cache (the commit is compiled into the programs).
    env = dict(os.environ, GIT_AUTHOR_NAME="course handout", GIT_AUTHOR_EMAIL="handout@course.invalid",
               GIT_COMMITTER_NAME="course handout", GIT_COMMITTER_EMAIL="handout@course.invalid",
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    what = ", ".join(stubbed) if stubbed else "none"
    run(["git", "init", "-q", "-b", "main", str(out)], env=env, check=True)
    run(["git", "-C", str(out), "add", "-A"], env=env, check=True)
    run(["git", "-C", str(out), "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m",
         f"Course handout (exercises: {what}; instructor tree {source})"], env=env, check=True)


def is_made_handout(folder: Path) -> bool:
    """Whether `folder` holds the stamp write_handout leaves: a regular file (no symlink on its way)
    holding a JSON object with the handout's keys. Nothing else is ever emptied by --force."""
    stamp = folder
    for part in Path(HANDOUT_STAMP).parts:
        stamp = stamp / part
        if stamp.is_symlink():
            return False
    if not stamp.is_file():
        return False
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("exercises"), list) and "instructor_commit" in data


def prepare_out(out: Path, force: bool, root: Path) -> None:
    given = out
    if given.is_symlink():
        raise UsageError(f"--out {given}: is a symlink; give the folder itself (--out never follows a link)")
    out = out.resolve()
    if out == root or root in out.parents or out in root.parents:
        raise UsageError(f"--out {out}: must be outside the instructor's tree {root}")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise UsageError(f"--out {out}: folder is not empty (add --force to replace its contents)")
        if out == Path.home() or len(out.parts) <= 2:
            raise UsageError(f"--out {out}: refusing to empty this folder")
        if not is_made_handout(out):
            raise UsageError(f"--out {out}: not a handout this tool made (no {HANDOUT_STAMP}); --force replaces "
                             "only such a folder: empty or remove it yourself")
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    out.mkdir(parents=True, exist_ok=True)


def normalize(line: str) -> str:
    return " ".join(line.split())


def public_code_lines(course: Course) -> set[str]:
    """Normalized lines of the sources a handout holds in any case: every source file outside its
    solution regions. Lesson pages and metadata are not counted, so that quoting an answer there is
    still a leak."""
    public: set[str] = set()
    for path in course.handout_files:
        if comment_style(path) is None and not is_kit_file(path):
            continue
        text = course.text(path)
        if text is None:
            continue
        lines = text.split("\n")
        inside = set()
        for region in course.regions.get(path, []):
            inside.update(range(region.begin - 1, region.end))
        public.update(normalize(l) for i, l in enumerate(lines) if i not in inside)
    return public


def secret_lines(course: Course, stubbed: set[str]) -> dict[str, tuple[str, int]]:
    """Normalized solution lines of >= LEAK_MIN_CHARS characters that the handout does not show anyway
    (in the stub, or in its code outside the regions: a loop header every kernel has is no secret),
    each with where it comes from."""
    secrets_: dict[str, tuple[str, int]] = {}
    code = public_code_lines(course)
    for path, regions in course.regions.items():
        for region in regions:
            if region.exercise not in stubbed:
                continue
            public = code | {normalize(l) for l in region.stub}
            for offset, line in enumerate(region.solution):
                n = normalize(line)
                if len(n) >= LEAK_MIN_CHARS and n not in public:
                    secrets_.setdefault(n, (path, region.begin + 2 + offset))
    return secrets_


def find_leaks(folder: Path, secrets_: dict[str, tuple[str, int]]) -> list[str]:
    """Every place in `folder` (all files, the git history included) where a secret line appears."""
    problems = []
    if not secrets_:
        return problems
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        flat = normalize(text)
        for secret, (origin, line) in secrets_.items():
            if secret in flat:
                rel = path.relative_to(folder)
                at = next((i for i, l in enumerate(text.splitlines(), 1) if secret in normalize(l)), None)
                where = f"{rel}:{at}" if at else str(rel)
                problems.append(f"solution line leaks into the handout at {where}: '{secret[:80]}' "
                                f"(from {origin}:{line})")
    git = folder / ".git"
    if git.exists():
        count = run(["git", "-C", str(folder), "rev-list", "--count", "--all"]).stdout.strip()
        if count != "1":
            problems.append(f"the handout's git history has {count} commits, not 1")
        log = normalize(run(["git", "-C", str(folder), "log", "--all", "--format=%B"]).stdout)
        for secret, (origin, line) in secrets_.items():
            if secret in log:
                problems.append(f"solution line in the handout's commit message (from {origin}:{line})")
    return problems


def marker_remnants(folder: Path, files: list[str]) -> list[str]:
    problems = []
    for path in files:
        if comment_style(path) is None:
            continue
        try:
            text = (folder / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if "BEGIN SOLUTION" in line or "END SOLUTION" in line or "COURSE_STUB_" in line:
                problems.append(f"{path}:{number}: marker left in the handout: {line.strip()[:80]}")
                break
    return problems
