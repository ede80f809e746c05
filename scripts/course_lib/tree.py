"""The course as the kit sees it: the tracked files of a tree, the instructor-only manifest, the
exercises and their metadata (exercise.json), checked against the authoring rules."""
from __future__ import annotations

import dataclasses
import fnmatch
import json
import re
import shutil
from pathlib import Path

from .errors import ToolError, UsageError
from .proc import run
from .regions import ID_RE, MarkerError, Region, comment_style, parse_regions, render


ROOT = Path(__file__).resolve().parent.parent.parent  # the instructor's tree: the one the kit lives in
KINDS = ("implement", "fix", "optimize")
SANITIZERS = ("memcheck", "racecheck", "synccheck", "initcheck")
METADATA_KEYS = ("id", "title", "kind", "points", "gpu", "difficulty", "minutes", "task", "hint",
                 "tests", "files", "sanitizer", "perf")
# Own work (own_work.py, issue 40): `forbid`, names a fix or implement exercise's code must not use (an
# optimize exercise lists them in perf.forbid); `techniques`, what the task text forbids ({"pattern": a
# regular expression matched on each of the student's own lines, "what": the technique in words}).
OPTIONAL_KEYS = ("forbid", "techniques")
# An optimize exercise's timing (verdicts.grade_time): its probe's timed repetitions per run, the untimed ones
# before `ready`, and the exercises whose code its reference runs.
PERF_KEYS = {"reps", "warmup"}
PERF_OPTIONAL_KEYS = {"requires", "forbid"}
PERF_LIMITS = {"reps": (1, 100000), "warmup": (0, 1000)}
CHAPTER_RE = re.compile(r"^(\d\d)_[A-Za-z0-9_]+$")
MANIFEST = "scripts/course_lib/instructor_only.txt"
# Written into every handout: which exercises it sets. A tree with it is a handout (its regions are
# gone by design) and grades against its first commit, the handout as given.
HANDOUT_STAMP = "scripts/course_lib/handout.json"


def tracked_files(root: Path) -> list[str]:
    if not (root / ".git").exists():
        raise ToolError(f"{root} is not a git work tree: the handout is made from the tracked files")
    out = run(["git", "-C", str(root), "ls-files", "-z", "--cached"], check=True).stdout
    return sorted(p for p in out.split("\0") if p and (root / p).is_file())


def load_manifest(root: Path) -> list[str]:
    path = root / MANIFEST
    if not path.exists():
        return []
    patterns = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            patterns.append(line)
    return patterns


def instructor_only(path: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if pattern.endswith("/"):
            folder = pattern.rstrip("/")
            parts = path.split("/")
            for i in range(1, len(parts)):
                if fnmatch.fnmatchcase("/".join(parts[:i]), folder):
                    return True
        elif fnmatch.fnmatchcase(path, pattern):
            return True
    return False


@dataclasses.dataclass
class Exercise:
    """One validated entry of a chapter's exercises.json."""
    id: str
    chapter: str
    meta: dict

    title = property(lambda self: self.meta["title"])
    kind = property(lambda self: self.meta["kind"])
    points = property(lambda self: self.meta["points"])
    gpu = property(lambda self: self.meta["gpu"])
    tests = property(lambda self: self.meta["tests"])
    perf = property(lambda self: self.meta["perf"])

    @property
    def files(self) -> list[str]:
        """The files the student edits, relative to the tree's root."""
        return [f"{self.chapter}/{f}" for f in self.meta["files"]]


class Course:
    """The instructor's tree as the kit sees it: tracked files, exercises, regions."""

    def __init__(self, root: Path):
        self.root = root
        self.files = tracked_files(root)
        self.patterns = load_manifest(root)
        self.is_handout = (root / HANDOUT_STAMP).is_file()
        self.handout_files = [f for f in self.files if not instructor_only(f, self.patterns)]
        self.exercises: dict[str, Exercise] = {}
        self.declared: set[str] = set()  # every id some exercises.json names, valid entry or not
        self.regions: dict[str, list[Region]] = {}
        self._text: dict[str, str] = {}
        errors: list[str] = []
        self._load_metadata(errors)
        self._load_regions(errors)
        if errors:
            raise UsageError("\n".join(errors))

    def text(self, path: str) -> str | None:
        if path not in self._text:
            try:
                self._text[path] = (self.root / path).read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                self._text[path] = None
        return self._text[path]

    def _load_metadata(self, errors: list[str]) -> None:
        for path in self.files:
            parts = path.split("/")
            if len(parts) != 2 or parts[1] != "exercises.json" or not CHAPTER_RE.match(parts[0]):
                continue
            chapter = parts[0]
            try:
                entries = json.loads((self.root / path).read_text())
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                errors.append(f"{path}: not valid JSON: {error}")
                continue
            except RecursionError:
                errors.append(f"{path}: nested too deeply to be an exercise list")
                continue
            if not isinstance(entries, list):
                errors.append(f"{path}: must be a JSON list of exercises")
                continue
            for index, entry in enumerate(entries):
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    self.declared.add(entry["id"])
                where = f"{path}: entry {index + 1}"
                problems = validate_entry(entry, chapter, self.root)
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    where = f"{path}: exercise {entry['id']}"
                errors.extend(f"{where}: {p}" for p in problems)
                if problems:
                    continue
                if entry["id"] in self.exercises:
                    errors.append(f"{where}: id {entry['id']} declared twice")
                    continue
                self.exercises[entry["id"]] = Exercise(entry["id"], chapter, entry)
        self.exercises = dict(sorted(self.exercises.items(), key=lambda kv: exercise_sort_key(kv[0])))
        for exercise in self.exercises.values():
            for required in (exercise.perf or {}).get("requires", []):
                if required not in self.exercises:
                    errors.append(f"{exercise.chapter}/exercises.json: exercise {exercise.id}: perf.requires "
                                  f"names {required}, which is not an exercise")

    def _load_regions(self, errors: list[str]) -> None:
        for path in self.handout_files:
            if comment_style(path) is None:
                continue
            text = self.text(path)
            if text is None:
                continue
            try:
                regions = parse_regions(path, text)
            except MarkerError as error:
                errors.append(str(error))
                continue
            if regions:
                self.regions[path] = regions
        owned: dict[str, set[str]] = {}
        for path, regions in self.regions.items():
            for region in regions:
                if region.exercise not in self.declared:
                    errors.append(f"{path}:{region.begin}: region of exercise {region.exercise}, which no "
                                  f"exercises.json declares")
                owned.setdefault(region.exercise, set()).add(path)
        for exercise in self.exercises.values():
            paths = owned.get(exercise.id, set())
            if self.is_handout:
                continue
            if not paths:
                errors.append(f"{exercise.chapter}/exercises.json: exercise {exercise.id} has no "
                              f"BEGIN/END SOLUTION {exercise.id} region in any source")
            for path in sorted(paths - set(exercise.files)):
                prefix = exercise.chapter + "/"
                listed = path[len(prefix):] if path.startswith(prefix) else path
                errors.append(f"{exercise.chapter}/exercises.json: exercise {exercise.id}: \"files\" must list "
                              f"{listed} (it holds a region of {exercise.id})")

    def select(self, exercises: str | None, chapters: str | None) -> list[str]:
        """The ids named by --exercises (ids or 'all') or --chapters (NN,...); all when neither."""
        valid = list(self.exercises)
        if exercises and chapters:
            raise UsageError("give --exercises or --chapters, not both")
        if chapters:
            wanted = [c.strip() for c in chapters.split(",") if c.strip()]
            known = sorted({e.chapter[:2] for e in self.exercises.values()})
            for c in wanted:
                if c not in known:
                    raise UsageError(f"no exercises in chapter '{c}' (chapters with exercises: "
                                     f"{', '.join(known) or 'none'})")
            return [i for i in valid if i[:2] in wanted]
        if not exercises or exercises.strip() == "all":
            return valid
        ids = [i.strip() for i in exercises.split(",") if i.strip()]
        if not ids:
            raise UsageError("--exercises: give ids such as 03.1,06.2 or 'all'")
        for i in ids:
            if i not in self.exercises:
                raise UsageError(f"unknown exercise '{i}' (valid: {', '.join(valid) or 'none declared yet'})")
        return [i for i in valid if i in ids]

    def handout_text(self, path: str, stubbed: set[str]) -> str | None:
        """A tracked file's text as a handout stubbing `stubbed` holds it (None for binary files)."""
        text = self.text(path)
        if text is None:
            return None
        if path in self.regions:
            text = render(text, self.regions[path], stubbed)
        parts = path.split("/")
        if len(parts) == 2 and parts[1] == "exercises.json" and CHAPTER_RE.match(parts[0]):
            entries = json.loads(text)
            kept = [e for e in entries if e["id"] in stubbed]
            if len(kept) != len(entries):
                text = json.dumps(kept, indent=2, ensure_ascii=False) + "\n"
        return text


    def as_handed_out(self, path: str, stubbed: set[str]) -> str | None:
        """The file as the students received it: rendered from the regions in an instructor's tree; in
        a handout (grading its own pushes), the file of its first commit."""
        if not self.is_handout:
            return self.handout_text(path, stubbed)
        root = run(["git", "-C", str(self.root), "rev-list", "--max-parents=0", "HEAD"]).stdout.split()
        if not root:
            return None
        shown = run(["git", "-C", str(self.root), "show", f"{root[-1]}:{path}"])
        return shown.stdout if shown.returncode == 0 else None


def exercise_sort_key(exercise: str) -> tuple[int, int]:
    chapter, number = exercise.split(".")
    return int(chapter), int(number)


def validate_entry(entry, chapter: str, root: Path) -> list[str]:
    """The problems of one exercises.json entry of chapter folder `chapter`, each in one line."""
    if not isinstance(entry, dict):
        return ["must be a JSON object"]
    problems = []
    missing = [k for k in METADATA_KEYS if k not in entry]
    unknown = [k for k in entry if k not in METADATA_KEYS + OPTIONAL_KEYS]
    if missing:
        problems.append(f"missing keys: {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown keys: {', '.join(unknown)} (allowed: {', '.join(METADATA_KEYS + OPTIONAL_KEYS)})")
    if missing:
        return problems
    match = ID_RE.match(entry["id"]) if isinstance(entry["id"], str) else None
    if not match:
        problems.append(f"id {entry['id']!r} is not NN.k (e.g. 03.1)")
    elif match.group(1) != chapter[:2]:
        problems.append(f"id {entry['id']} does not belong to chapter folder {chapter}")
    problems += field_problems(entry, chapter, root)
    problems += sanitizer_problems(entry, match is not None)
    problems += perf_problems(entry)
    problems += own_work_problems(entry)
    return problems


def own_work_problems(entry: dict) -> list[str]:
    """The optional own-work fields: `forbid` (fix and implement exercises) and `techniques` (any kind)."""
    problems = []
    if "forbid" in entry:
        value = entry["forbid"]
        if entry["kind"] == "optimize":
            problems.append("forbid: an optimize exercise lists the names it refuses in perf.forbid")
        elif (not isinstance(value, list) or not value
              or not all(isinstance(i, str) and re.fullmatch(r"[A-Za-z_]\w*\*?", i) for i in value)):
            problems.append("forbid must be a non-empty list of identifiers (a trailing * for a prefix)")
    if "techniques" in entry:
        value = entry["techniques"]
        if not isinstance(value, list) or not value:
            return problems + ["techniques must be a non-empty list of {\"pattern\", \"what\"} objects"]
        for technique in value:
            if (not isinstance(technique, dict) or set(technique) != {"pattern", "what"}
                    or not all(isinstance(technique[k], str) and technique[k].strip() for k in technique)):
                problems.append("techniques: each must be {\"pattern\": regular expression, \"what\": words}")
                continue
            try:
                re.compile(technique["pattern"])
            except re.error as error:
                problems.append(f"techniques: pattern {technique['pattern']!r} is not a regular expression: {error}")
    return problems


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def field_problems(entry: dict, chapter: str, root: Path) -> list[str]:
    """The plain fields: texts, kind, numbers, tests and the exercise's files (which must exist)."""
    problems = []
    for key in ("title", "task", "hint"):
        if not isinstance(entry[key], str) or not entry[key].strip():
            problems.append(f"{key} must be a non-empty string")
    if entry["kind"] not in KINDS:
        problems.append(f"kind must be one of {', '.join(KINDS)}")
    if not _is_int(entry["points"]) or entry["points"] < 1:
        problems.append("points must be a positive integer")
    if not isinstance(entry["gpu"], bool):
        problems.append("gpu must be true or false")
    if not _is_int(entry["difficulty"]) or not 1 <= entry["difficulty"] <= 5:
        problems.append("difficulty must be an integer 1-5")
    if not _is_int(entry["minutes"]) or entry["minutes"] < 1:
        problems.append("minutes must be a positive integer")
    if (not isinstance(entry["tests"], list) or not entry["tests"]
            or not all(isinstance(t, str) and t for t in entry["tests"])):
        problems.append("tests must be a non-empty list of ctest names")
    if (not isinstance(entry["files"], list) or not entry["files"]
            or not all(isinstance(f, str) and f for f in entry["files"])):
        problems.append("files must be a non-empty list of paths relative to the chapter folder")
    else:
        for f in entry["files"]:
            if not (root / chapter / f).is_file():
                problems.append(f"files: {chapter}/{f} does not exist")
    return problems


def sanitizer_problems(entry: dict, id_ok: bool) -> list[str]:
    sanitizer = entry["sanitizer"]
    if sanitizer is None:
        return []
    if sanitizer not in SANITIZERS:
        return [f"sanitizer must be null or one of {', '.join(SANITIZERS)}"]
    if entry["gpu"] is not True:
        return ["a sanitizer exercise needs a GPU: set gpu to true"]
    if id_ok and isinstance(entry["tests"], list) and f"exercise.{entry['id']}.{sanitizer}" not in entry["tests"]:
        return [f"tests must include exercise.{entry['id']}.{sanitizer} (the {sanitizer} run)"]
    return []


def perf_problems(entry: dict) -> list[str]:
    """The perf object: required of an optimize exercise and only of one, with its keys well formed."""
    perf = entry["perf"]
    if entry["kind"] == "optimize" and perf is None:
        return ["an optimize exercise needs perf {reps, warmup}"]
    if perf is None:
        return []
    problems = []
    if entry["kind"] != "optimize":
        problems.append("perf is only for kind optimize")
    if not isinstance(perf, dict):
        return problems + ["perf must be null or an object"]
    missing = PERF_KEYS - perf.keys()
    unknown = perf.keys() - PERF_KEYS - PERF_OPTIONAL_KEYS
    if missing:
        problems.append(f"perf is missing {', '.join(sorted(missing))}")
    if unknown:
        problems.append(f"perf has unknown keys {', '.join(sorted(unknown))}")
    for key in (PERF_KEYS | PERF_OPTIONAL_KEYS) & perf.keys():
        value = perf[key]
        if key == "requires":
            # Exercises whose code the reference runs: until they pass, the reference is not the
            # instructor's, so this exercise is not timed against it.
            if (not isinstance(value, list) or not value
                    or not all(isinstance(i, str) and ID_RE.match(i) for i in value)):
                problems.append("perf.requires must be a non-empty list of exercise ids (NN.k)")
            elif entry.get("id") in value:
                problems.append("perf.requires must not name the exercise itself")
            continue
        if key == "forbid":
            # Names the exercise's code must not use (own_work.py): identifiers, a trailing * for a prefix.
            if (not isinstance(value, list) or not value
                    or not all(isinstance(i, str) and re.fullmatch(r"[A-Za-z_]\w*\*?", i) for i in value)):
                problems.append("perf.forbid must be a non-empty list of identifiers (a trailing * for a prefix)")
            continue
        low, high = PERF_LIMITS[key]
        if not _is_int(value) or not low <= value <= high:
            problems.append(f"perf.{key} must be an integer in {low}..{high}")
    return problems


def load_course() -> Course:
    if not shutil.which("git"):
        raise ToolError("git not found: install it (the handout is made from the tracked files)")
    return Course(ROOT)
