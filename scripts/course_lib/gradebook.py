"""Grading a class: the submissions of a folder (trees, tar or zip archives) and the CSV gradebook."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from .build import one_line
from .proc import last_line
from .tree import Course


def submission_entries(folder: Path) -> list[Path]:
    entries = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_dir() or path.name.endswith((".tar.gz", ".tgz")):
            entries.append(path)
    return entries


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
            archive = subprocess.run(["git", "-C", str(entry), "archive", "--format=tar", "HEAD"],
                                     capture_output=True)
            if archive.returncode != 0:
                why = last_line(archive.stderr.decode(errors="replace"))
                raise ValueError(f"cannot read the git repository: {why}")
            with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
                extract_tar(tar, out)
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
