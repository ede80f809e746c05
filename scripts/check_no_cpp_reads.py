#!/usr/bin/env python3
"""No Python file of the repository reads a C++ source (issue 29): facts about the kernels come from the
programs themselves (`wave_fd --list-variants --json FILE` and the results files), never from a regex over
.cu/.cuh/.cpp/.hpp or CMake files, which would have to be kept in step with the code by hand.

    python3 scripts/check_no_cpp_reads.py [REPO]      # ctest: python.reads_no_cpp_source (label cpu)

A file is flagged when it names a C++ source or CMake file as a path (a string such as "src/stencil.hpp",
"options.hpp" or "*.cu") and reads files (open(), .read_text(), .read_bytes(), .open()). Tools whose job is to
hand sources to a compiler or to cut a handout are listed in ALLOWED with their reason. A path only tested
for existence (`.exists()`, `.is_file()`, `.is_dir()`) is not a read. KNOWN_VIOLATIONS, the files that still
read a C++ source, is empty since the last two diagrams (02, 07) moved to the programs' listings; the check
fails when a file listed there no longer reads one, so that the list only shrinks."""
import ast
import pathlib
import re
import sys

SKIP_DIRS = {".git", ".deps", ".devtree", "node_modules", "__pycache__"}
# The scripts' own tests build miniature courses of C++ files in temporary folders; they read those, not ours.
SKIP_PREFIXES = ("scripts/tests/",)
ALLOWED = {
    "07_multigpu_fd/compiler_report.py": "hands the rung files (src/rungs/*.cu) to nvcc and reads only what nvcc "
                                         "writes (ptxas output, cubins, PTX); the kernels and flags come from "
                                         "wave_fd --list-variants",
}
KNOWN_VIOLATIONS: dict[str, str] = {}  # empty: add none; a new one is moved to a program's listing instead
CPP_PATH = re.compile(r"^[\w./*-]*(\.(cu|cuh|cpp|hpp|cc|cxx|h)|CMakeLists\.txt|\.cmake)$")
READS = {"read_text", "read_bytes", "open", "readlines"}
PROBES = {"exists", "is_file", "is_dir"}


def flagged(path: pathlib.Path) -> list[str]:
    """The C++ paths a file names, if it also reads files; [] otherwise."""
    tree = ast.parse(path.read_text(), filename=str(path))
    # A path only tested for existence ((tree / "CMakeLists.txt").is_file(): "is this a course tree?") is not read.
    probed = {id(c) for call in ast.walk(tree)
              if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in PROBES
              for c in ast.walk(call.func.value)}
    names = sorted({n.value for n in ast.walk(tree)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str) and CPP_PATH.match(n.value)
                    and id(n) not in probed})
    reads = any(isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Attribute) and n.func.attr in READS) or (isinstance(n.func, ast.Name) and n.func.id == "open"))
        for n in ast.walk(tree))
    return names if reads else []


def python_files(root: pathlib.Path):
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.startswith("build") for part in rel.parts):
            continue
        if rel.as_posix().startswith(SKIP_PREFIXES):
            continue
        yield rel.as_posix(), path


def main(root: pathlib.Path) -> int:
    bad, still = [], set()
    for rel, path in python_files(root):
        names = flagged(path)
        if not names or rel in ALLOWED:
            continue
        if rel in KNOWN_VIOLATIONS:
            still.add(rel)
            continue
        bad.append(f"{rel} reads a C++ source ({', '.join(names)}): take the fact from the program's listing or results")
    for rel in sorted(set(KNOWN_VIOLATIONS) - still):
        bad.append(f"{rel} no longer reads a C++ source: remove it from KNOWN_VIOLATIONS in {pathlib.Path(__file__).name}")
    for line in bad:
        print("FAILED: " + line, file=sys.stderr)
    if not bad:
        print("no Python file reads a C++ source" + (f" ({len(still)} known, listed with their way out)" if still else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])))
