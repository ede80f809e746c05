"""results_fields.py: the results file says which CPU ran and which vector clone its loops used.

    python3 results_fields.py PROGRAM OUT.json     run the program on a small system, then check OUT.json
    python3 results_fields.py --check FILE.json    check a results file already written (e.g. a committed one)
    python3 results_fields.py --baseline PROGRAM OUT.json   the same for critical_vs_triangle_baseline, the build
                                                   without clones (MD_NO_VECTOR_CLONES): every isa is baseline

The lesson's sentence about the vectorized loop ("the avx512 clone, 8 doubles a vector") is generated from
these fields, so they must be there and true:
- header `cpu_model`: /proc/cpuinfo's model name; `cpu_vector_extensions`: a list of extension names, each of
  which /proc/cpuinfo lists among its flags;
- every row's `isa` is baseline, avx2 or avx512; full_list_vectorized's (the one strategy built with
  MD_VECTOR_CLONES) is the clone GCC's resolver picks for this CPU, worked out here independently from the
  kernel's flags: x86-64-v4's features -> avx512, else x86-64-v3's -> avx2, else baseline; the strategies
  built once all share one isa; the config's `list_build_isa` (the neighbour build's cloned distance pass)
  equals full_list_vectorized's. The baseline build (issue 32's same-instruction-set rows) runs the baseline
  everywhere, whatever the CPU: every row's isa and list_build_isa are "baseline".
Exit 1 naming each failure; a results file from before these fields fails (that is how to see it red)."""
import json
import pathlib
import platform
import subprocess
import sys
import tempfile

ISAS = {"baseline", "avx2", "avx512"}
CPUINFO_NAME = {"sse3": "pni"}  # the one extension the kernel's flags spell otherwise ("Prescott New Instructions")
# The feature levels of the clones (GCC's x86-64-v3 and -v4, as /proc/cpuinfo spells the flags).
X86_64_V2 = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}
X86_64_V3 = X86_64_V2 | {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
X86_64_V4 = X86_64_V3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}


def cpuinfo():
    """(model name, set of flags) of the first processor in /proc/cpuinfo, or (None, None) without it."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return None, None
    model = flags = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model is None:
            model = value.strip()
        if key.strip() == "flags" and flags is None:
            flags = set(value.split())
    return model, flags


def check(doc, baseline=False):
    failures = []
    model, flags = cpuinfo()
    if not isinstance(doc.get("cpu_model"), str) or not doc["cpu_model"]:
        failures.append(f"header cpu_model missing or empty: {doc.get('cpu_model')!r}")
    elif model is not None and doc["cpu_model"] != model:
        failures.append(f"header cpu_model {doc['cpu_model']!r} is not /proc/cpuinfo's {model!r}")
    ext = doc.get("cpu_vector_extensions")
    if not isinstance(ext, list) or not all(isinstance(e, str) and e for e in ext):
        failures.append(f"header cpu_vector_extensions missing or not a list of names: {ext!r}")
    elif flags is not None:
        unknown = [e for e in ext if CPUINFO_NAME.get(e, e) not in flags]
        if unknown:
            failures.append(f"cpu_vector_extensions names {unknown}, which /proc/cpuinfo's flags do not list")
        if platform.machine() == "x86_64" and "sse2" not in ext:
            failures.append("cpu_vector_extensions lacks sse2, which every x86-64 CPU has")

    rows = [r for r in doc.get("rows", []) if r.get("strategy") != "lammps_omp"]
    if not rows:
        failures.append("no rows")
    for r in rows:
        if r.get("isa") not in ISAS:
            failures.append(f"row {r.get('strategy')} x{r.get('threads')}: isa {r.get('isa')!r} not one of {sorted(ISAS)}")
    vector = {r.get("isa") for r in rows if r.get("strategy") == "full_list_vectorized"}
    once = {r.get("isa") for r in rows if r.get("strategy") != "full_list_vectorized"}
    if len(once) > 1:
        failures.append(f"the strategies built once ran different instruction sets: {sorted(map(str, once))}")
    if len(vector) != 1:
        failures.append(f"full_list_vectorized rows: expected one isa, got {sorted(map(str, vector))}")
    elif baseline:
        if vector != {"baseline"} or once != {"baseline"}:
            failures.append(f"the baseline build recorded isa {sorted(map(str, vector | once))}, not only 'baseline'")
    elif platform.machine() == "x86_64" and flags is not None and "baseline" in once:
        # A build for the baseline (no -march): the resolver's choice follows the CPU's feature level.
        want = "avx512" if X86_64_V4 <= flags else "avx2" if X86_64_V3 <= flags else "baseline"
        got = next(iter(vector))
        if got != want:
            failures.append(f"full_list_vectorized recorded isa {got!r}; this CPU's flags give the {want!r} clone")
    config = doc.get("config", {})
    if config.get("list_build", "vectorized") == "vectorized" and len(vector) == 1 \
            and config.get("list_build_isa") != next(iter(vector)):
        failures.append(f"config list_build_isa {config.get('list_build_isa')!r} is not the bound clone's "
                        f"{next(iter(vector))!r}")
    return failures


def main(argv):
    baseline = len(argv) == 4 and argv[1] == "--baseline"
    if baseline:
        argv = argv[:1] + argv[2:]
    if len(argv) == 3 and argv[1] == "--check":
        doc = json.loads(pathlib.Path(argv[2]).read_text())
    elif len(argv) == 3:
        program, out = str(pathlib.Path(argv[1]).resolve()), pathlib.Path(argv[2]).resolve()
        out.unlink(missing_ok=True)
        # 8 cells (2,048 atoms), every strategy, teams of 1 and 2: a fraction of a second.
        with tempfile.TemporaryDirectory() as scratch:
            run = subprocess.run([program, "--cells", "8", "--steps", "0", "--reps", "1", "--warmup", "0",
                                  "--threads", "1,2", "--json", str(out)], cwd=scratch, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL: {program} exited {run.returncode}: {(run.stderr or run.stdout).strip()[-400:]}")
            return 1
        doc = json.loads(out.read_text())
    else:
        print(__doc__.splitlines()[2].strip() + "\n" + __doc__.splitlines()[3].strip(), file=sys.stderr)
        return 2
    failures = check(doc, baseline)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"ok: cpu_model {doc['cpu_model']!r}, extensions {' '.join(doc['cpu_vector_extensions'])}, "
              f"full_list_vectorized isa {next(r['isa'] for r in doc['rows'] if r['strategy'] == 'full_list_vectorized')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
