"""The static layer against delegation (issue 30): names an optimize exercise's code must not use, read from
the student's files before anything is timed, outside every process the student's code runs in.

An optimize exercise is timed against a reference that is callable from the student's code (01.3's
forces_critical, the reduce ladders' reference rungs, 02.3's cudaMemcpy, 05.3's CUB, 06.3's full-buffer
pipeline, 07.3's naive_global). A timed call that hands its work to one of them is correct and as fast as the
reference. The grading probe records what the call enqueues (the `ran` of its done records, compared with
the instructor's answer's in outside_timing.measure); this module refuses, before that, the code that names
what it could hand the work to, or that asks whether it is being observed (the probe's capture and its
memory accounting), or that adds preprocessor lines that could hide such a name.

What is read: the exercise's own editable text, that is, in each of its files, the lines between the
handout's fixed text (the regions the instructor's tree marks, `BEGIN SOLUTION NN.k`); where the student
changed the fixed text too, every line that differs from the handout. Comments are dropped (strings are
kept: `asm("call forces_critical")`, an alias attribute's target or a mangled name in a string count),
backslash-newline splices joined, universal character names (`\\u0061`) and the `%:` digraph read as what
the compiler reads.

What it does not see: a helper with a fresh name in another exercise's file, a function reached through a
pointer another file exposes, and an indirect test of the capture (an operation a capture refuses). A name
built at run time from pieces is of no use without a look-up by name (dlsym, cudaGetDriverEntryPoint:
refused). The probe's observation covers what the call does, whatever its names."""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import shutil
from pathlib import Path

from .regions import MarkerError, parse_regions, render

# Asking whether the call is observed (the probe captures it and accounts for its memory), or finding a
# function by a name the scan cannot see: refused in every GPU optimize exercise. A trailing `*` is a
# prefix (the _ptsz / _v2 / ByVersion spellings of one call).
GPU_API = ("cudaStreamIsCapturing*", "cudaStreamGetCaptureInfo*", "cudaThreadExchangeStreamCaptureMode*",
           "cuStreamIsCapturing*", "cuStreamGetCaptureInfo*", "cuThreadExchangeStreamCaptureMode*",
           "cudaGetDriverEntryPoint*", "cuGetProcAddress*", "cudaMemGetInfo*", "cuMemGetInfo*",
           # a capture's own controls answer whether one is under way without failing it
           "cudaStreamUpdateCaptureDependencies*", "cuStreamUpdateCaptureDependencies*", "cudaStreamBeginCapture*",
           "cuStreamBeginCapture*", "cudaStreamEndCapture*", "cuStreamEndCapture*")
# CPU optimize exercises: an asm label binds a declaration to any symbol by a string; honest CPU code has no
# use for asm (GPU exercises may write PTX, and there the probe's capture still sees the kernels).
CPU_ONLY = ("asm", "__asm", "__asm__")
# Every optimize exercise: a symbol looked up at run time by a name in a string.
ALWAYS = ("dlopen*", "dlsym*", "dlvsym*", "dlmopen*")
# Preprocessor lines that could spell a refused name out of pieces or bring in text the scan does not read.
DIRECTIVES = ("define", "undef", "include", "include_next", "import", "embed")

# A new `#include <...>` of the C++ standard library is no hiding place (a student's file of that name in the
# tree would be, and is checked for): honest code needs <algorithm> or <cstdint> now and then.
STANDARD_HEADERS = frozenset("""
    algorithm any array atomic barrier bit bitset cassert cctype cerrno cfenv cfloat charconv chrono cinttypes
    climits clocale cmath codecvt compare complex concepts condition_variable coroutine csetjmp csignal cstdarg
    cstddef cstdint cstdio cstdlib cstring ctime cuchar cwchar cwctype deque exception execution expected
    filesystem format forward_list fstream functional future initializer_list iomanip ios iosfwd iostream istream
    iterator latch limits list locale map mdspan memory memory_resource mutex new numbers numeric optional ostream
    print queue random ranges ratio regex scoped_allocator semaphore set shared_mutex source_location span
    spanstream sstream stack stacktrace stdexcept stop_token streambuf string string_view syncstream system_error
    thread tuple type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector
    version""".split())
STANDARD_INCLUDE = re.compile(r"#\s*include\s*<([a-z_]+)>$")
TOOLKIT_INCLUDE = re.compile(r"#\s*include\s*<([A-Za-z0-9_][A-Za-z0-9_./]*)>$")
# `#define TILE 32`: an object-like macro whose body is numbers and operators only cannot spell a name.
NUMERIC_DEFINE = re.compile(r"#\s*define\s+[A-Za-z_]\w*\s+([^A-Za-z_]*[0-9][^\n]*)$")
IDENTIFIER = re.compile(r"\w+")
UCN = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
ESCAPE = re.compile(r"\\x([0-9A-Fa-f]+)|\\([0-7]{1,3})")
RAW_PREFIXES = ("R", "u8R", "uR", "UR", "LR")


def patterns(exercise) -> list[str]:
    """The names an exercise's code must not use: its exercises.json perf.forbid (optimize) or forbid (fix,
    implement), the run-time look-ups, and for a GPU exercise the questions whether it is observed."""
    listed = list((exercise.perf or {}).get("forbid", [])) + list(getattr(exercise, "meta", {}).get("forbid", []))
    return listed + list(ALWAYS) + (list(GPU_API) if exercise.gpu else list(CPU_ONLY))


def matches(pattern: str, identifier: str) -> bool:
    return identifier.startswith(pattern[:-1]) if pattern.endswith("*") else identifier == pattern


# ---------------------------------------------------------------------------------------------------------
# reading C/C++/CUDA text as the compiler's first phases do, keeping each character's line
# ---------------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Source:
    """A file's text after phases 1-3: comments gone (a space each), splices joined. `chars[i]` came from line
    `lines[i]` (1-based) and lies in a string or character literal where `quoted[i]`."""
    chars: list[str]
    lines: list[int]
    quoted: list[bool]

    def tokens(self, first: int = 1, last: int | None = None):
        """(identifier, line, in a literal) for every identifier on lines first..last, and the names a mangled
        symbol holds (`_Z15forces_criticalv` names forces_critical), inside literals (an asm label) or as an
        identifier of its own (an extern "C" declaration of the mangled name links to the function)."""
        text = "".join(self.chars)
        for match in IDENTIFIER.finditer(text):
            line = self.lines[match.start()]
            if line < first or (last is not None and line > last) or match.group()[0].isdigit():
                continue
            quoted = self.quoted[match.start()]
            yield match.group(), line, quoted
            if quoted or match.group().startswith("_Z"):
                for name in mangled_names(match.group()):
                    yield name, line, True

    def logical_lines(self):
        """(first physical line, text with literals kept, text with literals blanked) of each logical line."""
        start = 0
        text = "".join(self.chars)
        code = "".join(" " if q and c != "\n" else c for c, q in zip(self.chars, self.quoted))
        for end in [i for i, c in enumerate(text) if c == "\n"] + [len(text)]:
            if start < len(text):
                yield self.lines[start] if start < len(self.lines) else 0, text[start:end], code[start:end]
            start = end + 1


def mangled_names(token: str) -> list[str]:
    """The <length><name> pieces of an Itanium-mangled symbol (`_ZN6forces15forces_criticalEv`)."""
    names, i = [], 0
    while i < len(token):
        if token[i].isdigit() and (i == 0 or not token[i - 1].isdigit()):
            j = i
            while j < len(token) and token[j].isdigit():
                j += 1
            length = int(token[i:j])
            if 0 < length <= len(token) - j:
                names.append(token[j:j + length])
            i = j
        else:
            i += 1
    return names


def _splice(text: str) -> tuple[str, list[int]]:
    """Phase 2: backslash-newline splices go (a name split over two lines is one name); each character keeps
    the physical line it came from."""
    chars: list[str] = []
    lines: list[int] = []
    line, i = 1, 0
    while i < len(text):
        splice = 2 if text.startswith("\\\n", i) else 3 if text.startswith("\\\r\n", i) else 0
        if splice:
            line, i = line + 1, i + splice
            continue
        chars.append(text[i])
        lines.append(line)
        line += text[i] == "\n"
        i += 1
    return "".join(chars), lines


def read_source(text: str) -> Source:
    joined, lines = _splice(text)
    source = Source([], [], [])

    def emit(ch: str, at: int, in_literal: bool) -> None:
        source.chars.append(ch)
        source.lines.append(lines[at])
        source.quoted.append(in_literal)

    i, n = 0, len(joined)
    while i < n:
        c = joined[i]
        if joined.startswith("//", i):
            end = joined.find("\n", i)
            i = n if end < 0 else end
        elif joined.startswith("/*", i):
            end = joined.find("*/", i + 2)
            end = n if end < 0 else end + 2
            emit(" ", i, False)
            for k in range(i, end):  # keep the newlines: later lines keep their numbers
                if joined[k] == "\n":
                    emit("\n", k, False)
            i = end
        elif c == '"':
            glued = _glue_to_previous_literal(source)
            i = _raw_literal(joined, i, emit) or _literal(joined, i, '"', emit)
            if glued:  # drop this literal's opening quote: the two literals read as one
                del source.chars[glued], source.lines[glued], source.quoted[glued]
        elif c == "'":
            i = i + 1 if _digit_separator(joined, i) else _literal(joined, i, "'", emit)
        elif c == "\\" and UCN.match(joined, i):
            match = UCN.match(joined, i)
            emit(chr(int(match.group(1) or match.group(2), 16)), i, False)
            i = match.end()
        elif joined.startswith("%:", i):  # the digraph of #
            emit("#", i, False)
            i += 2
        else:
            emit(c, i, False)
            i += 1
    return source


def _glue_to_previous_literal(source: Source) -> int:
    """Where only blanks lie between the string literal read last and the one opening now, removes the last
    one's closing quote and the blanks, and returns the index the new literal's opening quote will take (0: no
    literal to glue to)."""
    k = len(source.chars) - 1
    while k >= 0 and source.chars[k] in " \t\n" and not source.quoted[k]:
        k -= 1
    if k < 1 or source.chars[k] != '"' or not source.quoted[k]:
        return 0
    del source.chars[k:], source.lines[k:], source.quoted[k:]
    return k


def _raw_literal(text: str, i: int, emit) -> int | None:
    """A raw string literal opening at the quote at i (R"delim( ... )delim"): emitted as written; the index
    after it. None when the quote opens no raw literal."""
    k = i
    while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
        k -= 1
    open_paren = text.find("(", i + 1, i + 18)
    if text[k:i] not in RAW_PREFIXES or open_paren < 0 or re.search(r"[\s\\)]", text[i + 1:open_paren]):
        return None
    close = text.find(")" + text[i + 1:open_paren] + '"', open_paren + 1)
    end = len(text) if close < 0 else close + open_paren - i + 1
    for at in range(i, end):
        emit(text[at], at, True)
    return end


def _digit_separator(text: str, i: int) -> bool:
    """The ' at i separates digits (1'000'000): it lies inside a pp-number, the token before it starting with a
    digit and a digit or letter right after it. Anything else opens a character literal, as the compiler reads
    it (`1' R"('` is the number 1 and the literal ' R"(', not a raw string)."""
    k = i - 1
    while k >= 0 and (text[k].isalnum() or text[k] in "_."):
        k -= 1
    after = text[i + 1] if i + 1 < len(text) else ""
    return k + 1 < i and text[k + 1].isdigit() and (after.isalnum() or after == "_")


def _literal(text: str, i: int, quote: str, emit) -> int:
    """Emits the literal opening at i (escapes read: \\u0061 is `a`); returns the index after it."""
    emit(quote, i, True)
    i += 1
    while i < len(text) and text[i] != quote and text[i] != "\n":
        if text[i] == "\\":
            match = UCN.match(text, i) or ESCAPE.match(text, i)
            if match:  # \u0061, \x5f, \137: the character they spell, as a symbol name in a string holds it
                code = int(match.group(1) or match.group(2), 16) if match.re is UCN else \
                    int(match.group(1), 16) if match.group(1) else int(match.group(2), 8)
                emit(chr(code) if 0 < code < 0x110000 else " ", i, True)
                i = match.end()
                continue
            emit(" ", i, True)
            i += 2
            continue
        emit(text[i], i, True)
        i += 1
    if i < len(text) and text[i] == quote:
        emit(quote, i, True)
        i += 1
    return i


def directive(code_line: str) -> str | None:
    """The directive name of a logical line (`define` for `  #  define X`), else None."""
    match = re.match(r"\s*#\s*([A-Za-z_]\w*)", code_line)
    return match.group(1) if match else None


def normal(line: str) -> str:
    return " ".join(line.split())


# ---------------------------------------------------------------------------------------------------------
# the student's editable text of one file
# ---------------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Slot:
    first: int              # 1-based lines of the student's file, inclusive
    last: int
    allowed: frozenset      # names the instructor's own code at this place uses (another exercise's region)


def editable_slots(course, exercise, path: str, theirs: list[str], stubbed: set[str]) -> list[Slot]:
    """The parts of the student's file (lines `theirs`) that are the student's: the places of the regions the
    handout stubs, found between the handout's fixed text; where that text was changed too, every line that
    differs from the handout (and the stub lines kept as handed out)."""
    # Lines are compared as tokens separated by blanks: a student who re-indents the file or leaves trailing
    # spaces has not changed the fixed text (else every line of it would be read as the student's).
    theirs = [normal(line) for line in theirs]
    source = course.text(path) or ""
    mine = [normal(line) for line in source.split("\n")]
    pieces: list = [[]]          # fixed line lists and regions, alternating, starting and ending with fixed
    position = 0
    for region in course.regions.get(path, []):
        pieces[-1].extend(mine[position:region.begin - 1])
        region_stub = [normal(line) for line in region.stub]
        if region.exercise in stubbed:
            allowed = frozenset() if region.exercise == exercise.id else \
                frozenset(t for t, _, _ in read_source("\n".join(region.solution)).tokens())
            if len(pieces) >= 2 and not pieces[-1]:  # two regions with nothing between: one slot
                pieces.pop()
                kind, kept, lines = pieces.pop()
                own = "own" if region.exercise == exercise.id or kind == "own" else "other"
                pieces.append((own, kept & allowed, lines + region_stub))
            else:
                pieces.append(("own" if region.exercise == exercise.id else "other", allowed, region_stub))
            pieces.append([])
        else:
            pieces[-1].extend(normal(line) for line in region.solution)
        position = region.end
    pieces[-1].extend(mine[position:])
    fixed = [p for p in pieces if isinstance(p, list)]
    slots_meta = [p for p in pieces if not isinstance(p, list)]
    found = _between_fixed(fixed, theirs)
    if found is not None:
        return [Slot(first + 1, last, allowed) for (first, last), (_, allowed, _) in zip(found, slots_meta)]
    # The fixed text was changed: every line that differs from the handout, and stub lines kept as they were.
    handout: list[str] = []
    stub_lines: set[int] = set()
    allowed_all: set[str] = set()
    for piece in pieces:
        if isinstance(piece, list):
            handout.extend(piece)
        else:
            if piece[0] == "own":
                stub_lines.update(range(len(handout), len(handout) + len(piece[2])))
            allowed_all |= piece[1]
            handout.extend(piece[2])
    slots: list[Slot] = []
    matcher = difflib.SequenceMatcher(None, handout, theirs, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            slots.append(Slot(b0 + 1, b1, frozenset(allowed_all)))
        elif tag == "equal":
            for offset in range(a1 - a0):
                if a0 + offset in stub_lines:
                    slots.append(Slot(b0 + offset + 1, b0 + offset + 1, frozenset()))
    return slots


def _between_fixed(fixed: list[list[str]], theirs: list[str]) -> list[tuple[int, int]] | None:
    """The 0-based [first, last) line spans of `theirs` between the fixed pieces, in order, or None when the
    pieces are not all there (the first at the start, the last at the end)."""
    head, tail = fixed[0], fixed[-1]
    if theirs[:len(head)] != head or len(theirs) < len(head) + (len(tail) if len(fixed) > 1 else 0):
        return None
    if len(fixed) == 1:
        return [] if theirs == head else None
    position = len(head)
    spans = []
    for piece in fixed[1:-1]:
        at = _find(theirs, piece, position, len(theirs) - len(tail))
        if at is None:
            return None
        spans.append((position, at))
        position = at + len(piece)
    end = len(theirs) - len(tail)
    if end < position or theirs[end:] != tail:
        return None
    spans.append((position, end))
    return spans


def _find(lines: list[str], piece: list[str], start: int, limit: int) -> int | None:
    for at in range(start, limit - len(piece) + 1):
        if lines[at:at + len(piece)] == piece:
            return at
    return None


# ---------------------------------------------------------------------------------------------------------
# the verdict
# ---------------------------------------------------------------------------------------------------------

def toolkit_include_dirs() -> list[Path]:
    """The CUDA toolkit's include folders (cooperative_groups.h, cuda_pipeline.h, cuda/barrier, ...)."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    root = Path(os.environ.get("CUDA_HOME") or Path(nvcc).resolve().parent.parent)
    return [d for d in (root / "include", root / "include" / "cccl") if d.is_dir()]


def toolkit_header(line: str, tree: Path | None) -> bool:
    """`#include <path>` of a header the CUDA toolkit ships (not CUB's or Thrust's, whose names the lists
    refuse anyway), that no file of the student's tree could shadow: honest GPU code includes
    <cooperative_groups.h> or <cuda/pipeline>, and the text it brings in is the toolkit's, not the student's."""
    match = TOOLKIT_INCLUDE.match(line)
    if not match or match.group(1).split("/")[0] in ("cub", "thrust"):
        return False
    header = match.group(1)
    if ".." in header.split("/"):
        return False
    return any((folder / header).is_file() for folder in toolkit_include_dirs()) and \
        not shadows(tree, header.split("/")[-1])


def shadows(tree: Path | None, name: str) -> bool:
    """True when the student's tree holds a file called `name` (outside build folders and .git): an include
    of it by <name> could find that file before the standard library's."""
    if tree is None:
        return False
    for folder, subfolders, files in os.walk(tree):
        subfolders[:] = [d for d in subfolders if d not in ("build", ".git")]
        if name in files:
            return True
    return False


def refusal(course, exercise, tree: Path, stubbed: set[str]) -> str | None:
    """Why the exercise's code in the student's `tree` is not timed (one line), or None. `course`: the
    instructor's tree (its regions say where the student's text is); `stubbed`: the exercises the grade sets."""
    forbidden = patterns(exercise)
    for path in exercise.files:
        try:
            text = (tree / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # a missing file fails the build, not this check
        text = as_compiled(course, path, text)
        handout = course.as_handed_out(path, stubbed) or ""
        found = scan(course, exercise, path, text, handout, forbidden, stubbed, tree)
        if found:
            return found
    return None


def as_compiled(course, path: str, text: str) -> str:
    """The file as the grade compiles it. The instructor's own tree (the answer key graded as a submission)
    keeps the solution markers: each region compiles its solution branch, not its `#else` stub (00.3's stub
    launches 00.2's transpose_naive, a name 00.3 refuses, in dead code). Only a file whose every marked region
    keeps the instructor's stub branch exactly is read that way; any other marked file is read whole, both
    branches, since the marker lines the scan splits on need not be what the compiler sees (an `#else` inside
    a comment)."""
    try:
        marked = parse_regions(path, text)
    except MarkerError:
        return text
    if not marked:
        return text
    stubs = {(r.exercise, tuple(r.stub)) for r in course.regions.get(path, [])}
    if all((r.exercise, tuple(r.stub)) in stubs for r in marked):
        return render(text, marked, set())
    return text


def scan(course, exercise, path: str, text: str, handout: str, forbidden: list[str], stubbed: set[str],
         tree: Path | None = None) -> str | None:
    slots = editable_slots(course, exercise, path, text.split("\n"), stubbed | {exercise.id})
    source = read_source(text)
    known = {normal(t) for _, t, c in read_source(handout).logical_lines() if directive(c) in DIRECTIVES}
    for slot in slots:
        for name, line, _ in source.tokens(slot.first, slot.last):
            if name in slot.allowed:
                continue
            for pattern in forbidden:
                if matches(pattern, name):
                    return (f"the exercise's code names `{name}` (line {line} of {path}): the work must be "
                            f"its own, so code that could hand it to {_what(pattern, exercise)} is refused "
                            "(0 points)")
        for line, full, code in source.logical_lines():
            if not slot.first <= line <= slot.last:
                continue
            for technique in getattr(exercise, "meta", {}).get("techniques", []):
                if re.search(technique["pattern"], full):
                    return (f"the exercise's code uses {technique['what']} (line {line} of {path}: "
                            f"`{normal(full)[:80]}`), which the task forbids: refused (0 points)")
            if not guards_names(exercise):
                continue
            kind = directive(code)
            standard = STANDARD_INCLUDE.match(normal(full))
            if standard and standard.group(1) in STANDARD_HEADERS and not shadows(tree, standard.group(1)):
                continue
            if kind == "include" and toolkit_header(normal(full), tree):
                continue
            if kind == "define" and NUMERIC_DEFINE.match(normal(code)) and \
                    all(t[0].isdigit() for t in IDENTIFIER.findall(NUMERIC_DEFINE.match(normal(code)).group(1))):
                continue
            if kind in DIRECTIVES and normal(full) not in known:
                return (f"the exercise's code adds `{normal(full)[:80]}` (line {line} of {path}), which the handout "
                        "does not have: new #define, #include and ## lines could hide a name the grader refuses, "
                        "so the exercise is refused (0 points); write the code out in the file")
            if "##" in code:
                return (f"the exercise's code pastes tokens with ## (line {line} of {path}): it could hide a name "
                        "the grader refuses, so the exercise is refused (0 points)")
    return None


def guards_names(exercise) -> bool:
    """Whether new preprocessor lines are refused in the exercise: where it has names to refuse beyond the
    run-time look-ups (an optimize exercise, a fix or implement exercise with a `forbid` list), since a
    macro or an included file could spell them; elsewhere a new #include is the student's business."""
    return bool(exercise.perf) or bool(getattr(exercise, "meta", {}).get("forbid"))


def _what(pattern: str, exercise) -> str:
    if pattern in ALWAYS:
        return "a function found at run time by name"
    if pattern in GPU_API:
        return "other code, or that asks whether it is observed"
    return "the reference, another rung, a library or other chapter code"
