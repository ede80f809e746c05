"""Running a submission's code in a bubblewrap sandbox (issue 30).

Every process that runs or compiles student code (the build, the test binaries, the timed program) is
started through `Sandbox.wrap`, which sees:

- the system folders read-only (/usr, /etc, the /lib links), the CUDA toolkit and the header
  dependencies (CMAKE_PREFIX_PATH, <instructor tree>/.deps) read-only;
- the graded copy of the submission (read-only for tests and timings; writable for the build, which
  must write its build folder) and the folders the caller names writable;
- nothing else: no home folder, no instructor tree (a tmpfs is laid over it wherever it lies under a
  folder the sandbox shows), no other submission (they live in /tmp, which is a private tmpfs);
- no network (--unshare-net), its own PID namespace (--unshare-pid, --die-with-parent: when the
  command ends or the grader kills it, every process it started, double-forked or not, ends with it),
  a fresh /proc that shows only those processes, a fresh /dev unless the GPU's device nodes are needed;
- limits: address space (not where CUDA runs: CUDA reserves terabytes of virtual addresses), the size
  of any file written; the caller limits the time and reads at most `OUTPUT_LIMIT` bytes of output.

Where bubblewrap is missing or cannot create namespaces (a container without user namespaces),
`find` says why and the grader refuses to grade unless told --no-sandbox.
"""
from __future__ import annotations

import dataclasses
import os
import selectors
import shutil
import subprocess
import time
from pathlib import Path

MEMORY_LIMIT_MB = 8192        # address space of each sandboxed process, CPU-only grading
FILE_LIMIT_MB = 1024          # the largest file a sandboxed process may write
TMP_LIMIT_MB = 4096           # the private /tmp (a tmpfs: memory) of each sandboxed process
OUTPUT_LIMIT = 8 * 2**20      # bytes of a sandboxed command's output the grader keeps (head + tail)
OUTPUT_HEAD = 64 * 2**10      # of which the first bytes; the rest is the output's end
SYSTEM_FOLDERS = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Environment variables that reach sandboxed code; everything else (tokens, the instructor's paths) stays out.
ENV_KEEP = ("PATH", "LANG", "LC_ALL", "TERM", "LD_LIBRARY_PATH", "CUDACXX", "CC", "CXX", "CUDA_HOME",
            "CUDA_PATH", "CMAKE_PREFIX_PATH", "REQUIRE_GPU", "OMP_NUM_THREADS")
ENV_PREFIXES = ("COURSE_", "CCACHE_", "CMAKE_", "CUDA_", "NVIDIA_", "OMP_", "ASAN_", "UBSAN_")


def find_bwrap(root: Path) -> str | None:
    """bwrap on PATH, else the copy carried with the tree to a machine without it (<root>/.deps/usr/bin)."""
    found = shutil.which("bwrap")
    if found:
        return found
    carried = root / ".deps" / "usr" / "bin" / "bwrap"
    return str(carried) if carried.is_file() and os.access(carried, os.X_OK) else None


def probe(bwrap: str | None) -> str | None:
    """None when bwrap can make the sandbox here, else one line saying why not."""
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
           "--dev", "/dev", "true"]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap ({bwrap}) did not run: {error}"
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap ({bwrap}) cannot create namespaces here: {why}"
    return None


def ccache_dir() -> Path | None:
    """The compiler cache's folder (the build writes it), when ccache is installed."""
    if os.environ.get("CCACHE_DIR"):
        return Path(os.environ["CCACHE_DIR"])
    if not shutil.which("ccache"):
        return None
    try:
        out = subprocess.run(["ccache", "-k", "cache_dir"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout.strip()
    return Path(text) if out.returncode == 0 and text else None


# The build and test tools the graded steps start. Where one lives outside the system folders (the GPU
# machines' image has CMake and Python in a virtual environment under /opt), its prefix is shown
# read-only too, or the sandboxed configure fails with "failed to execute cmake".
BUILD_TOOLS = ("cmake", "ctest", "ninja", "python3", "compute-sanitizer")


def tool_prefixes() -> list[Path]:
    """The install prefix (the folder above bin/) of each compiler named by CC, CXX, CUDACXX or CUDAHOSTCXX
    and of each build tool on PATH, where it lies outside /usr and /etc, both
    as found and with links resolved (a virtual environment's bin/ links to its base interpreter)."""
    out: list[Path] = []
    # The compilers the environment names (the GPU image sets CXX=/opt/gcc/bin/g++) come first.
    named = [os.environ.get(var, "") for var in ("CC", "CXX", "CUDACXX", "CUDAHOSTCXX")]
    for tool in [*filter(None, named), *BUILD_TOOLS]:
        found = shutil.which(tool)
        if not found:
            continue
        for path in (Path(found).absolute(), Path(found).resolve()):
            prefix = path.parent.parent
            if not any(_under(prefix, Path(system)) for system in SYSTEM_FOLDERS) and prefix != Path("/"):
                if prefix not in out:
                    out.append(prefix)
    return out


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclasses.dataclass
class Sandbox:
    """How to wrap a command. `hidden`: folders no sandboxed process may see (the instructor's tree,
    the submissions), `public`: read-only folders it needs (toolkit, header dependencies)."""
    bwrap: str
    hidden: list[Path]
    public: list[Path]
    gpu: bool = False
    memory_mb: int = MEMORY_LIMIT_MB
    cache: Path | None = None

    @classmethod
    def for_grading(cls, bwrap: str, root: Path, hidden: list[Path], gpu: bool) -> "Sandbox":
        public = []
        for entry in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep):
            if entry and Path(entry).is_dir():
                public.append(Path(entry).resolve())
        if (root / ".deps").is_dir():
            public.append((root / ".deps").resolve())
        nvcc = shutil.which("nvcc")
        if nvcc:
            public.append(Path(nvcc).resolve().parent.parent)
        public += tool_prefixes()
        return cls(bwrap, [Path(h).resolve() for h in [root, *hidden]], public, gpu, cache=ccache_dir())

    def wrap(self, cmd: list[str], tree: Path, writable: list[Path] = (), chdir: Path | None = None,
             build: bool = False) -> list[str]:
        """`cmd` run in the sandbox. `tree`: the graded copy (writable when `build`), `writable`: folders
        the command may write besides its private /tmp."""
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
        args += self._filesystem(Path(tree).resolve(), [Path(w).resolve() for w in writable], build)
        for key, value in sorted(os.environ.items()):
            if key in ENV_KEEP or key.startswith(ENV_PREFIXES):
                args += ["--setenv", key, value]
        args += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        if build and self.cache:
            args += ["--setenv", "CCACHE_DIR", str(self.cache)]
        args += ["--chdir", str(chdir or tree)]
        return args + ["--", *self._limits(), *cmd]

    def _filesystem(self, tree: Path, writable: list[Path], build: bool) -> list[str]:
        args = []
        for folder in SYSTEM_FOLDERS:
            if os.path.isdir(folder):
                args += ["--ro-bind", folder, folder]
        for link in SYSTEM_LINKS:
            if os.path.islink(link):
                args += ["--symlink", os.readlink(link), link]
            elif os.path.isdir(link):
                args += ["--ro-bind", link, link]
        # A private /tmp of bounded size (it is memory): a submission cannot fill the machine's RAM through it.
        args += ["--size", str(TMP_LIMIT_MB * 2**20), "--tmpfs", "/tmp", "--proc", "/proc"]
        if self.gpu:  # the GPU's device nodes; /dev/shm its own, not a channel to the next submission
            args += ["--dev-bind", "/dev", "/dev", "--tmpfs", "/dev/shm", "--ro-bind", "/sys", "/sys"]
        else:
            args += ["--dev", "/dev"]
        outside = [f for f in self.public if not any(_under(f, Path(s)) for s in SYSTEM_FOLDERS)]
        inside_hidden = [f for f in self.public if any(_under(f, h) for h in self.hidden)]
        for folder in outside:
            args += ["--ro-bind", str(folder), str(folder)]
        shown = [Path(f) for f in (*SYSTEM_FOLDERS, *SYSTEM_LINKS)] + self.public
        for hidden in self.hidden:  # a tmpfs over the hidden tree wherever a shown folder holds it
            if hidden.is_dir() and any(_under(hidden, s) for s in shown):
                args += ["--tmpfs", str(hidden)]
        for folder in inside_hidden:  # a dependency folder inside the hidden tree (<root>/.deps) stays shown
            args += ["--ro-bind", str(folder), str(folder)]
        args += ["--bind" if build else "--ro-bind", str(tree), str(tree)]
        if build and self.cache:
            self.cache.mkdir(parents=True, exist_ok=True)
            writable = [*writable, self.cache]
        for folder in writable:
            folder.mkdir(parents=True, exist_ok=True)
            args += ["--bind", str(folder), str(folder)]
        return args

    def _limits(self) -> list[str]:
        fsize = FILE_LIMIT_MB * 2**20
        prlimit = shutil.which("prlimit")
        if prlimit:
            limits = [f"--fsize={fsize}"]
            if not self.gpu:
                limits.append(f"--as={self.memory_mb * 2**20}")
            return [prlimit, *limits, "--"]
        return []


def read_capped(proc: subprocess.Popen, timeout: float | None, limit: int = OUTPUT_LIMIT) -> bytes:
    """The process's stdout, read until it closes, keeping at most `limit` bytes: the first OUTPUT_HEAD
    and the rest from the end, with a marker where the middle was dropped. Raises TimeoutExpired at the
    deadline (the caller kills the process). A test that prints without end costs no memory."""
    deadline = None if timeout is None else time.monotonic() + timeout
    fd = proc.stdout.fileno()
    head, tail_parts, tail_size, dropped = bytearray(), [], 0, 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout, output=_joined(head, tail_parts, dropped))
            if not selector.select(wait):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            if len(head) < OUTPUT_HEAD:
                take = OUTPUT_HEAD - len(head)
                head += chunk[:take]
                chunk = chunk[take:]
            tail_parts.append(chunk)
            tail_size += len(chunk)
            while tail_size > limit - OUTPUT_HEAD and tail_parts:
                excess = tail_size - (limit - OUTPUT_HEAD)
                first = tail_parts[0]
                cut = min(excess, len(first))
                tail_parts[0] = first[cut:]
                tail_size -= cut
                dropped += cut
                if not tail_parts[0]:
                    tail_parts.pop(0)
    output = _joined(head, tail_parts, dropped)
    try:
        proc.wait(timeout=None if deadline is None else max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired as expired:
        expired.output = output
        raise
    return output


def _joined(head: bytearray, tail_parts: list[bytes], dropped: int) -> bytes:
    marker = f"\n[... {dropped} bytes of output dropped by the grader ...]\n".encode() if dropped else b""
    return bytes(head) + marker + b"".join(tail_parts)


def describe(sandbox: Sandbox | None) -> str:
    """What a report says about where the submission's code ran."""
    if sandbox is None:
        return "none: graded without a sandbox (--no-sandbox); the submission's code could read and write " \
               "whatever the grader's user can"
    return (f"bubblewrap ({sandbox.bwrap}): the instructor's tree and other submissions hidden, the graded tree "
            "read-only to tests and timings, private /tmp, no network, own PID namespace")
