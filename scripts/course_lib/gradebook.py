"""Grading a class: the submissions of a folder (work trees, bare git repositories or .tar.gz archives),
graded a few at a time, each into a per-student report and a row of the CSV gradebook."""
from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from .build import one_line
from .errors import ToolError, UsageError
from .grading import grade_tree, instructor_builds
from .options import GradeOptions
from .proc import last_line, remove_temporary
from .reports import markdown_report
from .tree import Course


def submission_entries(folder: Path) -> list[Path]:
    entries = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_dir() or path.name.endswith((".tar.gz", ".tgz")):
            entries.append(path)
    return entries


def unique_names(entries: list[Path]) -> dict[Path, str]:
    """Each submission's student name (its file name without the archive suffix); a name already taken
    falls back to the full file name."""
    names: dict[Path, str] = {}
    for entry in entries:
        name = student_name(entry)
        names[entry] = name if name not in names.values() else entry.name
    return names


def grade_class(course: Course, entries: list[Path], names: dict[Path, str], options: GradeOptions, jobs: int,
                reports_dir: Path) -> dict[Path, dict]:
    """Grades `jobs` submissions at a time, writing each one's JSON and Markdown report as it finishes
    and printing one progress line; returns each submission's report (or {"error": why})."""
    results: dict[Path, dict] = {}
    done = 0
    # The instructor's builds (answers, stubs) once for the whole class, outside every student's sandbox.
    shared = Path(tempfile.mkdtemp(prefix="course-instructor-"))
    instructor = instructor_builds(course, shared, options)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(grade_submission, course, e, options, instructor): e for e in entries}
            for future in concurrent.futures.as_completed(futures):
                entry = futures[future]
                done += 1
                results[entry] = record_result(future.result(), names[entry], reports_dir, done, len(entries))
    finally:
        remove_temporary(shared)
    return results


def record_result(report: dict, name: str, reports_dir: Path, done: int, total: int) -> dict:
    """Writes one finished submission's reports and prints its progress line."""
    if "error" in report:
        summary = f"error: {report['error']}"
    else:
        report["student"] = name
        (reports_dir / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
        (reports_dir / f"{name}.md").write_text(markdown_report(report))
        summary = f"{report['points']}/{report['max_points']} in {report['timing']['total_s']:.0f} s"
    print(f"[{done:>{len(str(total))}}/{total}] {name}: {summary}", flush=True)
    return report


def grade_submission(course: Course, entry: Path, options: GradeOptions, instructor=None) -> dict:
    """One submission unpacked and graded in its own work folder; whatever it holds, a report or
    {"error": why}, never an exception (but a ToolError: the tool itself cannot go on)."""
    work = Path(tempfile.mkdtemp(prefix="course-book-"))
    try:
        tree = unpack(entry, work / "submission")
        report = grade_tree(course, tree, work / "grade", options, instructor=instructor)
        report["submission"] = str(entry)
        return report
    except (ValueError, OSError, UsageError) as error:
        return {"error": one_line(str(error))}
    except ToolError:
        raise
    except Exception as error:  # one broken submission is a row, never the end of the gradebook
        return {"error": one_line(f"grader failed on this submission: {type(error).__name__}: {error}")}
    finally:
        remove_temporary(work)


def student_name(path: Path) -> str:
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".git"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def unpack(entry: Path, dest: Path) -> Path:
    """The student tree of one submission entry, in `dest`: a folder (its files; a git work tree's
    tracked and untracked files), a bare git repository (its HEAD) or a .tar.gz."""
    if entry.is_dir():
        if (entry / "HEAD").is_file() and (entry / "objects").is_dir():  # a bare repository
            out = dest / "tree"
            out.mkdir(parents=True)
            write_head_tree(entry, out)
            return out
        return entry
    out = dest / "tree"
    out.mkdir(parents=True)
    try:
        with tarfile.open(entry, "r:gz") as archive:
            extract_tar(archive, out)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ValueError(f"cannot unpack {entry.name}: {error}")
    children = [c for c in out.iterdir()]
    if len(children) == 1 and children[0].is_dir() and not (out / "CMakeLists.txt").exists():
        return children[0]
    return out


# git run on a submission's repository reads that repository's own configuration and attributes, which can
# name programs (a red-team bare repository's smudge filter printed the instructor's answer in place of its
# file under `git archive`: 4/4 for the stub). Only plumbing that runs none is used, with no system, global or
# attribute files and fsmonitor off; blobs are read raw (cat-file applies no filter).
SAFE_GIT = ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"]


def safe_git_env() -> dict:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_ATTR_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


def write_head_tree(repo: Path, out: Path) -> None:
    """The files of a bare repository's HEAD commit into `out`: regular files only (no link, no submodule),
    their bytes as stored."""
    listing = subprocess.run([*SAFE_GIT, "-C", str(repo), "ls-tree", "-r", "-z", "--full-tree", "HEAD"],
                             capture_output=True, env=safe_git_env())
    if listing.returncode != 0:
        raise ValueError(f"cannot read the git repository: {last_line(listing.stderr.decode(errors='replace'))}")
    entries = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            entries.append((name.decode("utf-8", errors="surrogateescape"), mode == b"100755", sha.decode()))
    blobs = subprocess.run([*SAFE_GIT, "-C", str(repo), "cat-file", "--batch"], capture_output=True,
                           env=safe_git_env(), input=b"".join(f"{sha}\n".encode() for _, _, sha in entries))
    if blobs.returncode != 0:
        raise ValueError(f"cannot read the git repository: {last_line(blobs.stderr.decode(errors='replace'))}")
    data, at = blobs.stdout, 0
    for name, executable, sha in entries:
        try:
            header_end = data.index(b"\n", at)
            size = int(data[at:header_end].split()[2])
        except (ValueError, IndexError):  # "<sha> missing": a damaged or partial repository
            raise ValueError(f"cannot read {name} from the git repository")
        body = data[header_end + 1: header_end + 1 + size]
        at = header_end + 1 + size + 1
        target = (out / name).resolve()
        if out.resolve() not in target.parents:
            raise ValueError(f"unsafe path in the repository: {name}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
            os.chmod(target, 0o755 if executable else 0o644)
        except OSError as error:
            raise ValueError(f"cannot write {name} of the git repository: {error.strerror}")


def extract_tar(archive: tarfile.TarFile, out: Path) -> None:
    for member in archive.getmembers():
        target = (out / member.name).resolve()
        if out.resolve() not in target.parents and target != out.resolve():
            raise ValueError(f"unsafe path in the archive: {member.name}")
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
        elif member.isfile():
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            with open(target, "wb") as f:
                shutil.copyfileobj(source, f)
            os.chmod(target, 0o755 if member.mode & 0o111 else 0o644)


def write_gradebook(path: Path, rows: list[tuple[str, dict]], ids: list[str], course: Course) -> None:
    import csv
    header = ["student", "total", "max", "status", "reason", "wall_s"]
    for i in ids:
        header += [i, f"{i} status"]
    maximum = sum(course.exercises[i].points for i in ids)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for name, report in rows:
            if "error" in report:
                writer.writerow([name, 0, maximum, "error", report["error"], ""] + ["0", "error"] * len(ids))
                continue
            exercises = {e["id"]: e for e in report["exercises"]}
            problems = [f"{i}: {exercises[i]['reason']}" for i in ids
                        if exercises[i]["status"] not in ("pass",) and exercises[i]["reason"]]
            graded = all(exercises[i]["status"] != "error" for i in ids)
            row = [name, report["points"], report["max_points"], "graded" if graded else "incomplete",
                   one_line("; ".join(problems), 600), f"{report['timing']['total_s']:.1f}"]
            for i in ids:
                row += [exercises[i]["points"], exercises[i]["status"]]
            writer.writerow(row)
