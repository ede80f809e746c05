"""What of a submission's output reaches a report (issue 30): a bounded, escaped excerpt, and the line
that says why a program failed.

A test's output is the submission's to write: it may be megabytes, carry terminal escape sequences
that rewrite an instructor's screen, or bytes that break the JUnit XML. A report keeps only its last
EXCERPT_LINES lines and EXCERPT_CHARS characters, with every control character but newline and tab
written as an escape (\\x1b for ESC). What the sandbox hid (the instructor's tree) never reaches the
output in the first place: the test could not open it.
"""
from __future__ import annotations

import re

EXCERPT_LINES = 40
EXCERPT_CHARS = 4000
TRUNCATED = "[... output truncated ...]"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# How a course program says why it stopped: run_main's '<program>: wrong result: ...' and
# '<program>: error: ...', doctest's and the C++ runtime's words, a CUDA error line.
ERROR_WORDS = re.compile(r"(\berror\b|wrong result|\bfailed\b|\bfatal\b|terminate called|what\(\)|"
                         r"[Aa]borted|[Ss]egmentation fault)", re.IGNORECASE)


def escape(text: str) -> str:
    """Control characters (but newline and tab) as \\xNN: no terminal escape, no XML-breaking byte."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def excerpt(text: str, lines: int = EXCERPT_LINES, chars: int = EXCERPT_CHARS) -> str:
    """The end of `text`: at most `lines` lines and `chars` characters, escaped, marked when cut."""
    kept = text.splitlines()
    cut = len(kept) > lines
    body = escape("\n".join(kept[-lines:]))
    if len(body) > chars:
        body, cut = body[-chars:], True
    return f"{TRUNCATED}\n{body}" if cut else body


def error_line(output: str) -> str:
    """The line a failed program gave as its reason: the last one that says error, wrong result, failed
    and the like (a perf program's '<program>: wrong result: ...'), not merely its last line (which may
    be a measurement it printed before its check). '(no output)' when there is none."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    for line in reversed(lines):
        if ERROR_WORDS.search(line):
            return escape(line)
    return escape(lines[-1]) if lines else "(no output)"


def cmake_error(output: str) -> str | None:
    """The first 'CMake Error' of a configure log with its whole message: the indented lines under it up to
    the next unindented one, joined ('Cannot find source file: src/forces.cpp', where the name stands on a
    line of its own). None when the log has no CMake Error."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("CMake Error"):
            message = [line.strip()]
            for following in lines[i + 1:]:
                if following.strip() and not following[:1].isspace():
                    break
                if following.strip():
                    message.append(following.strip())
            return escape(" ".join(message))
    return None
