"""Solution regions: the BEGIN/END SOLUTION markers of one file, parsed, checked and rendered as the
solution or as the student's stub (docs/instructors.md, "Authoring exercises")."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from .errors import UsageError


ID_RE = re.compile(r"^(\d\d)\.([1-9]\d*)$")
C_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".inl", ".ipp"}
HASH_SUFFIXES = {".py", ".cmake", ".sh"}
# The kit's own files talk about the markers without being marked; they are never parsed for regions.
KIT_FILES = {"scripts/course", "cmake/CourseExercises.cmake"}
KIT_PACKAGE = "scripts/course_lib/"  # and every file of the kit's package


def is_kit_file(path: str) -> bool:
    return path in KIT_FILES or path.startswith(KIT_PACKAGE)


@dataclasses.dataclass
class Region:
    path: str                  # relative to the tree's root
    exercise: str
    begin: int                 # 1-based line of BEGIN SOLUTION
    end: int                   # 1-based line of END SOLUTION
    solution: list[str]        # the reference lines, as written
    stub: list[str]            # the student's lines, as the handout writes them


class MarkerError(UsageError):
    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")


BEGIN_C = re.compile(r"^\s*//\s*BEGIN SOLUTION\b\s*(.*?)\s*$")
END_C = re.compile(r"^\s*//\s*END SOLUTION\b\s*(.*?)\s*$")
BEGIN_HASH = re.compile(r"^\s*#\s*BEGIN SOLUTION\b\s*(.*?)\s*$")
END_HASH = re.compile(r"^\s*#\s*END SOLUTION\b\s*(.*?)\s*$")
STUB_HASH = re.compile(r"^(\s*)#\s?STUB:(?: (.*))?$")
PP_IF = re.compile(r"^\s*#\s*if(n?def)?\b")
PP_ELSE = re.compile(r"^\s*#\s*else\b")
PP_ELIF = re.compile(r"^\s*#\s*elif")
PP_ENDIF = re.compile(r"^\s*#\s*endif\b")
PP_GUARD = re.compile(r"^\s*#\s*ifndef\s+(COURSE_STUB_\w*)\s*$")


def comment_style(path: str) -> str | None:
    """'c' for C/C++/CUDA sources, 'hash' for Python/CMake/shell, None for files without regions."""
    if is_kit_file(path):
        return None
    p = Path(path)
    if p.suffix in C_SUFFIXES:
        return "c"
    if p.suffix in HASH_SUFFIXES or p.name == "CMakeLists.txt":
        return "hash"
    return None


def stub_macro(exercise: str) -> str:
    return "COURSE_STUB_" + exercise.replace(".", "_")


def _check_id(path: str, line: int, text: str) -> str:
    if not ID_RE.match(text):
        raise MarkerError(path, line, f"'{text}' is not an exercise id NN.k (e.g. 03.1)")
    return text


def parse_regions(path: str, text: str) -> list[Region]:
    """The solution regions of one file; MarkerError (file:line) on any malformed, unbalanced, nested
    or duplicate marker."""
    style = comment_style(path)
    if style is None:
        return []
    lines = text.split("\n")
    return _parse_c(path, lines) if style == "c" else _parse_hash(path, lines)


def _parse_c(path: str, lines: list[str]) -> list[Region]:
    regions: list[Region] = []
    state = "out"
    current: Region | None = None
    depth = 0
    for number, line in enumerate(lines, start=1):
        begin, end = BEGIN_C.match(line), END_C.match(line)
        if state == "out":
            if begin:
                exercise = _check_id(path, number, begin.group(1))
                current = Region(path, exercise, number, 0, [], [])
                state = "guard"
            elif end:
                raise MarkerError(path, number, f"END SOLUTION {end.group(1)} without a BEGIN SOLUTION")
            elif "COURSE_STUB_" in line:
                raise MarkerError(path, number, "COURSE_STUB_ used outside a BEGIN/END SOLUTION region: "
                                  "the handout would keep it")
            continue
        assert current is not None
        if begin:
            other = begin.group(1)
            what = "duplicate" if other == current.exercise else "nested"
            raise MarkerError(path, number, f"{what} BEGIN SOLUTION {other} inside region {current.exercise} "
                              f"(opened at line {current.begin})")
        if state == "guard":
            guard = PP_GUARD.match(line)
            want = stub_macro(current.exercise)
            if not guard or guard.group(1) != want:
                raise MarkerError(path, number, f"expected '#ifndef {want}' right after "
                                  f"BEGIN SOLUTION {current.exercise}")
            state, depth = "solution", 0
            continue
        if state in ("solution", "stub"):
            state, depth = _c_branch_line(path, number, line, end, current, state, depth)
            continue
        # state == "close": the line after the region's #endif must be its END marker
        if not end or end.group(1) != current.exercise:
            found = f"END SOLUTION {end.group(1)}" if end else repr(line.strip())
            raise MarkerError(path, number, f"expected '// END SOLUTION {current.exercise}' right after the "
                              f"#endif of region {current.exercise}, found {found}")
        current.end = number
        regions.append(current)
        current, state = None, "out"
    if current is not None:
        raise MarkerError(path, current.begin, f"BEGIN SOLUTION {current.exercise} is never closed "
                          "(missing #endif or END SOLUTION)")
    return regions


def _c_branch_line(path: str, number: int, line: str, end, current: Region, state: str,
                   depth: int) -> tuple[str, int]:
    """One line inside a C region's #ifndef ("solution") or #else ("stub") branch: kept in that branch,
    or the #else / #endif that moves the parser on (nested #if blocks counted by `depth`)."""
    if end:
        missing = "#else (the stub branch)" if state == "solution" else "#endif"
        raise MarkerError(path, number, f"END SOLUTION reached without {missing} in region "
                          f"{current.exercise} (opened at line {current.begin})")
    if "COURSE_STUB_" in line:
        raise MarkerError(path, number, f"a second COURSE_STUB_ guard inside region {current.exercise}")
    if PP_IF.match(line):
        depth += 1
    elif PP_ENDIF.match(line):
        if depth == 0:
            if state == "solution":
                raise MarkerError(path, number, f"missing #else: region {current.exercise} (opened at "
                                  f"line {current.begin}) has no stub branch")
            return "close", depth
        depth -= 1
    elif PP_ELIF.match(line) and depth == 0:
        raise MarkerError(path, number, f"#elif in region {current.exercise}: the form is "
                          "#ifndef / #else / #endif")
    elif PP_ELSE.match(line) and depth == 0:
        if state == "stub":
            raise MarkerError(path, number, f"duplicate #else in region {current.exercise}")
        return "stub", depth
    (current.solution if state == "solution" else current.stub).append(line)
    return state, depth


def _parse_hash(path: str, lines: list[str]) -> list[Region]:
    regions: list[Region] = []
    current: Region | None = None
    stub_started = False
    for number, line in enumerate(lines, start=1):
        begin, end, stub = BEGIN_HASH.match(line), END_HASH.match(line), STUB_HASH.match(line)
        if current is None:
            if begin:
                current = Region(path, _check_id(path, number, begin.group(1)), number, 0, [], [])
                stub_started = False
            elif end:
                raise MarkerError(path, number, f"END SOLUTION {end.group(1)} without a BEGIN SOLUTION")
            elif stub:
                raise MarkerError(path, number, "'# STUB:' line outside a BEGIN/END SOLUTION region")
            continue
        if begin:
            other = begin.group(1)
            what = "duplicate" if other == current.exercise else "nested"
            raise MarkerError(path, number, f"{what} BEGIN SOLUTION {other} inside region {current.exercise} "
                              f"(opened at line {current.begin})")
        if end:
            if end.group(1) != current.exercise:
                raise MarkerError(path, number, f"END SOLUTION {end.group(1)} closes BEGIN SOLUTION "
                                  f"{current.exercise} (line {current.begin})")
            if not stub_started:
                raise MarkerError(path, number, f"missing '# STUB:' lines: region {current.exercise} (opened "
                                  f"at line {current.begin}) has no stub")
            current.end = number
            regions.append(current)
            current = None
        elif stub:
            stub_started = True
            current.stub.append(stub.group(1) + (stub.group(2) or ""))
        elif stub_started and not line.strip():
            current.stub.append(line)
        elif stub_started:
            raise MarkerError(path, number, f"solution line after the '# STUB:' lines of region "
                              f"{current.exercise}: stub lines come last")
        else:
            current.solution.append(line)
    if current is not None:
        raise MarkerError(path, current.begin, f"BEGIN SOLUTION {current.exercise} is never closed "
                          "(missing END SOLUTION)")
    return regions


def render(text: str, regions: list[Region], stubbed: set[str]) -> str:
    """The file as a handout holds it: each region replaced by its stub lines (exercise in `stubbed`)
    or by its solution lines (an exercise this handout does not set)."""
    if not regions:
        return text
    lines = text.split("\n")
    out: list[str] = []
    position = 0
    for region in regions:
        out.extend(lines[position:region.begin - 1])
        out.extend(region.stub if region.exercise in stubbed else region.solution)
        position = region.end
    out.extend(lines[position:])
    return "\n".join(out)
