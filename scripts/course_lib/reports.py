"""A grade's reports (terminal table, Markdown, JUnit XML, JSON) and the checks on where they are written."""
from __future__ import annotations

import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from .build import one_line
from .errors import UsageError


def terminal_table(report: dict) -> str:
    rows = [("exercise", "points", "max", "status", "time", "reason")]
    for e in report["exercises"]:
        rows.append((e["id"], str(e["points"]), str(e["max_points"]), e["status"], f"{e.get('wall_s', 0):.1f} s",
                     e["reason"] or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].rjust(widths[2]), r[3].ljust(widths[3]),
                 r[4].rjust(widths[4])]
        lines.append("  ".join(cells) + "  " + one_line(r[5], 200))
    lines.append(f"total {report['points']} / {report['max_points']}")
    if any(e["kind"] == "optimize" for e in report["exercises"]):
        lines.append(f"perf rule: {report['rules']['perf']}")
    if "timing" in report:
        lines.append(f"time: {time_line(report['timing'])}")
    if report.get("sandbox"):
        lines.append(f"sandbox: {report['sandbox']}")
    if report.get("ignored"):
        lines.append(ignored_line(report["ignored"]))
    return "\n".join(lines)


IGNORED_SHOWN = 50  # ignored files a report names one by one (the rest are counted)


def ignored_line(ignored: list[str]) -> str:
    """One line for the student's files the grade did not use (only the graded exercises' files are read):
    'ignored: cmake/FindGit.cmake (not an exercise file), ...'."""
    shown = ", ".join(ignored[:IGNORED_SHOWN])
    more = f", and {len(ignored) - IGNORED_SHOWN} more" if len(ignored) > IGNORED_SHOWN else ""
    return f"ignored: {shown}{more}"


def time_line(timing: dict) -> str:
    """'41.2 s wall (prepare 0.4 s, configure 6.1 s, build 30.3 s, exercises 4.4 s)'."""
    phases = ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in timing.items() if k != "total_s")
    return f"{timing['total_s']:.1f} s wall ({phases})"


def markdown_report(report: dict) -> str:
    def cell(text: str) -> str:
        return one_line(text or "", 300).replace("|", "\\|")

    out = [f"# Grade: {report['points']} / {report['max_points']}", "",
           f"Seed {report['seed']} (COURSE_SEED) · timeout {report['timeout_s']:g} s per test · "
           f"GPU: {report['gpu'] or 'none'}" + (f" · commit {report['commit'][:12]}" if report.get("commit") else "")
           + (f" · graded in {report['timing']['total_s']:.0f} s" if "timing" in report else ""),
           "", "| Exercise | Points | Status | Reason |", "|---|---:|---|---|"]
    for e in report["exercises"]:
        out.append(f"| {e['id']} {cell(e['title'])} | {e['points']} / {e['max_points']} | {e['status']} | "
                   f"{cell(e['reason'])} |")
    perf = report["rules"]["perf"]
    out += ["", f"Scoring: {report['rules']['score']}. {perf[0].upper()}{perf[1:]}.", ""]
    if report.get("sandbox"):
        out += [f"Sandbox: {report['sandbox']}.", ""]
    if report.get("ignored"):
        out += [cell(ignored_line(report["ignored"])), ""]
    return "\n".join(out)


def junit_report(report: dict) -> str:
    cases = report["exercises"]
    failures = sum(1 for e in cases if e["status"] not in ("pass", "needs_gpu"))
    skipped = sum(1 for e in cases if e["status"] == "needs_gpu")
    suites = ET.Element("testsuites", name="cuda-lessons grade", tests=str(len(cases)),
                        failures=str(failures), skipped=str(skipped))
    suite = ET.SubElement(suites, "testsuite", name="exercises", tests=str(len(cases)),
                          failures=str(failures), skipped=str(skipped), timestamp=report["date"])
    props = ET.SubElement(suite, "properties")
    for key in ("seed", "points", "max_points", "gpu"):
        ET.SubElement(props, "property", name=key, value=str(report[key] if report[key] is not None else "none"))
    for e in cases:
        seconds = e.get("wall_s", sum(t["seconds"] for t in e["tests"]))
        case = ET.SubElement(suite, "testcase", classname=f"exercise.{e['id']}",
                             name=f"{e['id']} {e['title']} ({e['points']}/{e['max_points']} points)",
                             time=f"{seconds:.3f}")
        output = "\n".join(f"--- {t['name']}: {t['status']}\n{t['output']}" for t in e["tests"])
        if e["status"] == "needs_gpu":
            ET.SubElement(case, "skipped", message=e["reason"])
        elif e["status"] != "pass":
            failure = ET.SubElement(case, "failure", message=e["reason"], type=e["status"])
            failure.text = e["reason"]
        ET.SubElement(case, "system-out").text = clean_xml(
            f"points: {e['points']} / {e['max_points']}\n{e['reason']}\n{output}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def clean_xml(text: str) -> str:
    return re.sub(r"[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", "?", text)


PATH_LIMIT = 4000  # bytes: below Linux's PATH_MAX (4096), with room for what is written beside a path


def _checked_length(option: str, path: str) -> None:
    shown = path if len(path) <= 60 else path[:28] + "..." + path[-28:]
    if len(os.fsencode(path)) > PATH_LIMIT:
        raise UsageError(f"{option}: the path {shown} is {len(path)} characters long: too long "
                         f"(at most {PATH_LIMIT})")
    for part in Path(path).parts:
        if len(os.fsencode(part)) > 250:  # NAME_MAX is 255; room for a ".tmp" beside it
            raise UsageError(f"{option}: the name {part[:28]}... is {len(part)} characters long: too long for a "
                             "file name (at most 250)")


def _nearest_existing(path: Path) -> Path:
    folder = path.absolute()
    while not os.path.lexists(folder) and folder.parent != folder:
        folder = folder.parent
    return folder


def _probe_folder(option: str, path: str, folder: Path) -> None:
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: {folder} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".course-write-test.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot create a file in {folder} ({error.strerror})")


def check_output_file(option: str, path: str | None) -> None:
    """Refuses, before any work, a file the command could not write at its end: a path or name too
    long, a folder, a device (/dev/full), a place under a regular file, a folder that takes no new file
    (/proc, /sys, read-only). Grading takes minutes: its reports must not be lost to a typo."""
    if path is None:
        return
    if not path.strip():
        raise UsageError(f"{option}: an empty file name")
    _checked_length(option, path)
    try:
        target = Path(path)
        if target.is_dir():
            raise UsageError(f"{option} {path}: is a folder, not a file")
        if os.path.lexists(target) and not target.is_file():
            raise UsageError(f"{option} {path}: exists and is not a regular file")
        _probe_folder(option, path, _nearest_existing(target.parent))
    except OSError as error:
        raise UsageError(f"{option} {path}: {error.strerror}")


def check_output_folder(option: str, path: str) -> None:
    """The same for a folder the command fills (handout --out, gradebook's reports folder)."""
    if not path.strip():
        raise UsageError(f"{option}: an empty folder name")
    _checked_length(option, path)
    try:
        target = Path(path)
        if os.path.lexists(target) and not target.is_symlink() and not target.is_dir():
            raise UsageError(f"{option} {path}: exists and is not a folder")
        _probe_folder(option, path, _nearest_existing(target))
    except OSError as error:
        raise UsageError(f"{option} {path}: {error.strerror}")


def check_distinct_files(outputs: list[tuple[str, str | None]]) -> None:
    seen: dict[str, str] = {}
    for option, path in outputs:
        if not path:
            continue
        resolved = os.path.realpath(path)
        if resolved in seen:
            raise UsageError(f"{seen[resolved]} and {option} name the same file {path}: give each its own")
        seen[resolved] = option


def write_reports(report: dict, json_path: str | None, junit_path: str | None, md_path: str | None) -> None:
    for path, content in ((json_path, lambda: json.dumps(report, indent=2) + "\n"),
                          (junit_path, lambda: junit_report(report)),
                          (md_path, lambda: markdown_report(report))):
        if path:
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content(), encoding="utf-8")
