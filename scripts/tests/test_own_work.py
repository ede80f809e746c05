#!/usr/bin/env python3
"""Tests of scripts/course_lib/own_work.py (issue 30): the static layer that refuses, before anything is timed,
an optimize exercise's code that names what it could hand its timed work to (exercises.json perf.forbid), asks
whether it is observed, or adds #define / #include / ## lines. On a small file of two regions: each way of
spelling a refused name (plainly, split by a backslash-newline, through a universal character name, mangled
in an asm string, inside a string that holds //) is caught; a comment is not code; the text outside the
regions is the handout's, and where the student changed it, every changed line is read. On the real course:
no answer key trips its own list, and every listed name is a real one (in the course's code, or for the
toolkit's and the C library's calls in their headers), so a typo cannot make a dead rule; the known-wrong
answers that delegate to the reference are refused in the words they expect.

    python3 scripts/tests/test_own_work.py [-v]
"""
from __future__ import annotations

import re
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from course_lib import own_work  # noqa: E402
from course_lib.regions import parse_regions, render  # noqa: E402
from course_lib.tree import Course, ROOT, perf_problems  # noqa: E402

PATH = "09_demo/src/work.cu"
SOURCE = """\
// The demo's timed call (exercise 09.2) beside exercise 09.1's helper.
#include "common/check.cuh"
#include "demo.hpp"

namespace demo {

void reference_sum(const int* in, int n, long long* out);  // the reference: its name is refused in 09.2

// BEGIN SOLUTION 09.1
#ifndef COURSE_STUB_09_1
long long helper(const int* in, int n) { long long s = 0; for (int i = 0; i < n; ++i) s += in[i]; reference_count(); return s; }
#else
long long helper(const int* in, int n) { return 0; }
#endif
// END SOLUTION 09.1

void timed_sum(const int* in, int n, long long* out) {
// BEGIN SOLUTION 09.2
#ifndef COURSE_STUB_09_2
  *out = helper(in, n);
#else
  // TODO (exercise 09.2): your own sum here
  *out = slow_sum(in, n);
#endif
// END SOLUTION 09.2
}

}  // namespace demo
"""
STUB_LINE = "  *out = slow_sum(in, n);"


class FakeExercise:
    def __init__(self, exercise_id: str, forbid: list[str], gpu: bool = True):
        self.id, self.gpu = exercise_id, gpu
        self.perf = {"reps": 1, "warmup": 0, "forbid": forbid}
        self.files = [PATH]
        self.meta = {}


class FakeCourse:
    """What own_work reads of a Course: the instructor's text and regions of a file, and the handout's file."""

    def __init__(self, text: str):
        self.source = text
        self.regions = {PATH: parse_regions(PATH, text)}

    def text(self, path: str) -> str:
        return self.source

    def as_handed_out(self, path: str, stubbed: set[str]) -> str:
        return render(self.source, self.regions[path], stubbed)


class ScanTests(unittest.TestCase):
    def setUp(self):
        self.course = FakeCourse(SOURCE)
        self.exercise = FakeExercise("09.2", ["reference_sum", "reference_count", "cudaMemcpy*"])
        self.stubbed = {"09.1", "09.2"}
        self.handout = self.course.as_handed_out(PATH, self.stubbed)

    def scan(self, text: str) -> str | None:
        return own_work.scan(self.course, self.exercise, PATH, text, self.handout, own_work.patterns(self.exercise),
                             self.stubbed)

    def with_line(self, line: str, instead_of: str = STUB_LINE) -> str:
        self.assertIn(instead_of, self.handout)
        return self.handout.replace(instead_of, line)

    def test_the_handout_and_an_answer_of_its_own_pass(self):
        self.assertIsNone(self.scan(self.handout))
        own = self.with_line("  long long s = 0;\n  for (int i = 0; i < n; ++i) s += in[i];\n  *out = s;")
        self.assertIsNone(self.scan(own))

    def test_a_technique_the_task_forbids_is_refused_with_its_line(self):
        # Issue 40's fourth attempt: 01.3's task forbids critical sections and atomics; the reference's own method
        # copied into the exercise under no forbidden name scored full points.
        self.exercise.meta = {"techniques": [{"pattern": r"\bomp\s+critical\b", "what": "an OpenMP critical section"},
                                             {"pattern": r"\batomic\b", "what": "atomics"}]}
        for line in ("#pragma omp critical\n  *out = slow_sum(in, n);", '  _Pragma("omp critical") *out = 1;',
                     "  std::atomic<long> s{0};"):
            text = self.with_line(line)
            reason = self.scan(text)
            self.assertIsNotNone(reason, line)
            first = line.split("\n")[0]
            self.assertIn(f"(line {text.split(chr(10)).index(first) + 1} of {PATH}", reason)
            self.assertIn("which the task forbids", reason)
        self.assertIsNone(self.scan(self.with_line("  // no omp critical here, no std::atomic\n  *out = 1;")))

    def test_a_fix_or_implement_exercise_is_held_to_its_own_forbid_list(self):
        # Issue 40's sixth attempt: 01.1 fixed by handing every call to another strategy (find_variant).
        fix = FakeExercise("09.2", [], gpu=False)
        fix.perf, fix.meta = None, {"forbid": ["find_variant"]}
        self.assertIn("find_variant", own_work.patterns(fix))
        text = self.with_line('  find_variant("full_list_vectorized")->run(in, n, out);')
        reason = own_work.scan(self.course, fix, PATH, text, self.handout, own_work.patterns(fix), self.stubbed)
        self.assertIn("names `find_variant`", reason or "")

    def test_naming_the_reference_is_refused_with_its_line(self):
        text = self.with_line("  reference_sum(in, n, out);")
        reason = self.scan(text)
        self.assertIsNotNone(reason)
        line = text.split("\n").index("  reference_sum(in, n, out);") + 1
        self.assertIn(f"names `reference_sum` (line {line} of {PATH})", reason)
        self.assertIn("(0 points)", reason)
        self.assertLessEqual(len(reason), 400)

    def test_every_spelling_of_a_refused_name_is_caught(self):
        for spelling in ("  reference_\\\nsum(in, n, out);",                    # a backslash-newline splice
                         "  auto f = &reference_\\u0073um; f(in, n, out);",     # a universal character name
                         '  asm("call _ZN4demo13reference_sumEPKiiPx");',       # a mangled name in a string
                         "  _ZN4demo13reference_sumEPKiiPx(in, n, out);",       # ... or declared extern "C"
                         '  const char* s = "// reference_sum"; use(s);',       # a string that holds //
                         "  auto r = R\"x(reference_sum)x\"; use(r);",          # a raw string
                         "  cudaMemcpy(out, in, n, cudaMemcpyDefault);",        # a prefix entry (cudaMemcpy*)
                         "  cudaMemcpyAsync(out, in, n, cudaMemcpyDefault, 0);",
                         "  cudaStreamIsCapturing_ptsz(0, &status);",           # the module's list, its variants
                         "  void* f = dlsym(RTLD_DEFAULT, name);"):
            with self.subTest(spelling):
                self.assertIsNotNone(self.scan(self.with_line(spelling)), spelling)

    def test_comments_are_not_code(self):
        for comment in ("  // reference_sum would be faster\n  *out = 0;", "  /* reference_sum */ *out = 0;",
                        "  *out = 0;  /* multi-line\n     reference_sum */"):
            with self.subTest(comment):
                self.assertIsNone(self.scan(self.with_line(comment)))

    def test_new_preprocessor_lines_are_refused_those_of_the_handout_are_not(self):
        for line in ("#define SUM reference_\n  *out = 0;", "#include <dlfcn.h>\n  *out = 0;",
                     "%:define SUM(a) a\n  *out = 0;", "  # /* spaced */ define SUM x\n  *out = 0;",
                     "#define SUM 1 + reference_sum\n  *out = 0;",
                     "  *out = a ## b;"):
            with self.subTest(line):
                reason = self.scan(self.with_line(line))
                self.assertIsNotNone(reason, line)
                self.assertIn("refused", reason)
        # The handout's own #include, repeated in the student's text, is not new.
        self.assertIsNone(self.scan(self.with_line('#include "demo.hpp"\n  *out = 0;')))

    def test_a_standard_header_may_be_included_unless_the_tree_shadows_it(self):
        line = self.with_line("#include <algorithm>\n  *out = std::max(0LL, *out);")
        self.assertIsNone(self.scan(line))
        for other in ('#include "algorithm"', "#include <my_helpers.hpp>", "#include <cub/cub.cuh>",
                      "#include <cuda/../../../etc/passwd>"):
            with self.subTest(other):
                self.assertIsNotNone(self.scan(self.with_line(other + "\n  *out = 0;")))
        with tempfile.TemporaryDirectory() as tree:
            (Path(tree) / "09_demo" / "src").mkdir(parents=True)
            self.assertIsNone(own_work.scan(self.course, self.exercise, PATH, line, self.handout,
                                            own_work.patterns(self.exercise), self.stubbed, Path(tree)))
            (Path(tree) / "09_demo" / "src" / "algorithm").write_text("#define X reference_sum\n")
            self.assertIn("#include <algorithm>", own_work.scan(self.course, self.exercise, PATH, line, self.handout,
                                                                own_work.patterns(self.exercise), self.stubbed,
                                                                Path(tree)) or "")

    def test_numeric_defines_and_the_toolkits_headers_are_honest_code(self):
        # `#define TILE 32` cannot spell a name; <cooperative_groups.h> is the toolkit's text, not the student's.
        for line in ("#define TILE 32\n  *out = 0;", "#define MASK (0xffu << 2)\n  *out = 0;",
                     "#include <cooperative_groups.h>\n  *out = 0;", "#include <cuda/pipeline>\n  *out = 0;"):
            with self.subTest(line):
                if "<" in line and not own_work.toolkit_include_dirs():
                    continue  # no CUDA toolkit here to find the header in
                self.assertIsNone(self.scan(self.with_line(line)))

    def test_escapes_glued_literals_and_a_quote_after_a_number_read_as_the_compiler_reads_them(self):
        # The red team's: a symbol spelled with \x5f or split over two literals (an asm label's string), and
        # `1' R"('` (the number 1, then a character literal) hiding a #define behind a raw string that is none.
        for line in ('  const char* s = "reference\\x5fsum";\n  *out = 0;',
                     '  const char* s = "reference\\137sum";\n  *out = 0;',
                     '  const char* s = "refer" "ence_sum";\n  *out = 0;',
                     '  int q = 1\' R"(\';\n#define SUM(a, b) a##b\n  *out = 0;'):
            with self.subTest(line):
                self.assertIsNotNone(self.scan(self.with_line(line)))

    def test_blank_changes_in_the_fixed_text_leave_it_fixed(self):
        # Re-indenting the file or trailing blanks: the handout's own names in its fixed text stay the handout's.
        handout = self.handout
        respaced = "\n".join("  " + line + "  " for line in handout.split("\n"))
        self.assertIsNone(self.scan(respaced))

    def test_the_fixed_text_is_the_handouts_and_a_changed_file_is_read_line_by_line(self):
        # The declaration of reference_sum above the regions is the handout's: not the student's code.
        self.assertIn("reference_sum", self.handout.split("// BEGIN")[0] if "// BEGIN" in self.handout else
                      self.handout[:self.handout.index("long long helper")])
        helper_added = self.handout.replace("namespace demo {\n", "namespace demo {\nstatic int mine() { return 1; }\n")
        self.assertIsNone(self.scan(helper_added))
        # A change outside the regions that names the reference is read, and refused.
        outside = self.handout.replace("namespace demo {\n", "namespace demo {\nstatic void go() { reference_sum(0, 0, 0); }\n")
        self.assertIn("names `reference_sum`", self.scan(outside) or "")

    def test_another_exercises_region_may_use_what_its_answer_uses(self):
        # 09.1's answer calls reference_count: the student's 09.1 region may too; 09.2's may not.
        helper = "long long helper(const int* in, int n) { return 0; }"
        self.assertIsNone(self.scan(self.with_line(helper.replace("return 0;", "reference_count(); return 0;"),
                                                   instead_of=helper)))
        self.assertIsNotNone(self.scan(self.with_line("  reference_count(); *out = 0;")))
        self.assertIsNotNone(self.scan(self.with_line(helper.replace("return 0;", "reference_sum(in, n, 0); return 0;"),
                                                      instead_of=helper)))

    def test_a_cpu_exercise_is_not_held_to_the_gpu_list(self):
        cpu = FakeExercise("09.2", ["reference_sum"], gpu=False)
        self.assertIn("dlsym*", own_work.patterns(cpu))
        self.assertNotIn("cudaMemGetInfo*", own_work.patterns(cpu))
        self.assertIn("cudaMemGetInfo*", own_work.patterns(self.exercise))

    def test_forbid_is_validated_in_exercises_json(self):
        entry = {"kind": "optimize", "id": "09.2", "perf": {"reps": 1, "warmup": 0, "forbid": ["a", "b*"]}}
        self.assertEqual(perf_problems(entry), [])
        for bad in ([], "a", ["a b"], ["*"], [1], ["a*b"]):
            with self.subTest(bad):
                entry["perf"]["forbid"] = bad
                self.assertTrue(perf_problems(entry), bad)


def identifiers_in(paths) -> set[str]:
    names: set[str] = set()
    for path in paths:
        try:
            names.update(re.findall(r"\b[A-Za-z_]\w*\b", Path(path).read_text(encoding="utf-8", errors="replace")))
        except OSError:
            pass
    return names


class CourseTests(unittest.TestCase):
    """The real course's optimize exercises and their lists."""

    @classmethod
    def setUpClass(cls):
        cls.course = Course(ROOT)
        cls.optimize = [e for e in cls.course.exercises.values() if e.perf]

    def test_every_optimize_exercise_has_a_list(self):
        self.assertTrue(self.optimize)
        for exercise in self.optimize:
            self.assertTrue(exercise.perf.get("forbid"), f"{exercise.id}: perf.forbid is missing")

    def test_no_answer_key_trips_its_own_list(self):
        every = set(self.course.exercises)
        for exercise in self.optimize:
            for stubbed in ({exercise.id}, every):
                for path in exercise.files:
                    answer = self.course.handout_text(path, set())  # the instructor's answers in the file
                    reason = own_work.scan(self.course, exercise, path, answer,
                                           self.course.as_handed_out(path, stubbed), own_work.patterns(exercise),
                                           stubbed)
                    self.assertIsNone(reason, f"{exercise.id} ({len(stubbed)} stubbed): {reason}")

    def test_the_instructors_tree_graded_as_a_submission_passes(self):
        # The answer key is graded as it is (gradebook on the GPU machine): its files keep the solution markers
        # and the #else stub branches, dead code the build never compiles (00.3's launches transpose_naive).
        for exercise in self.optimize:
            with self.subTest(exercise.id):
                self.assertIsNone(own_work.refusal(self.course, exercise, ROOT, {exercise.id}))
                self.assertIsNone(own_work.refusal(self.course, exercise, ROOT, set(self.course.exercises)))

    def test_every_listed_name_is_a_real_one(self):
        # The course's own names must be in its code; the toolkit's (cudaMemcpy*, cub, thrust, ...) and the C
        # library's (dlsym) in their headers, where those are installed.
        code = [ROOT / f for f in self.course.files if Path(f).suffix in (".c", ".cpp", ".hpp", ".h", ".cu", ".cuh")]
        course_names = identifiers_in(code)
        cuda = Path("/usr/local/cuda/include")
        headers = [*sorted(cuda.glob("*.h")), *sorted(cuda.glob("cccl/*/version.*")), Path("/usr/include/dlfcn.h")]
        system_names = identifiers_in(headers)
        for exercise in self.optimize:
            for pattern in own_work.patterns(exercise):
                if pattern in own_work.CPU_ONLY:
                    continue  # the compiler's asm keywords, not names of code
                found = any(own_work.matches(pattern, name) for name in course_names)
                if not found and system_names:
                    found = any(own_work.matches(pattern, name) for name in system_names)
                elif not found:
                    continue  # no toolkit headers here: the course's own names are still checked
                with self.subTest(exercise=exercise.id, name=pattern):
                    self.assertTrue(found, f"{exercise.id}: {pattern} names nothing in the course's code, the "
                                    "toolkit's headers or the C library's")

    def test_the_known_wrong_delegations_are_refused_in_their_own_words(self):
        # instructor/wrong/ answers that hand the work to the reference (expect: "must be its own") are right
        # and as fast as the reference: only this layer (and the probe's `ran`) tells them apart.
        from course_lib import known_wrong
        delegations = [w for w in known_wrong.load_known_wrong(self.course) if "must be its own" in w.expect]
        self.assertTrue(delegations)
        for wrong in delegations:
            exercise = self.course.exercises[wrong.exercise]
            reasons = [own_work.scan(self.course, exercise, path, text, self.course.as_handed_out(path, {exercise.id}),
                                     own_work.patterns(exercise), {exercise.id})
                       for path, text in known_wrong.known_wrong_files(self.course, exercise, wrong).items()]
            with self.subTest(wrong.path):
                self.assertTrue(any(r and wrong.expect.lower() in r.lower() for r in reasons), reasons)

    def test_the_stub_of_00_3_is_refused_for_launching_00_2s_kernel(self):
        # The handout's 00.3 runs 00.2's transpose_naive; the exercise wants a kernel of its own instead.
        exercise = self.course.exercises["00.3"]
        path = exercise.files[0]
        stub = self.course.as_handed_out(path, {"00.3"})
        reason = own_work.scan(self.course, exercise, path, stub, stub, own_work.patterns(exercise), {"00.3"})
        self.assertIn("launch_transpose_naive", reason or "")


if __name__ == "__main__":
    unittest.main()
