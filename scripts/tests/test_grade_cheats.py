#!/usr/bin/env python3
"""Issue 30's cheats, rebuilt against the fixture course and graded end to end by `scripts/course grade`.
Each scored full or partial marks, or leaked, on the grader before issue 30 (commit 3102dad and earlier:
`git show 3102dad:scripts/course_lib/grading.py` passes an exercise whose doctest binary exits 0 with a good
summary, and `git show 3102dad:scripts/course_lib/perf.py` reads the times the student's own timing process
writes); each must score no more than the untouched stub (0) on the grader of issue 30, where only the
grading probes' raw outputs (compared with the instructor's build's, in the grader's process) and the
grader's own clock decide a point:

1. exercise code that prints a perfect doctest summary and calls `_Exit(0)` (from a static initializer or
   from the exercise's function);
2. an optimize stub that caches its result for a repeated input; an `atexit` handler (and the stub itself)
   printing a fake `done` record and rewriting results files;
3. an exercise file that #includes the master's solution by absolute path; a test binary / probe that
   walks /proc to the grader's command line, prints the master's solution into the report and writes into
   the instructor's results/;
4. a double-forked process left behind by the graded code;
5. an exercise file that slows the reference living beside the exercise (scale_reference);
and, a cheat of the new path: a probe output replayed from a seed the student chose (the grade's seed is
drawn per grade). Also doing nothing: an untouched optimize stub 2x slower than the reference (3 of 5 points
under CS149's rule on the fixture; 16/30 on 01.3 on the H100), and the real course's 01.3 handout.

The fixture course (scripts/tests/fixture, see kit_fixture.py) is made in /var/tmp, outside /tmp, so
that it is the sandbox's mounts, not the private /tmp alone, that hide it.

    python3 scripts/tests/test_grade_cheats.py [-v]
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from kit_fixture import REPO, edit, git, make_fixture, tool  # noqa: E402
from test_sandbox import WHY_NOT, survivors  # noqa: E402
sys.path.insert(0, str(REPO / "scripts"))
from course_lib.tree import Course  # noqa: E402

SLEEPER = "617.25"  # the double-forked process's argument: `sleep 617.25`, found by it afterwards


@unittest.skipIf(WHY_NOT, f"no sandbox here: {WHY_NOT}")
class CheatTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-cheats-", dir="/var/tmp"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        # 02.1's stub made 2x slower than the reference instead of 40 ms slower: under CS149's rule
        # alone it earns ceil(5 / 2) = 3 of 5 points for doing nothing.
        edit(cls.repo / "02_scale/src/scale.cpp",
             "  std::this_thread::sleep_for(std::chrono::milliseconds(40));\n  scale_reference(in, out, factor);",
             "  scale_reference(in, out, factor);  // the work, twice\n  scale_reference(in, out, factor);")
        git(cls.repo, "commit", "-q", "-am", "02.1's stub: twice the work")
        (cls.repo / "results").mkdir(exist_ok=True)
        cls.handout = cls.tmp / "handout"
        result = tool(cls.repo, "handout", "--out", str(cls.handout))
        assert result.returncode == 0, result.stderr

    @classmethod
    def tearDownClass(cls):
        for pid in survivors(SLEEPER):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def submission(self, name: str) -> Path:
        dest = self.tmp / name
        shutil.copytree(self.handout, dest, ignore=shutil.ignore_patterns(".git", "build"))
        return dest

    def grade(self, repo: Path, *args: str) -> dict:
        report = self.tmp / f"{repo.name}.json"
        result = tool(self.repo, "grade", "--repo", str(repo), "--json", str(report), *args)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("sandbox: bubblewrap", result.stdout)
        return {e["id"]: e for e in json.loads(report.read_text())["exercises"]} | {
            "_report": json.loads(report.read_text())}

    def test_including_the_masters_solution_by_absolute_path_does_not_compile(self):
        repo = self.submission("includes-master")
        (repo / "01_sums/src/sums.cpp").write_text(f'#include "{self.repo}/01_sums/src/sums.cpp"\n')
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "compile_error"), e["01.1"]["reason"])
        self.assertIn("sums.cpp", e["01.1"]["reason"])

    def spy(self, name: str) -> Path:
        """A submission whose 01.1 file, in a static initializer (so in the probe and in the chapter's tests
        alike), walks /proc up to the grader's command line, prints the master's solution file, writes into
        the instructor's results/ and leaves a double-forked `sleep` behind."""
        repo = self.submission(name)
        solution = self.repo / "01_sums/src/sums.cpp"
        forged = self.repo / "results" / "forged.json"
        edit(repo / "01_sums/src/sums.cpp", '#include "sums.hpp"', f'''#include "sums.hpp"
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
namespace {{
struct Spy {{
  Spy() {{
    // Up the process tree to the grader's command line, which names the instructor's tree (issue 30).
    for (int pid = getppid(); pid > 1;) {{
      std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
      for (std::string arg; std::getline(cmdline, arg, '\\0');) std::printf("LEAK arg %s\\n", arg.c_str());
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string skip;
      int parent = 0;
      stat >> skip >> skip >> skip >> parent;
      pid = parent;
    }}
    std::ifstream master("{solution}");
    for (std::string line; std::getline(master, line);) std::printf("LEAK %s\\n", line.c_str());
    std::ofstream("{forged}") << "{{}}";
    if (fork() == 0) {{
      setsid();
      if (fork() == 0) {{  // a daemon: it lets go of the test's output, so the test ends and it stays
        for (int fd = 0; fd < 3; ++fd) close(fd);
        execlp("sleep", "sleep", "{SLEEPER}", (char*)nullptr);
        _exit(1);
      }}
      _exit(0);
    }}
  }}
}} spy;
}}''')
        return repo

    def assert_nothing_leaked(self, report: dict) -> None:
        text = json.dumps(report)
        self.assertNotIn("LEAK // BEGIN SOLUTION", text)   # the master's file: hidden, so never printed
        self.assertNotIn(str(self.repo), text)   # the grader's command line names it: the /proc walk hit a wall
        self.assertNotIn("warp width of every NVIDIA GPU", text)  # 01.2's solution, in the master's file
        self.assertFalse((self.repo / "results" / "forged.json").exists())
        time.sleep(0.5)
        self.assertEqual(survivors(SLEEPER), [])

    def test_a_probe_cannot_leak_the_solution_write_results_or_stay_behind(self):
        """Cheats 3 and 4: on the old grader the test printed the master's solution into the JSON report,
        wrote into the instructor's results/ and its daemon outlived the grade."""
        repo = self.spy("spy")
        edit(repo / "01_sums/src/sums.cpp", "  (void)values;\n  return 0;",
             "  long long s = 0;\n  for (const int v : values) s += square(v);\n  return s;")
        edit(repo / "01_sums/src/sums.cpp", "  (void)v;\n  return 0;", "  return static_cast<long long>(v) * v;")
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual(e["01.1"]["points"], 4, e["01.1"]["reason"])  # honest work still scores
        self.assert_nothing_leaked(e["_report"])

    def test_a_wrong_answers_reason_quotes_nothing_the_sandbox_hid(self):
        """A wrong answer's reason quotes the chapter's tests (run in the sandbox too, with the spy in them):
        still nothing of the instructor's tree in it."""
        e = self.grade(self.spy("spy-wrong"), "--exercises", "01.1")
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "fail"), e["01.1"]["reason"])
        self.assertIn("the chapter's tests say", e["01.1"]["reason"])
        self.assert_nothing_leaked(e["_report"])

    def swaps_its_output(self, name: str, swap: str) -> Path:
        """A submission whose 01.1 file, at the probe's exit (after the probe wrote its output), replaces that
        output (the path after --out on its command line) by what `swap` makes of `out` and `answers` (the
        instructor's answers file of 01.1 beside the grade's outputs). Libc declared by hand: no #include."""
        repo = self.submission(name)
        with (repo / "01_sums/src/sums.cpp").open("a") as f:
            f.write('''
extern "C" int open(const char*, int, ...);
extern "C" long read(int, void*, unsigned long);
extern "C" int close(int);
extern "C" int unlink(const char*);
extern "C" int symlink(const char*, const char*);
extern "C" int mkfifo(const char*, unsigned);
extern "C" int atexit(void (*)(void));
extern "C" char* strstr(const char*, const char*);
extern "C" char* strcpy(char*, const char*);
extern "C" char* strcat(char*, const char*);
namespace {
void swap_output() {
  static char buf[8192], answers[8192];
  int fd = open("/proc/self/cmdline", 0);
  if (fd < 0) return;
  long n = read(fd, buf, sizeof buf - 1);
  close(fd);
  const char* out = nullptr;
  for (long i = 0; i < n;) {
    const char* arg = buf + i;
    long len = 0;
    while (arg[len]) ++len;
    if (len == 5 && arg[0] == '-' && arg[1] == '-' && arg[2] == 'o' && arg[3] == 'u' && arg[4] == 't') out = arg + 6;
    i += len + 1;
  }
  if (!out) return;
  strcpy(answers, out);
  char* cut = strstr(answers, "/outputs/");
  if (!cut) return;
  *cut = 0;
  strcat(answers, "/instructor/outputs/answers-01.1.json");
  unlink(out);
  ''' + swap + ''';
}
struct Hook { Hook() { atexit(swap_output); } } hook;
}
''')
        return repo

    def test_a_probe_output_swapped_for_a_link_to_the_answers_scores_nothing(self):
        """Red team, issue 40: the stub, plus a link in place of the probe's output to the instructor's answers
        beside it, scored 4/4 (20/20 for the real 01.2): the grader, outside the sandbox, followed the link and
        compared the answers with themselves. Now the output must be a plain file, opened without following
        links, in a folder of the run's own."""
        e = self.grade(self.swaps_its_output("links-to-answers", "symlink(answers, out)"), "--exercises", "01.1")
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "fail"), e["01.1"]["reason"])
        self.assertIn("not a plain file", e["01.1"]["reason"])

    def test_a_probe_output_swapped_for_a_fifo_ends_with_a_refusal(self):
        """Red team, issue 40: a FIFO in place of the output kept the grader waiting for ever (past --timeout)."""
        e = self.grade(self.swaps_its_output("fifo-output", "mkfifo(out, 0666)"), "--exercises", "01.1",
                       "--timeout", "60")
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "fail"), e["01.1"]["reason"])
        self.assertIn("not a plain file", e["01.1"]["reason"])

    def test_a_file_name_forges_no_line_of_the_console_report(self):
        """Red team, issue 40: an extra file whose name held newlines and terminal escapes printed forged rows
        ('01.1 4 4 pass', 'total 4 of 4') and colours under the real table of `grade`."""
        repo = self.submission("forging-name")
        forged = "x\n01.1           4    4  pass    0.0 s  -\ntotal 4 of 4\n\x1b[31mRED\x1b[0m"
        (repo / forged).write_text("x")
        report = self.tmp / "forging-name.json"
        result = tool(self.repo, "grade", "--repo", str(repo), "--json", str(report), "--exercises", "01.1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("\x1b", result.stdout)
        self.assertNotIn("total 4 of 4", result.stdout.splitlines())
        ignored = json.loads(report.read_text())["ignored"]
        self.assertEqual(ignored, [json.dumps(forged) + " (not an exercise file)"])

    def test_a_cmake_module_of_the_students_never_runs(self):
        """Issue 40's first attempt, on the fixture: a new cmake/Finddoctest.cmake (found through
        CMAKE_MODULE_PATH by the fixture's find_package(doctest), as the course's cmake/FindGit.cmake by
        find_package(Git)) writes a right answer over the untouched exercise file of the graded copy at
        configure time. Red on the grader of issue 30, which laid the instructor's files over the student's
        tree and configured it: 01.1 scored 4/4 untouched. Here the module is never copied, and says so."""
        repo = self.submission("cmake-module")
        answer = (self.repo / "01_sums/src/sums.cpp").read_text()
        (repo / "cmake").mkdir(exist_ok=True)
        (repo / "cmake/Finddoctest.cmake").write_text(
            '# the student\'s: rewrites the graded copy, then finds doctest as asked\n'
            f'file(WRITE "${{CMAKE_SOURCE_DIR}}/01_sums/src/sums.cpp" [=[{answer}]=])\n'
            'file(WRITE "$ENV{CCACHE_DIR}/student-was-here" "")\n'
            'find_package(doctest CONFIG REQUIRED)\n')
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual((e["01.1"]["points"], e["01.1"]["status"]), (0, "fail"), e["01.1"]["reason"])
        self.assertIn("wrong output", e["01.1"]["reason"])  # the stub, as graded
        self.assertIn("cmake/Finddoctest.cmake (not an exercise file)", e["_report"]["ignored"])

    def test_a_missing_exercise_file_is_named(self):
        # Issue 30: "configure failed: ... Cannot find source file:" with the name cut off.
        repo = self.submission("no-sums")
        (repo / "01_sums/src/sums.cpp").unlink()
        e = self.grade(repo, "--exercises", "01.1")
        self.assertEqual(e["01.1"]["status"], "compile_error")
        self.assertRegex(e["01.1"]["reason"], r"Cannot find source file: \S*sums\.cpp")

    def test_doing_nothing_earns_no_performance_points(self):
        repo = self.submission("untouched-but-for-a-blank-line")
        path = repo / "02_scale/src/scale.cpp"
        path.write_text(path.read_text() + "\n")  # not "as handed out", so only the timing can judge it
        e = self.grade(repo, "--exercises", "02.1")
        entry = e["02.1"]
        self.assertEqual(entry["points"], 0, entry["reason"])
        self.assertIn("untouched stub", entry["reason"])
        self.assertGreaterEqual(len(entry["perf"]["rounds"]), 3)
        self.assertGreater(entry["perf"]["stub_ratio"], 1.2)
        key = self.grade(self.repo, "--exercises", "02.1")["02.1"]
        # The answer is the reference's own loop: full points, or one less where the grader clocked it past
        # 1.2x on a loaded 2-core machine (seen 1.24x, 4 of 5); never as little as the stub's 0.
        self.assertIn((key["points"], key["status"]), ((5, "pass"), (4, "partial")), key["reason"])


# Exercise code that fakes a passing doctest run and leaves before any check (cheat 1).
FAKE_SUMMARY = r"""
#include <cstdio>
#include <cstdlib>
namespace {
[[noreturn]] void fake_success() {
  std::printf("[doctest] test cases: 3 | 3 passed | 0 failed | 0 skipped\n"
              "[doctest] assertions: 3 | 3 passed | 0 failed |\n[doctest] Status: SUCCESS!\n");
  std::fflush(stdout);
  std::_Exit(0);
}
"""
# A fake `done` record: what a grader that trusted the process's own words would stop its clock at.
FAKE_DONE = r'"{\"done\": true, \"nonce\": \"0\", \"variant\": \"exercise\", \"checks\": [], \"tolerance\": \"exact\"}\n"'
STUB_SCALE = "  std::this_thread::sleep_for(std::chrono::milliseconds(40));\n  scale_reference(in, out, factor);"


def replace(*pairs: str):
    """A change of a file's text: each (old, new) pair in turn, each old required."""
    def change(text: str) -> str:
        for old, new in zip(pairs[::2], pairs[1::2]):
            assert old in text, old
            text = text.replace(old, new, 1)
        return text
    return change


def replayer(cases_json: str) -> str:
    """sums.cpp's head for a probe that writes, instead of computing, the cases the instructor's probe wrote
    for a seed the student chose (1): it finds --out in its command line and leaves before main."""
    return r'''#include "sums.hpp"
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>
namespace {
const char* const replayed = R"REPLAY(''' + cases_json + r''')REPLAY";
struct Replay {
  Replay() {
    std::ifstream cmdline("/proc/self/cmdline");
    std::vector<std::string> args;
    for (std::string arg; std::getline(cmdline, arg, '\0');) args.push_back(arg);
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--out") {
        std::ofstream(args[i + 1]) << replayed;
        std::_Exit(0);
      }
  }
} replay;
}  // namespace'''


@unittest.skipIf(WHY_NOT, f"no sandbox here: {WHY_NOT}")
class ForgeryTests(unittest.TestCase):
    """Cheats 1, 2 and 5 of issue 30 and a replayed probe output, each one student of one gradebook (the
    instructor's builds made once), graded with the fixture's own stubs (02.1's sleeps 40 ms
    a call). Each must score no more than the untouched handout: 0 of 9."""

    SEED = 4242

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-forgery-", dir="/var/tmp"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        cls.handout = cls.tmp / "handout"
        made = tool(cls.repo, "handout", "--out", str(cls.handout))
        assert made.returncode == 0, made.stderr
        folder = cls.tmp / "class"
        folder.mkdir()
        for name, sums, scale in cls.students():
            dest = folder / name
            shutil.copytree(cls.handout, dest, ignore=shutil.ignore_patterns(".git", "build"))
            for path, change in (("01_sums/src/sums.cpp", sums), ("02_scale/src/scale.cpp", scale)):
                if change:
                    (dest / path).write_text(change((dest / path).read_text()))
        book = cls.tmp / "book.csv"
        # Every exercise (01.2 is not graded without a GPU): "not done" compares with the handout as given.
        cls.result = tool(cls.repo, "gradebook", str(folder), "--csv", str(book), "--seed", str(cls.SEED),
                          timeout=3000)
        assert cls.result.returncode == 0, cls.result.stdout + cls.result.stderr
        cls.reports = {p.stem: json.loads(p.read_text()) for p in (cls.tmp / "book-reports").glob("*.json")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def seed_one_cases(cls) -> str:
        """What the instructor's probe of 01.1 writes for seed 1: a student with the course's code (or a
        classmate's working answer) can make it; the grade's seed is another."""
        program, out = cls.tmp / "probe_01_1", cls.tmp / "seed-1.json"
        subprocess.run([os.environ.get("CXX", "c++"), "-std=c++20", "-O1", f"-I{cls.repo}/common/include",
                        f"-I{cls.repo}/01_sums/src", str(cls.repo / "01_sums/grading/probe_01_1.cpp"),
                        str(cls.repo / "01_sums/src/sums.cpp"), "-o", str(program)], check=True)
        subprocess.run([str(program), "--seed", "1", "--out", str(out)], check=True)
        return out.read_text()

    @classmethod
    def students(cls):
        """(name, change of sums.cpp, change of scale.cpp), each change a function of the handout's text."""
        sums_head = '#include "sums.hpp"'
        yield "untouched", None, None
        yield ("exits-from-a-static-initializer",
               replace(sums_head, sums_head + FAKE_SUMMARY + "struct Leave { Leave() { fake_success(); } } leave;\n"
                       "}  // namespace\n"), None)
        yield ("exits-from-the-exercise",
               replace(sums_head, sums_head + FAKE_SUMMARY + "}  // namespace\n",
                       "  // TODO: add up the square of every element.", "  fake_success();"), None)
        yield "replays-a-seed-it-chose", replace(sums_head, replayer(cls.seed_one_cases())), None
        yield ("caches-by-pointer", None, replace(STUB_SCALE, """\
  // The old timing program called scale on the same buffers again and again: remember them.
  static const float* last_in = nullptr;
  static std::size_t last_n = 0;
  if (in.data() == last_in && in.size() == last_n) return;   // "the same input": out holds its result
  last_in = in.data();
  last_n = in.size();
""" + STUB_SCALE))
        yield ("caches-by-content", None, replace(
            "#include <thread>", "#include <thread>\n#include <algorithm>\n#include <vector>",
            STUB_SCALE, """\
  // Remembers the last input, factor and result: a repeated input costs a comparison and a copy.
  static std::vector<float> last_in, last_out;
  static float last_factor = 0.0f;
  if (factor == last_factor && std::equal(in.begin(), in.end(), last_in.begin(), last_in.end())) {
    std::copy(last_out.begin(), last_out.end(), out.begin());
    return;
  }
""" + STUB_SCALE + """
  last_in.assign(in.begin(), in.end());
  last_out.assign(out.begin(), out.end());
  last_factor = factor;"""))
        yield ("forges-at-exit", None, replace("#include <thread>", """#include <thread>
#include <cstdio>
#include <cstdlib>
#include <fstream>
namespace {
// At exit: a fake `done` record, and results files where the old timing program's --json went.
void forge() {
  std::printf(""" + FAKE_DONE + """);
  std::fflush(stdout);
  for (const char* path : {"results.json", "/tmp/results.json", "build/results.json"})
    std::ofstream(path) << "{\\"rows\\":[{\\"variant\\":\\"student\\",\\"time_ms\\":0.001}]}";
}
struct Arm { Arm() { std::atexit(forge); } } arm;
}  // namespace"""))
        yield ("says-done-before-the-work", None, replace(
            "#include <thread>", "#include <thread>\n#include <cstdio>",
            STUB_SCALE, "  std::printf(" + FAKE_DONE + ");\n  std::fflush(stdout);\n" + STUB_SCALE))
        yield ("slows-the-reference", None, replace(
            "void scale_reference(std::span<const float> in, std::span<float> out, float factor) {\n",
            "void scale_reference(std::span<const float> in, std::span<float> out, float factor) {\n"
            "  std::this_thread::sleep_for(std::chrono::milliseconds(40));  // as slow as the stub\n"))

    def entry(self, student: str, exercise: str) -> dict:
        report = self.reports[student]
        self.assertEqual(report["seed"], self.SEED)
        return {e["id"]: e for e in report["exercises"]}[exercise]

    def assert_zero(self, student: str, exercise: str, status: str, *phrases: str) -> dict:
        entry = self.entry(student, exercise)
        self.assertEqual((entry["points"], entry["status"]), (0, status), entry["reason"])
        for phrase in phrases:
            self.assertIn(phrase, entry["reason"])
        self.assertEqual(self.reports[student]["points"], 0, self.reports[student]["exercises"])
        return entry

    def test_the_untouched_handout_scores_zero(self):
        self.assert_zero("untouched", "01.1", "not_done")
        self.assert_zero("untouched", "02.1", "not_done", "no faster than the stub")

    def test_a_fake_doctest_summary_and_exit_0_scores_zero(self):
        """Cheat 1. Red on the old grader: it passed a test binary that exited 0 with a good doctest summary
        (01.2 scored 20/20 with no solution). Here the probe leaves before writing its outputs."""
        for student in ("exits-from-a-static-initializer", "exits-from-the-exercise"):
            with self.subTest(student):
                self.assert_zero(student, "01.1", "fail", "the probe wrote no output file")

    def test_a_probe_output_replayed_from_another_seed_scores_zero(self):
        """The new path's own forgery: the probe's outputs written, not computed, from a seed the student
        chose. The grade's seed is drawn per grade, so they are the wrong outputs (no old-grader analogue:
        it had no probe; its weakness of this kind is cheat 1)."""
        self.assert_zero("replays-a-seed-it-chose", "01.1", "fail", "wrong output for the grader's inputs")

    def test_a_result_cached_for_a_repeated_input_scores_zero(self):
        """Cheat 2a. Red on the old grader: its timing program called the stub on the same input five times in
        one process, so a cache made 01.3 "201.79x faster" (30/30). Here every timed repetition's input and
        factor change: a cache by address returns stale outputs (wrong answer), a cache by content never hits
        (the stub's time)."""
        self.assert_zero("caches-by-pointer", "02.1", "fail", "a timed repetition gave a wrong answer")
        self.assert_zero("caches-by-content", "02.1", "slow", "no faster than the stub")

    def test_a_forged_done_record_or_results_file_scores_zero(self):
        """Cheat 2b. Red on the old grader: an atexit handler rewrote the timing program's --json (01.3 30/30,
        "1.11x faster"). Here the grader's clock stops at the first done record, whose checks must be the
        reference's for the grader's nonce; files written anywhere are read by no one."""
        self.assert_zero("forges-at-exit", "02.1", "slow", "no faster than the stub")
        self.assert_zero("says-done-before-the-work", "02.1", "fail", "answered another nonce")

    def test_slowing_the_reference_beside_the_exercise_scores_zero(self):
        """Cheat 5. Red on the old grader: 01.3's reference lived in the student's file and was timed from the
        student's build (slowed, the stub scored 30/30). Here the reference is timed from the instructor's
        build only."""
        entry = self.assert_zero("slows-the-reference", "02.1", "slow", "no faster than the stub")
        self.assertGreater(entry["perf"]["ratio"], 5.0)   # 40 ms a call against the real reference's time


class RefusalTests(unittest.TestCase):
    """Without bubblewrap, grade refuses before any work (exit 2, one line) unless told --no-sandbox;
    then the report says the grade was unsandboxed."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course-refusal-"))
        cls.repo = make_fixture(cls.tmp / "instructor")
        cls.bin = cls.tmp / "bin"  # git only: no bwrap on this PATH (and none in <repo>/.deps)
        cls.bin.mkdir()
        (cls.bin / "git").symlink_to(shutil.which("git"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_without_bwrap(self, *args: str):
        env = dict(os.environ, PATH=str(self.bin), COURSE_GPU="0")
        return subprocess.run([sys.executable, str(self.repo / "scripts" / "course"), *args], cwd=self.repo,
                              env=env, capture_output=True, text=True, timeout=120)

    def test_grade_and_gradebook_refuse_without_a_sandbox(self):
        for args in (("grade", "--repo", str(self.repo)),
                     ("gradebook", str(self.tmp), "--csv", str(self.tmp / "grades.csv"))):
            result = self.run_without_bwrap(*args)
            self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
            self.assertIn("bubblewrap", result.stderr)
            self.assertIn("--no-sandbox", result.stderr)
            self.assertFalse((self.tmp / "grades.csv").exists())

    def test_an_unsandboxed_grade_says_so(self):
        report = self.tmp / "unsandboxed.json"
        result = tool(self.repo, "grade", "--repo", str(self.repo), "--exercises", "01.1", "--no-sandbox",
                      "--json", str(report))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("--no-sandbox", result.stderr)
        self.assertTrue(json.loads(report.read_text())["sandbox"].startswith("none"))
        self.assertIn("sandbox: none", result.stdout)


@unittest.skipIf(WHY_NOT, f"no sandbox here: {WHY_NOT}")
@unittest.skipUnless(os.environ.get("COURSE_KIT_REAL", "1") == "1",
                     "COURSE_KIT_REAL=0: the real course's grade skipped")
class RealCourseTests(unittest.TestCase):
    """Exercise 01.3 of this repository (a CPU optimize exercise): the untouched handout scores 0 of its
    30 performance points, its stub timed in the same grade (16-22/30 under CS149's rule alone)."""

    def test_untouched_01_3_scores_zero(self):
        with tempfile.TemporaryDirectory(prefix="course-01.3-") as tmp:
            handout = Path(tmp) / "handout"
            made = tool(REPO, "handout", "--out", str(handout), "--exercises", "01.3", timeout=600)
            self.assertEqual(made.returncode, 0, made.stdout + made.stderr)
            report = Path(tmp) / "report.json"
            graded = tool(REPO, "grade", "--repo", str(handout), "--exercises", "01.3", "--json", str(report),
                          timeout=1800)
            self.assertEqual(graded.returncode, 0, graded.stdout + graded.stderr)
            (entry,) = json.loads(report.read_text())["exercises"]
            self.assertEqual(entry["points"], 0, entry["reason"])
            self.assertIn("untouched stub", entry["reason"])
            self.assertIsNotNone(entry["perf"]["stub_ratio"])

    def test_issue_40_attempts_on_chapter_01_score_nothing(self):
        """Issue 40's attempts 1, 4, 5, 6 and 7 on this repository's chapter 01, graded as one class (each scored
        full points on the grader before issue 40): a cmake/FindGit.cmake and a src/stdexcept shadow header
        (ignored), 01.3 with the critical method copied into thread_arrays (the task's technique rule), 01.1
        handing its rows to full_list_vectorized (own work, now for fix exercises too), and 01.3 calling a
        fresh-named helper in 01.2's file that runs `critical`, graded together with 01.2 (each exercise is
        built with only its own files the student's: the helper is not there)."""
        wrong = REPO / "01_critical_vs_triangle/instructor/wrong"
        forces, partition = "01_critical_vs_triangle/src/forces.cpp", "01_critical_vs_triangle/src/triangle_partition.cpp"

        regions = {r.exercise: r for r in Course(REPO).regions[forces]}

        def region_body(text: str, exercise: str, body: str) -> str:
            """The handout's `text` with the exercise's stub (as the handout holds it) replaced by `body`."""
            stub = "\n".join(regions[exercise].stub) + "\n"
            self.assertIn(stub, text)
            return text.replace(stub, body, 1)

        def wrong_body(name: str) -> str:  # a known-wrong file less its WRONG: line
            return "".join((wrong / name).read_text().splitlines(keepends=True)[1:])

        with tempfile.TemporaryDirectory(prefix="course-issue-40-") as tmp:
            handout = Path(tmp) / "handout"
            made = tool(REPO, "handout", "--out", str(handout), timeout=600)
            self.assertEqual(made.returncode, 0, made.stdout + made.stderr)
            submissions = Path(tmp) / "class"
            submissions.mkdir()
            first = submissions / "critical-delegating-and-modules"
            shutil.copytree(handout, first, ignore=shutil.ignore_patterns(".git"))
            text = (first / forces).read_text()
            text = region_body(text, "01.3", wrong_body("01.3-critical-section.cpp"))
            text = region_body(text, "01.1", wrong_body("01.1-delegates-to-vectorized.cpp"))
            (first / forces).write_text(text)
            (first / "cmake/FindGit.cmake").write_text(
                'file(WRITE "${CMAKE_SOURCE_DIR}/01_critical_vs_triangle/grading/probe_01_3.cpp" "")\n')
            (first / "01_critical_vs_triangle/src/stdexcept").write_text(
                "#include_next <stdexcept>\n#define ROWS_OF(t) (md::find_variant(\"critical\"))\n")
            second = submissions / "helper-in-01_2s-file"
            shutil.copytree(handout, second, ignore=shutil.ignore_patterns(".git"))
            (second / partition).write_text((second / partition).read_text() + (
                "\nnamespace md {\nvoid partition_helper(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws,"
                " int threads) {\n  forces_critical(in, f, ws, threads);\n}\n}  // namespace md\n").replace(
                "namespace md {", '#include "forces.hpp"\nnamespace md {', 1))
            text = (second / forces).read_text()
            (second / forces).write_text(region_body(text, "01.3", (
                "void partition_helper(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads);\n"
                "void forces_thread_arrays(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {\n"
                "  partition_helper(in, f, ws, threads);\n}\n")))
            csv = Path(tmp) / "grades.csv"
            graded = tool(REPO, "gradebook", str(submissions), "--csv", str(csv), "--exercises", "01.1,01.2,01.3",
                          timeout=1800)
            self.assertEqual(graded.returncode, 0, graded.stdout + graded.stderr)
            reports = {p.stem: json.loads(p.read_text()) for p in (Path(tmp) / "grades-reports").glob("*.json")}
            one = {e["id"]: e for e in reports[first.name]["exercises"]}
            two = {e["id"]: e for e in reports[second.name]["exercises"]}
            self.assertEqual(reports[first.name]["points"], 0, one)
            self.assertEqual(reports[second.name]["points"], 0, two)
            self.assertIn("which the task forbids", one["01.3"]["reason"])
            self.assertIn("names `find_variant`", one["01.1"]["reason"])
            self.assertIn("cmake/FindGit.cmake (not an exercise file)", reports[first.name]["ignored"])
            self.assertIn("01_critical_vs_triangle/src/stdexcept (not an exercise file)", reports[first.name]["ignored"])
            self.assertEqual(two["01.3"]["status"], "compile_error", two["01.3"]["reason"])
            self.assertIn("partition_helper", two["01.3"]["reason"])


if __name__ == "__main__":
    unittest.main()
