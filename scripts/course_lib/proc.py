"""Running other programs: one process group per child, so that a timeout or a signal ends the child and
every process it started; the signal handler that stops the whole tool."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

from . import sandbox as sandboxing
from .errors import ToolError


def run(cmd: list[str], cwd: Path | None = None, env: dict | None = None, timeout: float | None = None,
        check: bool = False, capped: bool = False) -> subprocess.CompletedProcess:
    """A command with its stdout and stderr merged. Its own process group, so that a timeout ends
    every process it started. `capped`: keep at most sandboxing.OUTPUT_LIMIT bytes of its output (a
    submission's process may print without end)."""
    if STOPPING.is_set():  # a signal arrived: start nothing new (gradebook's other threads)
        raise Terminated(signal.SIGTERM)
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    except FileNotFoundError:
        raise ToolError(f"{cmd[0]} not found: install it or put it on PATH")
    with CHILDREN_LOCK:
        CHILDREN.add(proc.pid)
    try:
        out = sandboxing.read_capped(proc, timeout) if capped else proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired as expired:
        os.killpg(proc.pid, signal.SIGKILL)
        out = (expired.output or b"") + proc.communicate()[0] if capped else proc.communicate()[0]
        result = subprocess.CompletedProcess(cmd, -signal.SIGKILL, out.decode(errors="replace"))
        result.timed_out = True
        return result
    except BaseException:  # a signal (Terminated, KeyboardInterrupt): its whole group goes with us
        end_group(proc.pid)  # SIGTERM first: a compiler removes its temporary files, a SIGKILLed one does not
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            end_group(proc.pid, signal.SIGKILL)
            proc.wait()
        deadline = time.monotonic() + 3
        while group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        end_group(proc.pid, signal.SIGKILL)
        raise
    finally:
        with CHILDREN_LOCK:
            CHILDREN.discard(proc.pid)
    result = subprocess.CompletedProcess(cmd, proc.returncode, out.decode(errors="replace"))
    result.timed_out = False
    if check and proc.returncode != 0:
        raise ToolError(f"{' '.join(map(str, cmd))} failed (exit {proc.returncode}): {last_line(result.stdout)}")
    return result


# Every command run() started and that still runs: its own process group (start_new_session), so a
# signal to this program does not reach it by itself. on_signal ends them all (issue 31, item 11).
CHILDREN: set[int] = set()
CHILDREN_LOCK = threading.Lock()
STOPPING = threading.Event()


class Terminated(BaseException):
    """SIGTERM, SIGHUP or SIGINT: unwinds like KeyboardInterrupt, so every `finally` removes its
    temporary folder, after the children's process groups were ended."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def remove_temporary(folder: Path, patience: float = 5.0) -> None:
    """Removes a temporary folder this program made, again while something still writes into it: a sandboxed
    process ends with its PID namespace, a moment after the sandbox it ran in (a compiler or ccache killed by
    a signal may finish one last file meanwhile), so one pass can leave the folder behind."""
    deadline = time.monotonic() + patience
    while True:
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.lexists(folder) or time.monotonic() > deadline:
            return
        time.sleep(0.1)


def end_group(pid: int, signum: int = signal.SIGTERM) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def on_signal(signum, frame) -> None:
    STOPPING.set()
    with CHILDREN_LOCK:
        running = list(CHILDREN)
    for pid in running:
        end_group(pid)
    raise Terminated(signum)


def last_line(text: str) -> str:
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "(no output)"


def git_head(folder: Path) -> str | None:
    if not (folder / ".git").exists() or not shutil.which("git"):
        return None
    result = run(["git", "-C", str(folder), "rev-parse", "HEAD"])
    return result.stdout.strip() if result.returncode == 0 else None
