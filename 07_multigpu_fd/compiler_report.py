#!/usr/bin/env python3
"""What the compiler says about every rung of the chapter's ladder on sm_90: registers, barriers, shared
memory, stack, spills (`nvcc -Xptxas -v`) and the size of each kernel's code (its `.text` section in the
cubin). No GPU is needed: nvcc and ptxas only.

Which kernels, which rung launches which, and the flags of the chapter's build come from the program's own
listing (`wave_fd --list-variants --json FILE`, whose static part needs no GPU); no C++ file is read here.
Every rung file src/rungs/*.cu is compiled three times, each as the chapter's build compiles it:
  release    the flags of the chapter's build (the listing's extra.build.cuda_flags)
  fast_math  the same plus -use_fast_math
  debug      -G (device code unoptimised, as a debugger needs it; -lineinfo dropped, -G implies it)
and, for fast_math, how its PTX differs from release's. Only the kernels the listing names are reported
(exercise 07.3's rung names none: its report would describe the answer).

    python3 07_multigpu_fd/compiler_report.py --program build/07_multigpu_fd/wave_fd
                                  # writes results/compiler/07_multigpu_fd.sm_90.txt
    python3 07_multigpu_fd/compiler_report.py --program build/07_multigpu_fd/wave_fd --check
                                  # exit 1 if the committed report is stale, 77 if this nvcc is not the
                                  # one that made it
The report is plain text that figures.py reads; lines starting with '#' say how it was made.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

CHAPTER = Path(__file__).resolve().parent
ROOT = CHAPTER.parent
REPORT = ROOT / "results" / "compiler" / "07_multigpu_fd.sm_90.txt"
ARCH = "sm_90"
# Where the chapter's build puts the program, when --program is not given.
DEFAULT_PROGRAM = ROOT / "build" / "07_multigpu_fd" / "wave_fd"


def builds(release: list[str]) -> dict[str, list[str]]:
    return {
        "release": release,
        "fast_math": release + ["-use_fast_math"],
        "debug": [f for f in release if f != "-lineinfo"] + ["-G"],
    }


EXIT_SKIP = 77


def find_nvcc(given: str | None) -> str:
    for candidate in (given, os.environ.get("CUDACXX"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if candidate and Path(candidate).is_file():
            return candidate
    raise SystemExit("compiler_report.py: nvcc not found (give --nvcc PATH)")


def nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], check=True, capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if "release" in l]
    return lines[-1].strip() if lines else out.strip().splitlines()[-1]


# ---- names -----------------------------------------------------------------------------------------
def demangle(mangled: str) -> str:
    """_ZN4wave<anon>15step_tiled_vec4ILi256ELi1ELi64ELb1ELi2EEEvNS_8StepArgsE -> step_tiled_vec4<256, 1, 64, true, 2>.
    Only the shapes this chapter's kernels have (a nested name, integer and bool template arguments)."""
    m = re.match(r"_ZN", mangled)
    if not m:
        return mangled
    pos, names, args = 3, [], None
    while pos < len(mangled) and mangled[pos].isdigit():
        digits = re.match(r"\d+", mangled[pos:]).group(0)
        pos += len(digits)
        names.append(mangled[pos:pos + int(digits)])
        pos += int(digits)
        if mangled.startswith("I", pos):
            args, pos = [], pos + 1
            while mangled.startswith("L", pos):
                arg = re.match(r"L([ib])(n?)(\d+)E", mangled[pos:])
                if not arg:
                    return mangled
                value = int(arg.group(3)) * (-1 if arg.group(2) else 1)
                args.append(("true" if value else "false") if arg.group(1) == "b" else str(value))
                pos += len(arg.group(0))
            pos += 1  # the E closing the template arguments
    if not names:
        return mangled
    return names[-1] + ("" if args is None else "<" + ", ".join(args) + ">")


# ---- ptxas -v ----------------------------------------------------------------------------------------
def parse_ptxas(text: str) -> tuple[dict[str, dict[str, int]], set[str]]:
    """(mangled function name -> registers, barriers, smem, stack, spill stores, spill loads; the names
    that are kernels). Without -G every device function is inlined, so ptxas lists only kernels."""
    functions: dict[str, dict[str, int]] = {}
    entries: set[str] = set()
    current = None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line) or re.search(r"Function properties for (\S+)", line)
        if m:
            current = functions.setdefault(m.group(1), {"registers": 0, "barriers": 0, "smem_bytes": 0, "stack_bytes": 0,
                                                        "spill_store_bytes": 0, "spill_load_bytes": 0})
            if "entry function" in line:
                entries.add(m.group(1))
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            current["stack_bytes"], current["spill_store_bytes"], current["spill_load_bytes"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            s = re.search(r"(\d+) bytes smem", line)
            current["barriers"] = int(b.group(1)) if b else 0
            current["smem_bytes"] = int(s.group(1)) if s else 0
    return functions, entries


# ---- cubin (ELF) -------------------------------------------------------------------------------------
def text_sizes(cubin: Path) -> dict[str, int]:
    """mangled kernel name -> bytes of its .text.<name> section (sm_90 instructions are 16 bytes each)."""
    data = cubin.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit(f"compiler_report.py: {cubin} is not a 64-bit ELF cubin")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = headers[shstrndx][4]

    def name(offset: int) -> str:
        end = data.index(b"\0", strtab_off + offset)
        return data[strtab_off + offset:end].decode()

    sizes = {}
    for h in headers:
        section = name(h[0])
        if section.startswith(".text."):
            sizes[section[len(".text."):]] = h[5]
    return sizes


# ---- the listing ---------------------------------------------------------------------------------------
def read_listing(program: str) -> dict:
    """wave_fd's own listing of its kernels (the static part: no GPU needed)."""
    with tempfile.TemporaryDirectory(prefix="wave_fd_listing.") as tmp:
        out = Path(tmp) / "variants.json"
        done = subprocess.run([program, "--list-variants", "--json", str(out)], capture_output=True, text=True)
        if done.returncode != 0 or not out.is_file():
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"compiler_report.py: {program} --list-variants failed (exit {done.returncode})")
        return json.loads(out.read_text())


def listed_rungs(listing: dict) -> list[tuple[str, str]]:
    """(rung, the kernel it launches in its shape before tuning), in table order; rungs without a listed
    kernel (exercise 07.3's) are left out."""
    return [(r["name"], r["kernel"]) for r in listing["rows"]
            if r.get("table") == "variants" and r.get("role") == "rung" and r.get("kernel")]


def listed_kernels(listing: dict) -> set[str]:
    return {r["kernel"] for r in listing["rows"] if r.get("table") == "variants" and r.get("kernel")}


# ---- the builds --------------------------------------------------------------------------------------
def compile_build(nvcc: str, flags: list[str], work: Path) -> tuple[str, dict[str, int], list[Path]]:
    """ptxas -v output, the kernels' code sizes and the PTX files of every rung file built with `flags`."""
    work.mkdir(parents=True)
    log, sizes, ptx = "", {}, []
    for source in sorted((CHAPTER / "src" / "rungs").glob("*.cu")):
        keep = work / source.stem
        keep.mkdir()
        cubin = keep / (source.stem + ".cubin")
        cmd = [nvcc, f"-arch={ARCH}", "-cubin", "-keep", f"--keep-dir={keep}", *flags, "-Xptxas", "-v",
               "-I", str(CHAPTER / "src"), "-I", str(ROOT / "common" / "include"),
               "-x", "cu", str(source), "-o", str(cubin)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            raise SystemExit(f"compiler_report.py: nvcc failed on {source.name} ({' '.join(flags)})")
        found = sorted(keep.glob("*.ptx"))
        if len(found) != 1:
            raise SystemExit(f"compiler_report.py: expected one PTX file for {source.name}, found {len(found)}")
        log += done.stdout + done.stderr
        sizes.update(text_sizes(cubin))
        ptx.append(found[0])
    return log, sizes, ptx


def ptx_instructions(ptx: list[Path]) -> list[str]:
    """The PTX's instructions, without comments and debug-line directives (which name the build folder)."""
    out = []
    for line in "\n".join(p.read_text() for p in ptx).splitlines():
        line = line.split("//")[0].strip()
        if line and not line.startswith((".loc", ".file", ".section", "}", "{")) and not line.endswith(":"):
            out.append(line)
    return out


def ptx_loads(ptx: list[Path]) -> dict[str, tuple[int, int]]:
    """kernel (mangled) -> (plain global loads, non-coherent global loads) in its PTX: `ld.global` and
    `ld.global.nc`, the read-only path that __ldg (or a provably read-only pointer) asks for."""
    counts: dict[str, list[int]] = {}
    current = None
    for line in "\n".join(p.read_text() for p in ptx).splitlines():
        m = re.match(r"\s*\.(?:visible\s+)?\.?entry\s+(\S+?)\(", line)
        if m:
            current = counts.setdefault(m.group(1), [0, 0])
            continue
        op = line.strip().split(" ")[0].split("\t")[0]
        if current is not None and op.startswith("ld.global"):
            current[1 if op.startswith("ld.global.nc") else 0] += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}


def ptx_difference(release: list[Path], fast_math: list[Path]) -> str:
    a, b = ptx_instructions(release), ptx_instructions(fast_math)
    f32 = sum(1 for l in a if ".f32" in l and not l.startswith(("ld.", "st.", "mov.")))
    differing = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
    only_ftz = len(a) == len(b) and all(x == y.replace(".ftz", "") for x, y in zip(a, b))
    return f"ptx\tfast_math\tf32_arithmetic={f32}\tdiffering={differing}\tonly_ftz={'yes' if only_ftz else 'no'}"


def make_report(nvcc: str, listing: dict) -> str:
    version = nvcc_version(nvcc)
    # Warnings as errors (CI builds with COURSE_WARNINGS_AS_ERRORS=ON: -Werror=all-warnings) change no code,
    # so they are left out: the report is the same for that build and for a student's.
    release = [f for f in listing["extra"]["build"]["cuda_flags"].split()
               if not f.startswith(("-Werror", "-Xcompiler=-Werror"))]
    wanted = listed_kernels(listing)
    with tempfile.TemporaryDirectory(prefix="wave_fd_ptxas.") as tmp:
        built = {b: compile_build(nvcc, flags, Path(tmp) / b) for b, flags in builds(release).items()}
        lines = [
            "# 07_multigpu_fd: what ptxas reports for each kernel of the ladder on " + ARCH + " (no GPU involved).",
            "# Made by: python3 07_multigpu_fd/compiler_report.py   (nvcc: " + version + ")",
            "# The kernels, the rungs and the release flags: wave_fd --list-variants (the program's listing)",
        ]
        for b, flags in builds(release).items():
            lines.append(f"# build {b}: nvcc -arch={ARCH} -cubin {' '.join(flags)} -Xptxas -v src/rungs/<file>.cu, each file")
        lines += ["# kernel rows: build, kernel, registers, barriers, smem_bytes, stack_bytes, spill_store_bytes, "
                  "spill_load_bytes, code_bytes (its .text section)",
                  "# calls rows: build, how many device functions are compiled as functions of their own (not inlined)",
                  "# loads rows: build, kernel, global loads in its PTX: plain (ld.global) and non-coherent "
                  "(ld.global.nc, the read-only path), counted as written, not as executed",
                  "# rung rows: rung, the kernel it launches in its shape before tuning (from the listing)",
                  "# ptx row: how -use_fast_math changes the PTX: f32 arithmetic instructions in the release PTX, "
                  "instructions that differ, and whether adding .ftz (flush denormals to zero) is the only change"]
        names = set()
        for b, (log, sizes, _) in built.items():
            props, entries = parse_ptxas(log)
            if not entries or not entries <= set(sizes):
                raise SystemExit(f"compiler_report.py: ptxas and the cubins list different kernels ({b})")
            rows = sorted(((demangle(k), props[k], sizes[k]) for k in entries), key=lambda r: r[0])
            rows = [r for r in rows if r[0] in wanted]
            for kernel, v, size in rows:
                lines.append("\t".join(["kernel", b, kernel] + [str(v[c]) for c in (
                    "registers", "barriers", "smem_bytes", "stack_bytes", "spill_store_bytes", "spill_load_bytes")]
                    + [str(size)]))
            # -G keeps the helpers (leapfrog_cell, ring_sum, the _rn wrappers, the lambdas) as functions
            # that the kernels call, each with its own stack frame.
            lines.append(f"calls\t{b}\tdevice_functions={len(set(props) - entries)}")
            if b == "release":
                names = {r[0] for r in rows}
        missing = sorted(wanted - names)
        if missing:
            raise SystemExit(f"compiler_report.py: the listing names kernels no rung file compiles: {missing}")
        for kernel, (plain, nc) in sorted((demangle(k), v) for k, v in ptx_loads(built["release"][2]).items()):
            if kernel in wanted:
                lines.append(f"loads\trelease\t{kernel}\tplain={plain}\tnon_coherent={nc}")
        for rung, kernel in listed_rungs(listing):
            lines.append(f"rung\t{rung}\t{kernel}")
        lines.append(ptx_difference(built["release"][2], built["fast_math"][2]))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc", help="the nvcc to use (default: $CUDACXX, nvcc on PATH, /usr/local/cuda/bin/nvcc)")
    ap.add_argument("--program", default=str(DEFAULT_PROGRAM),
                    help=f"the built wave_fd, whose --list-variants names the kernels (default {DEFAULT_PROGRAM.relative_to(ROOT)})")
    ap.add_argument("--out", type=lambda p: Path(p).resolve(), default=REPORT, help=f"where to write the report (default {REPORT.relative_to(ROOT)})")
    ap.add_argument("--check", action="store_true", help="compare with the committed report instead of writing it")
    args = ap.parse_args()
    nvcc = find_nvcc(args.nvcc)
    if not Path(args.program).is_file():
        raise SystemExit(f"compiler_report.py: {args.program} not found: build wave_fd or give --program PATH")
    shown = args.out.relative_to(ROOT) if args.out.resolve().is_relative_to(ROOT) else args.out
    if args.check:
        committed = args.out.read_text() if args.out.is_file() else ""
        made_by = re.search(r"\(nvcc: (.*)\)", committed)
        if made_by and made_by.group(1) != nvcc_version(nvcc):
            print(f"SKIPPED: the committed report was made by '{made_by.group(1)}', this nvcc is "
                  f"'{nvcc_version(nvcc)}' (register counts differ between compilers)")
            return EXIT_SKIP
        fresh = make_report(nvcc, read_listing(args.program))
        if fresh != committed:
            print(f"{shown} is stale: the kernels changed since it was made; run "
                  "python3 07_multigpu_fd/compiler_report.py --program <build>/07_multigpu_fd/wave_fd and commit it", file=sys.stderr)
            for old, new in zip(committed.splitlines(), fresh.splitlines()):
                if old != new:
                    print(f"  committed: {old}\n  now:       {new}", file=sys.stderr)
                    break
            return 1
        print(f"{shown} matches the kernels")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(make_report(nvcc, read_listing(args.program)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
