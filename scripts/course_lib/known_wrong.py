"""Known-wrong solutions (NN_*/instructor/wrong/): parsed, rendered into a copy of the tree and graded, so
that `check-wrong` proves the tests reject each one with the verdict it names."""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

from .build import one_line
from .errors import ToolError, UsageError
from .grading import grade_tree
from .handout import write_handout
from .options import GradeOptions
from .proc import run
from .regions import (
    BEGIN_C, BEGIN_HASH, END_C, END_HASH, MarkerError, PP_ELIF, PP_ELSE, PP_ENDIF, PP_IF, Region, STUB_HASH,
    comment_style, parse_regions, render,
)
from .tree import CHAPTER_RE, Course, Exercise


WRONG_NAME = re.compile(r"^(?P<id>\d\d\.[1-9]\d*)-(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)\.(?P<ext>[A-Za-z0-9]+)$")
WRONG_HEADER = re.compile(r"^\s*(?P<comment>//|#)\s*WRONG:\s*(?P<rest>.*?)\s*$")
WRONG_FIELDS = re.compile(r"^(?P<id>\S+)(?:\s+region:\s*(?P<region>\S+))?\s+expect:\s*(?P<expect>.*?)\s+"
                          r"because:\s*(?P<because>.*)$")
WRONG_FORM = "WRONG: <id> [region: <n>] expect: <phrase> because: <what is wrong>"
CHECK_WRONG_SCHEMA = "cuda-lessons/check-wrong/v1"
VERDICTS = ("OK", "WRONG-ACCEPTED", "MIS-REASONED", "NOT-CHECKED", "ERROR")


@dataclasses.dataclass
class KnownWrong:
    """One file NN_topic/instructor/wrong/<id>-<slug>.<ext>: a student's answer the grader must reject."""
    path: str
    exercise: str
    region_number: int           # 1-based, in the order of the exercise's files, then of the lines
    region: Region
    expect: str                  # a phrase the grade reason must contain (case-insensitive)
    because: str
    body: list[str]              # the lines that replace the region's stub branch
    handout: dict[str, str]      # the exercise's files as a student answering with `body` holds them


def is_known_wrong(path: str) -> bool:
    parts = path.split("/")
    return (len(parts) >= 4 and CHAPTER_RE.match(parts[0]) is not None and parts[1] == "instructor"
            and parts[2] == "wrong" and not parts[-1].upper().startswith("README"))


def exercise_regions(course: Course, exercise: Exercise) -> list[Region]:
    """The exercise's regions, numbered as known-wrong files number them: by `files`, then by line."""
    return [r for f in exercise.files for r in course.regions.get(f, []) if r.exercise == exercise.id]


def load_known_wrong(course: Course) -> list[KnownWrong]:
    """Every tracked known-wrong file, checked; UsageError with one file:line per problem."""
    found, errors = [], []
    for path in course.files:
        if not is_known_wrong(path):
            continue
        try:
            found.append(parse_known_wrong(course, path))
        except MarkerError as error:
            errors.append(str(error))
    if errors:
        raise UsageError("\n".join(errors))
    return found


def parse_known_wrong(course: Course, path: str) -> KnownWrong:
    """One known-wrong file, checked against its exercise; MarkerError (file:line) on any problem."""
    parts = path.split("/")
    if len(parts) != 4:
        raise MarkerError(path, 1, "known-wrong files sit directly in instructor/wrong/, not in a sub-folder")
    name = WRONG_NAME.match(parts[3])
    if not name:
        raise MarkerError(path, 1, "the name must be <id>-<slug>.<ext>, e.g. 03.1-skips-the-tail.cu")
    try:
        text = (course.root / path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise MarkerError(path, 1, "not UTF-8 text")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if lines[-1] == "":
        lines.pop()
    header, fields = wrong_header(path, lines)
    exercise_id = fields.group("id")
    if exercise_id != name.group("id"):
        raise MarkerError(path, 1, f"line 1 names exercise {exercise_id}, the file name {name.group('id')}")
    if exercise_id[:2] != parts[0][:2]:
        raise MarkerError(path, 1, f"exercise {exercise_id} does not belong to chapter folder {parts[0]}")
    exercise = course.exercises.get(exercise_id)
    if exercise is None:
        raise MarkerError(path, 1, f"no exercise {exercise_id} (declared: {', '.join(course.exercises) or 'none'})")
    number, region = wrong_region(course, path, exercise, fields.group("region"))
    style = comment_style(region.path)
    want = "//" if style == "c" else "#"
    if header.group("comment") != want:
        raise MarkerError(path, 1, f"{region.path} takes '{want}' comments: line 1 starts '{want} WRONG:'")
    if Path(parts[3]).suffix != Path(region.path).suffix:
        raise MarkerError(path, 1, f"the extension must be that of the region's file, {region.path}")
    expect = fields.group("expect").strip()
    if len(expect) >= 2 and expect[0] == expect[-1] and expect[0] in "\"'":
        expect = expect[1:-1].strip()
    if not expect:
        raise MarkerError(path, 1, "empty 'expect:': give words the grade reason must contain")
    because = fields.group("because").strip()
    if not because:
        raise MarkerError(path, 1, "empty 'because:': say what is wrong with this answer")
    body = lines[1:]
    if not any(line.strip() for line in body):
        raise MarkerError(path, min(2, len(lines)), "no code after line 1: the lines after it replace the "
                          "region's stub")
    check_wrong_body(path, body, style)
    wrong = KnownWrong(path, exercise_id, number, region, expect, because, body, {})
    wrong.handout = known_wrong_files(course, exercise, wrong)
    return wrong


def wrong_header(path: str, lines: list[str]):
    """Line 1 of a known-wrong file, matched as a comment and as the WRONG_FORM fields."""
    header = WRONG_HEADER.match(lines[0]) if lines else None
    if not header:
        raise MarkerError(path, 1, f"line 1 must be '// {WRONG_FORM}' ('#' instead of '//' for Python, "
                          "CMake and shell)")
    fields = WRONG_FIELDS.match(header.group("rest"))
    if not fields:
        rest = header.group("rest")
        missing = ("'expect: <phrase>'" if not re.search(r"\bexpect:", rest) else
                   "'because: <what is wrong>'" if not re.search(r"\bbecause:", rest) else None)
        raise MarkerError(path, 1, f"no {missing} on line 1" if missing else
                          f"line 1 must read '{WRONG_FORM}', in that order")
    return header, fields


def wrong_region(course: Course, path: str, exercise: Exercise, text_number: str | None) -> tuple[int, Region]:
    """The region of `exercise` a known-wrong file answers: 'region: <n>', or its only one."""
    regions = exercise_regions(course, exercise)
    if not regions:
        raise MarkerError(path, 1, f"exercise {exercise.id} has no solution region to answer")
    where = ", ".join(f"{n} = {r.path}:{r.begin}" for n, r in enumerate(regions, 1))
    if text_number is None:
        if len(regions) > 1:
            raise MarkerError(path, 1, f"exercise {exercise.id} has {len(regions)} regions: say which one with "
                              f"'region: <n>' ({where})")
        return 1, regions[0]
    number = int(text_number) if text_number.isdigit() else 0
    if not 1 <= number <= len(regions):
        raise MarkerError(path, 1, f"region: {text_number}: exercise {exercise.id} has {len(regions)} "
                          f"region(s) ({where})")
    return number, regions[number - 1]


def check_wrong_body(path: str, body: list[str], style: str) -> None:
    """The lines must fit in the stub branch: no markers, no conditional left open or closing the region's."""
    open_ifs: list[int] = []
    for number, line in enumerate(body, start=2):
        markers = (BEGIN_C, END_C) if style == "c" else (BEGIN_HASH, END_HASH, STUB_HASH)
        if any(m.match(line) for m in markers) or "COURSE_STUB_" in line:
            raise MarkerError(path, number, "solution markers and COURSE_STUB_ have no place in a known-wrong "
                              "file: it holds only the student's lines")
        if style != "c":
            continue
        if PP_IF.match(line):
            open_ifs.append(number)
        elif PP_ENDIF.match(line):
            if not open_ifs:
                raise MarkerError(path, number, "#endif without its #if: it would close the region's stub branch")
            open_ifs.pop()
        elif (PP_ELSE.match(line) or PP_ELIF.match(line)) and not open_ifs:
            raise MarkerError(path, number, "#else/#elif outside an #if of its own: it would end the region's "
                              "stub branch")
    if open_ifs:
        raise MarkerError(path, open_ifs[-1], "#if never closed")


def known_wrong_files(course: Course, exercise: Exercise, wrong: KnownWrong) -> dict[str, str]:
    """The exercise's files as the student of this known-wrong answer holds them: the instructor's file
    with `body` put in the chosen region's stub branch, then made a handout of the exercise, in which the
    exercise's other regions are solved, so that the grade judges this answer's mistake alone."""
    files = {}
    for path in sorted({r.path for r in exercise_regions(course, exercise)}):
        text = course.text(path)
        regions = course.regions[path]
        if path != wrong.region.path:
            files[path] = render(text, regions, set())
            continue
        lines = text.split("\n")
        region = wrong.region
        style = comment_style(path)
        if style == "c":
            # begin, #ifndef, solution..., #else, stub..., #endif, end
            first, last = region.begin + 2 + len(region.solution), region.end - 2
            stub = list(wrong.body)
        else:
            # begin, solution..., # STUB: lines..., end
            first, last = region.begin + len(region.solution), region.end - 1
            stub = ["# STUB:" + (f" {line}" if line else "") for line in wrong.body]
        instructor = "\n".join(lines[:first] + stub + lines[last:])
        try:
            parsed = parse_regions(path, instructor)
        except MarkerError as error:
            raise MarkerError(wrong.path, 2, f"these lines cannot stand in the stub branch of {path}:"
                              f"{region.begin}: {error}")
        index = regions.index(region)
        out, position = [], 0
        instructor_lines = instructor.split("\n")
        for i, r in enumerate(parsed):
            out.extend(instructor_lines[position:r.begin - 1])
            out.extend(r.stub if i == index else r.solution)
            position = r.end
        out.extend(instructor_lines[position:])
        files[path] = "\n".join(out)
    return files


def untracked_known_wrong(root: Path) -> list[str]:
    result = run(["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"])
    return sorted(p for p in result.stdout.split("\0") if p and is_known_wrong(p))


def check_known_wrong(course: Course, wrong: KnownWrong, base: Path, options: GradeOptions, instructor=None) -> dict:
    """Grades the handout of `wrong`'s exercise that holds its answer; the verdict says whether the grader
    rejected it for the stated reason. Every file is graded in the same work folder: the trees differ in
    a file or two, so each build after the first redoes only what they change."""
    exercise = course.exercises[wrong.exercise]
    result = {"file": wrong.path, "id": wrong.exercise, "region": wrong.region_number,
              "region_at": f"{wrong.region.path}:{wrong.region.begin}", "expect": wrong.expect,
              "because": wrong.because, "points": 0, "max_points": exercise.points, "status": "", "reason": "",
              "verdict": "", "wall_s": 0.0}
    if exercise.gpu and not options.gpu:
        result.update(status="needs_gpu", reason="not checkable without a GPU", verdict="NOT-CHECKED")
        return result
    handout = base / "handout"
    shutil.rmtree(handout, ignore_errors=True)
    handout.mkdir(parents=True)
    write_handout(course, handout, [wrong.exercise], git_commit=False)
    for path, text in wrong.handout.items():
        (handout / path).write_text(text, encoding="utf-8")
    report = grade_tree(course, handout, base / "grade", options, instructor=instructor)
    (entry,) = report["exercises"]
    result.update(points=entry["points"], status=entry["status"], reason=entry["reason"],
                  wall_s=report["timing"]["total_s"])
    if entry["status"] == "needs_gpu":
        result.update(reason=f"not checkable without a GPU ({entry['reason']})", verdict="NOT-CHECKED")
    elif entry["status"] == "error":
        result["verdict"] = "ERROR"
    elif entry["points"] >= entry["max_points"]:
        result["verdict"] = "WRONG-ACCEPTED"
    elif wrong.expect.lower() not in entry["reason"].lower():
        result["verdict"] = "MIS-REASONED"
    else:
        result["verdict"] = "OK"
    return result


def wrong_line(result: dict) -> str:
    points = f"{result['points']}/{result['max_points']}" if result["verdict"] != "NOT-CHECKED" \
        else f"-/{result['max_points']}"
    line = (f"{result['verdict']:<14}  {result['id']:<5}  {result['file']}  {points}  {result['status']}"
            + (f": {one_line(result['reason'], 200)}" if result["reason"] else ""))
    if result["verdict"] == "MIS-REASONED":
        line += f"  [the reason should contain '{result['expect']}']"
    elif result["verdict"] == "WRONG-ACCEPTED":
        line += f"  [should fail because: {result['because']}]"
    return line


def write_json(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise ToolError(f"cannot write {path}: {error.strerror}")
