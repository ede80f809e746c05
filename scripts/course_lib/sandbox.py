"""Running a submission's code in a bubblewrap sandbox (issues 30 and 40).

Every process that runs or compiles student code (the build, the test binaries, the timed program) is
started through `Sandbox.wrap`, which sees:

- the system folders read-only (/usr, /etc, the /lib links), the CUDA toolkit and the header
  dependencies (CMAKE_PREFIX_PATH, <instructor tree>/.deps) read-only;
- the graded copy of the submission, read-only always (the graded tree is the grader's: issue 40), its
  build folder writable to the build alone, and the folders the caller names writable;
- nothing else: no home folder, no instructor tree (a tmpfs is laid over it wherever it lies under a
  folder the sandbox shows), no other submission (they live in /tmp, which is a private tmpfs);
- no network (--unshare-net), its own PID namespace (--unshare-pid, --die-with-parent: when the
  command ends or the grader kills it, every process it started, double-forked or not, ends with it),
  a fresh /proc that shows only those processes, a fresh /dev unless the GPU's device nodes are needed;
- no privilege (issue 40): the command runs as the unprivileged user SANDBOX_UID with no capability and
  no_new_privs (no set-uid program can give one back). Where the grader runs as root (CI, the GPU
  machines), bubblewrap sets the mounts up as root and `setpriv`, the sandbox's first command, drops to
  that user in the machine's own user namespace, so that the kernel sees uid 65534 too (a root-mapped id
  without capabilities could still read root's own 0600 files through the read-only /etc); elsewhere
  bubblewrap's own user namespace maps the grader's user to SANDBOX_UID, with every capability dropped;
- limits: processes, address space (not where CUDA runs: CUDA reserves terabytes of virtual addresses),
  the size of any file written, open files, no core files; the caller limits the time and reads at most
  `OUTPUT_LIMIT` bytes of output.

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
PROCESS_LIMIT = 4096          # processes and threads of the sandbox user (a fork bomb stops there)
OPEN_FILES_LIMIT = 4096
SANDBOX_UID = 65534           # `nobody`: owns nothing on the machine but what the grader hands it
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
    if os.geteuid() == 0 and not os.access(SETPRIV, os.X_OK):
        return f"{SETPRIV} (util-linux) is missing: as root the sandbox drops to an unprivileged user with it"
    cmd = Sandbox(bwrap, [], []).wrap(["true"], Path("/usr"))
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap ({bwrap}) did not run: {error}"
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap ({bwrap}) cannot create namespaces here: {why}"
    return None


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


def _parents_for(mounts: list[str]) -> list[str]:
    """`--dir` (mode 0755) for every folder above a mount point that bubblewrap would otherwise create with
    the mode of the folder outside: a work folder made by mkdtemp (0700, root's) would shut the sandbox user
    out of everything bound below it."""
    targets = []
    i = 0
    while i < len(mounts):
        option = mounts[i]
        if option in ("--ro-bind", "--bind", "--dev-bind"):
            targets.append(Path(mounts[i + 2]))
            i += 3
        elif option == "--tmpfs":
            targets.append(Path(mounts[i + 1]))
            i += 2
        else:
            i += 1
    mounted = set(targets)
    parents: list[Path] = []
    for target in targets:
        for parent in reversed(target.parents):
            if parent in (Path("/"), Path("/tmp")) or parent in mounted or parent in parents:
                continue
            if any(_under(parent, Path(system)) for system in (*SYSTEM_FOLDERS, "/proc", "/dev", "/sys")):
                continue
            parents.append(parent)
    args: list[str] = []
    for parent in parents:
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


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
        # No compiler cache here: a grade gives each submission its own (grading.grade_tree).
        return cls(bwrap, [Path(h).resolve() for h in [root, *hidden]], public, gpu)

    def wrap(self, cmd: list[str], tree: Path, writable: list[Path] = (), chdir: Path | None = None,
             build: bool = False) -> list[str]:
        """`cmd` run in the sandbox. `tree`: the graded copy (read-only), `writable`: folders the command may
        write besides its private /tmp (a build's build folder). `build`: the compiler cache is writable too."""
        writable = [Path(w).resolve() for w in writable]
        if build and self.cache:
            writable.append(Path(self.cache).resolve())
        as_root = os.geteuid() == 0
        args = [self.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
        if not as_root:  # bubblewrap's own user namespace: the grader's user seen as SANDBOX_UID, no capability
            args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
        args += self._filesystem(Path(tree).resolve(), writable)
        for key, value in sorted(os.environ.items()):
            if key in ENV_KEEP or key.startswith(ENV_PREFIXES):
                args += ["--setenv", key, value]
        args += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        if self.cache:  # the submission's own cache, never the instructor's (CCACHE_DIR of the grader)
            args += ["--setenv", "CCACHE_DIR", str(Path(self.cache).resolve())]
        args += ["--chdir", str(chdir or tree)]
        drop = []
        if as_root:
            hand_over(writable)
            drop = [SETPRIV, f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        return args + ["--", *drop, *self._limits(), *cmd]

    def _filesystem(self, tree: Path, writable: list[Path]) -> list[str]:
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
        args += ["--size", str(TMP_LIMIT_MB * 2**20), "--perms", "1777", "--tmpfs", "/tmp", "--proc", "/proc"]
        if self.gpu:  # the GPU's device nodes; /dev/shm its own, not a channel to the next submission
            args += ["--dev-bind", "/dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm", "--ro-bind", "/sys", "/sys"]
        else:
            args += ["--dev", "/dev"]
        mounts: list[str] = []
        outside = [f for f in self.public if not any(_under(f, Path(s)) for s in SYSTEM_FOLDERS)]
        inside_hidden = [f for f in self.public if any(_under(f, h) for h in self.hidden)]
        for folder in outside:
            mounts += ["--ro-bind", str(folder), str(folder)]
        shown = [Path(f) for f in (*SYSTEM_FOLDERS, *SYSTEM_LINKS)] + self.public
        for hidden in self.hidden:  # a tmpfs over the hidden tree wherever a shown folder holds it
            if hidden.is_dir() and any(_under(hidden, s) for s in shown):
                mounts += ["--tmpfs", str(hidden)]
        for folder in inside_hidden:  # a dependency folder inside the hidden tree (<root>/.deps) stays shown
            mounts += ["--ro-bind", str(folder), str(folder)]
        mounts += ["--ro-bind", str(tree), str(tree)]
        for folder in writable:
            folder.mkdir(parents=True, exist_ok=True)
            mounts += ["--bind", str(folder), str(folder)]
        return args + _parents_for(mounts) + mounts

    def _limits(self) -> list[str]:
        fsize = FILE_LIMIT_MB * 2**20
        prlimit = shutil.which("prlimit")
        if prlimit:
            limits = [f"--fsize={fsize}", f"--nproc={PROCESS_LIMIT}", f"--nofile={OPEN_FILES_LIMIT}", "--core=0"]
            if not self.gpu:
                limits.append(f"--as={self.memory_mb * 2**20}")
            return [prlimit, *limits, "--"]
        return []


SETPRIV = "/usr/bin/setpriv"  # util-linux: the drop to SANDBOX_UID where the grader is root


def hand_over(folders: list[Path]) -> None:
    """Makes `folders` (and everything in them) the sandbox user's: the only places a sandboxed process
    running as SANDBOX_UID may write. Only the grader's own scratch folders are passed here."""
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        os.chown(folder, SANDBOX_UID, SANDBOX_UID)
        for parent, subfolders, files in os.walk(folder):
            for name in subfolders + files:
                try:
                    os.chown(os.path.join(parent, name), SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)
                except FileNotFoundError:
                    pass


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
    return (f"bubblewrap ({sandbox.bwrap}): as uid {SANDBOX_UID} without capabilities; the instructor's tree and "
            "other submissions hidden, the graded tree read-only, private /tmp, no network, own PID namespace")
