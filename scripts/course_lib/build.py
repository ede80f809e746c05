"""Building a graded tree and running its tests: the CMake build, the ctest command of each test, and
what a failed build or test means in one line (classify, compiler and doctest reasons)."""
from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import time
from pathlib import Path

from . import report_excerpt
from . import sandbox as sandboxing
from .errors import ToolError
from .proc import last_line, run


OUTPUT_KEEP = 4000  # characters of a test's output kept in reports


def build_env(base: Path, extra: dict | None = None, cache: Path | None = None) -> dict:
    """The environment of every build and test the kit runs under `base`: the compiler cache when
    present, with its base folder at `base` so that trees laid out alike (each with its build folder at its
    top) share cached objects. `cache`: the cache folder, private to the run that owns it (an instructor's
    check shares one between all its trees; a grade gives each submission its own)."""
    env = dict(os.environ)
    if shutil.which("ccache"):
        env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
        env.setdefault("CMAKE_CUDA_COMPILER_LAUNCHER", "ccache")
        env["CCACHE_BASEDIR"] = str(base)
        env["CCACHE_NOHASHDIR"] = "1"  # the build folder's name is no part of an object's key
        if cache is not None:
            env["CCACHE_DIR"] = str(cache.resolve())
    if extra:
        env.update(extra)
    return env


def check_cache(base: Path) -> Path:
    """The compiler cache of an instructor's own check (handout --check, check-wrong: only the instructor's
    code is built): COURSE_CHECK_CACHE where set (.ci/run lets the two share one), else private to the run,
    inside its work folder `base`. Never a grade's: a submission always builds with a cache of its own."""
    named = os.environ.get("COURSE_CHECK_CACHE")
    return Path(named) if named else base / "ccache"


def gpu_available() -> tuple[bool, str | None]:
    """(usable GPU?, its name). COURSE_GPU=0/1 overrides the detection (tests, CI)."""
    forced = os.environ.get("COURSE_GPU")
    if forced in ("0", "1"):
        return forced == "1", ("forced by COURSE_GPU=1" if forced == "1" else None)
    if not shutil.which("nvidia-smi"):
        return False, None
    try:
        result = run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], timeout=30)
    except ToolError:
        return False, None
    names = [l.strip() for l in result.stdout.splitlines() if l.strip()]
    if result.returncode != 0 or not names:
        return False, None
    return True, names[0]


@dataclasses.dataclass
class TestResult:
    name: str
    status: str          # pass, fail, timeout, crash, sanitizer, skipped, not_run, error
    seconds: float
    reason: str
    output: str


class Build:
    """One configured build folder of one tree."""

    def __init__(self, source: Path, folder: Path, env: dict, jobs: int, cmake_args: list[str] | None = None):
        # Resolved: test commands carry resolved paths, and artifacts() matches on them.
        self.source, self.folder, self.env, self.jobs = source.resolve(), folder.resolve(), env, jobs
        self.cmake_args = cmake_args or []
        self.tests: dict[str, dict] = {}
        self.targets: set[str] = set()
        self.log = ""
        self.sandbox: sandboxing.Sandbox | None = None  # set when this tree is a submission's (grade)

    def sandboxed(self, cmd: list[str], build: bool = False, writable: tuple = ()) -> list[str]:
        """`cmd` as this tree's sandbox runs it (unchanged for the instructor's own trees)."""
        if self.sandbox is None:
            return cmd
        # The tree is read-only to every sandboxed step; a build writes its build folder (and its cache) only.
        folders = [*writable, self.folder] if build else list(writable)
        return self.sandbox.wrap(cmd, self.source, folders, chdir=self.folder, build=build)

    def configure(self) -> tuple[bool, str]:
        for tool in ("cmake", "ctest", "ninja"):
            if not shutil.which(tool):
                raise ToolError(f"{tool} not found: install it or put it on PATH")
        query = self.folder / ".cmake/api/v1/query/codemodel-v2"
        query.parent.mkdir(parents=True, exist_ok=True)
        query.touch()
        self.folder.mkdir(parents=True, exist_ok=True)
        result = run(self.sandboxed(["cmake", "-S", str(self.source), "-B", str(self.folder), "-G", "Ninja",
                                     "-DCMAKE_BUILD_TYPE=Release", *self.cmake_args], build=True), env=self.env)
        self.log += result.stdout
        if result.returncode != 0:
            return False, cmake_error(result.stdout, self.source)
        (self.folder / "Testing").mkdir(exist_ok=True)  # ctest's log: the one place it may write
        listing = run(self.sandboxed(["ctest", "--test-dir", str(self.folder), "--show-only=json-v1"],
                                     writable=(self.folder / "Testing",)), env=self.env)
        if listing.returncode != 0:
            raise ToolError(f"ctest --show-only failed in {self.folder}: {last_line(listing.stdout)}")
        start = listing.stdout.find("{")
        commands = test_commands(self.folder)
        for test in json.loads(listing.stdout[start:]).get("tests", []):
            props = {p["name"]: p["value"] for p in test.get("properties", [])}
            # ctest shows no command for a test whose program is not built yet: read the test files.
            command = test.get("command") or commands.get(test["name"], [])
            self.tests[test["name"]] = {"command": command, "labels": props.get("LABELS", [])}
        targets = run(["ninja", "-C", str(self.folder), "-t", "targets", "all"], env=self.env).stdout
        self.targets = {l.split(":", 1)[0] for l in targets.splitlines() if ":" in l}
        return True, ""

    def artifacts(self, test_names: list[str]) -> list[str]:
        """The build outputs (paths relative to the build folder) that the tests' commands run."""
        wanted = []
        prefix = str(self.folder) + os.sep
        for name in test_names:
            for arg in self.tests.get(name, {}).get("command", []):
                for candidate in (arg, arg.split("=", 1)[-1]):
                    if candidate.startswith(prefix):
                        rel = candidate[len(prefix):]
                        if rel in self.targets and rel not in wanted:
                            wanted.append(rel)
        return wanted

    def target_artifact(self, target: str) -> str | None:
        """The file a CMake target builds, relative to the build folder (from the CMake file API)."""
        reply = self.folder / ".cmake/api/v1/reply"
        for index in sorted(reply.glob("index-*.json")):
            data = json.loads(index.read_text())
            codemodel = data["reply"].get("codemodel-v2", {}).get("jsonFile")
            if not codemodel:
                continue
            model = json.loads((reply / codemodel).read_text())
            for config in model.get("configurations", []):
                for t in config.get("targets", []):
                    if t["name"] == target:
                        info = json.loads((reply / t["jsonFile"]).read_text())
                        artifacts = info.get("artifacts", [])
                        return artifacts[0]["path"] if artifacts else None
        return None

    def build(self, outputs: list[str] | None, keep_going: bool = True) -> tuple[bool, str]:
        cmd = ["ninja", "-C", str(self.folder), f"-j{self.jobs}"]
        if keep_going:
            cmd.append("-k0")
        cmd += outputs or []
        result = run(self.sandboxed(cmd, build=True), env=self.env)
        self.log += result.stdout
        return result.returncode == 0, result.stdout

    def built(self, output: str) -> bool:
        return (self.folder / output).is_file()

    def built_all(self, tests: list[str]) -> bool:
        return all(self.built(o) for o in self.artifacts(tests))

    def run_test(self, name: str, timeout: float, env: dict) -> TestResult:
        pattern = "^" + re.escape(name).replace("\\-", "-") + "$"
        start = time.monotonic()
        (self.folder / "Testing").mkdir(exist_ok=True)  # ctest's log: the one place a sandboxed test may write
        result = run(self.sandboxed(["ctest", "--test-dir", str(self.folder), "-R", pattern, "-V",
                                     "--timeout", str(int(math.ceil(timeout))), "--no-tests=error"],
                                    writable=(self.folder / "Testing",)),
                     env=env, timeout=timeout + 60, capped=True)
        seconds = time.monotonic() - start
        raw = self._relative(result.stdout)
        if result.timed_out:
            return TestResult(name, "timeout", seconds, f"timed out after {timeout:g} s", tail(test_output(raw)))
        return classify(name, raw, seconds, timeout)

    def _relative(self, text: str) -> str:
        return text.replace(str(self.folder) + os.sep, "").replace(str(self.source) + os.sep, "")


CMAKE_ARGUMENT = re.compile(r'\[(=*)\[(.*?)\]\1\]|"((?:[^"\\]|\\.)*)"|([^\s()"]+)', re.S)


def test_commands(folder: Path) -> dict[str, list[str]]:
    """Each test's command line, from the add_test() calls of the CTestTestfile.cmake files."""
    commands = {}
    for testfile in folder.rglob("CTestTestfile.cmake"):
        for call in re.finditer(r"^add_test\((.*)\)\s*$", testfile.read_text(errors="replace"), re.M):
            args = []
            for m in CMAKE_ARGUMENT.finditer(call.group(1)):
                if m.group(2) is not None:
                    args.append(m.group(2))
                elif m.group(3) is not None:
                    args.append(re.sub(r"\\(.)", r"\1", m.group(3)))
                else:
                    args.append(m.group(4))
            if args:
                commands[args[0]] = args[1:]
    return commands


STATUS_LINE = re.compile(r"Test\s+#\d+:\s+(\S+)\s+\.*\s*(\*{3})?(.*?)\s+([\d.]+)\s+sec")


def tail(text: str, keep: int = OUTPUT_KEEP) -> str:
    """What a report keeps of a test's output: its last lines, bounded and escaped (report_excerpt)."""
    return report_excerpt.excerpt(text, chars=keep)


def one_line(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


CTEST_NOISE = ("Test command:", "Working Directory:", "Environment variables:", "Test timeout computed")


def test_output(raw: str) -> str:
    """The test's own output from `ctest -V` (its lines carry the test's number: '3: ...')."""
    lines = []
    for line in raw.splitlines():
        own = re.match(r"^\d+: (.*)$", line)
        if own and not own.group(1).startswith(CTEST_NOISE):
            lines.append(own.group(1))
    return "\n".join(lines)


def classify(name: str, raw: str, seconds: float, timeout: float) -> TestResult:
    """A `ctest -V` run of one test, turned into a status and a one-line reason."""
    match = None
    for match in STATUS_LINE.finditer(raw):
        if match.group(1) == name:
            break
    output = test_output(raw)
    if not match or match.group(1) != name:
        return TestResult(name, "error", seconds, f"ctest did not run {name}: {one_line(last_line(raw))}",
                          tail(raw))
    verdict = match.group(3).strip()
    if verdict == "Passed":
        if name.startswith("exercise.") and not doctest_ran(output):
            return TestResult(name, "fail", seconds, "the test binary ended before doctest reported a "
                              "passing test case", tail(output))
        return TestResult(name, "pass", seconds, "", tail(output))
    if verdict.startswith("Timeout"):
        return TestResult(name, "timeout", seconds, f"timed out after {timeout:g} s", tail(output))
    if verdict.startswith("Skipped"):
        return TestResult(name, "skipped", seconds, "skipped (exit 77: no usable GPU)", tail(output))
    if verdict.startswith("Not Run"):
        return TestResult(name, "not_run", seconds, "not built", tail(output))
    sanitizer = re.search(r"=+ ERROR SUMMARY: (\d+) errors?", output)
    if sanitizer and int(sanitizer.group(1)) > 0:
        first = next((l.strip("= ").strip() for l in output.splitlines()
                      if l.startswith("=========") and l.strip("= ").strip()
                      and not l.strip("= ").startswith(("ERROR SUMMARY", "COMPUTE-SANITIZER", "RACECHECK SUMMARY"))),
                     "")
        return TestResult(name, "sanitizer", seconds, one_line(f"compute-sanitizer reported "
                          f"{sanitizer.group(1)} error(s): {first}"), tail(output))
    missing_tool = re.search(r"FAILED: (compute-sanitizer not found.*)", output)
    if missing_tool:
        return TestResult(name, "error", seconds, one_line(missing_tool.group(1)), tail(output))
    if re.search(r"\[doctest\] test cases: +0 \|", output):
        return TestResult(name, "error", seconds, f"{name} ran no test case (its suite is empty or "
                          "misspelt)", tail(output))
    crash = re.search(r"test case CRASHED: (.*)", output)
    if verdict.startswith("Exception") or crash:
        what = crash.group(1) if crash else verdict.split(":", 1)[-1].strip()
        return TestResult(name, "crash", seconds, one_line(f"crashed: {what}"), tail(output))
    illegal = next((l for l in output.splitlines() if "illegal memory access" in l
                    or "illegal address" in l), None)
    if illegal:
        return TestResult(name, "crash", seconds, one_line(f"illegal memory access: {illegal.strip()}"),
                          tail(output))
    return TestResult(name, "fail", seconds, doctest_reason(output) or one_line(last_line(output)),
                      tail(output))


def doctest_ran(output: str) -> bool:
    summary = re.search(r"\[doctest\] test cases: +(\d+) \| +(\d+) passed \| +(\d+) failed", output)
    return bool(summary) and int(summary.group(2)) > 0 and int(summary.group(3)) == 0


def doctest_reason(output: str) -> str | None:
    """The first failed check of a doctest run: 'TEST CASE: CHECK( a == b ) is NOT correct! values: ...'."""
    lines = output.splitlines()
    case = None
    for i, line in enumerate(lines):
        if line.startswith("TEST CASE:"):
            case = line.split(":", 1)[1].strip()
        found = re.search(r"\b(?:FATAL )?ERROR: (.*)", line)
        if found and not line.startswith("[doctest]"):
            text = found.group(1).strip()
            if i + 1 < len(lines) and lines[i + 1].strip().startswith("values:"):
                text += " " + lines[i + 1].strip()
            return one_line(f"{case}: {text}" if case else text)
    return None


def cmake_error(output: str, source: Path) -> str:
    message = report_excerpt.cmake_error(output.replace(str(source) + os.sep, ""))  # the whole message: a
    return one_line(f"configure failed: {message or last_line(output)}", 400)       # missing file's name too


ERROR_LINE = re.compile(r"(\berror\b|undefined reference|multiple definition)", re.IGNORECASE)


def first_compiler_error(output: str, tree: Path) -> str:
    text = output.replace(str(tree) + os.sep, "")
    failed = False
    for line in text.splitlines():
        if line.startswith("FAILED:"):
            failed = True
            continue
        if failed and ERROR_LINE.search(line) and not line.startswith(("ninja:", "compilation terminated")):
            return one_line(re.sub(r"^(\.\./)+", "", line.strip()))
    return one_line(next((l for l in text.splitlines() if l.startswith("FAILED:")), last_line(text)))
