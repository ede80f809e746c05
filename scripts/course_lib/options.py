"""What a grade runs with: the exercises, the seed, the limits, the GPU and the sandbox."""
from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from . import sandbox as sandboxing


@dataclasses.dataclass
class GradeOptions:
    exercises: list[str]
    seed: int
    timeout: float
    jobs: int
    gpu: bool
    gpu_name: str | None
    gpu_lock: threading.Lock
    sandbox: sandboxing.Sandbox | None = None  # None: the instructor's own code (check-wrong), or --no-sandbox
    # The course's commit a report names: the instructor tree's HEAD unless given (a GPU machine's copy of the
    # tree may carry a one-commit snapshot whose HEAD is in no repository's history).
    instructor_commit: str | None = None
    # One compiler cache for every build of the run: only where every tree built is the instructor's
    # (handout --check, check-wrong). None: each submission builds with a cache of its own (grading.grade_tree).
    shared_cache: Path | None = None
