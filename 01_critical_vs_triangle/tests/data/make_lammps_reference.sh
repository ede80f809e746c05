#!/usr/bin/env bash
# Regenerates the LAMMPS reference of the trajectory test (test_lammps_trajectory.cpp); LAMMPS needed only here.
#   bash 01_critical_vs_triangle/tests/data/make_lammps_reference.sh [lmp] [in.lj]
#   (defaults: .lammps/lmp and .lammps/in.lj, from 01_critical_vs_triangle/lammps_bundle.sh)
# Writes, beside this script:
#   lj864.data        LAMMPS' state of in.lj right after `velocity ... create`, positions AND velocities
#                     (write_data, 17 significant digits: every double exact). in.lj itself, unchanged but
#                     for its box: `-var x 0.3 -var y 0.3 -var z 0.3` makes its `region box block 0 20*$x ...`
#                     a box of 6 fcc cells a side, 864 atoms instead of 32,000 (the 32,000-atom file would be
#                     about 5 MB; 6 cells is the smallest box whose half still exceeds Rc + skin = 2.8).
#   lj864_thermo.json LAMMPS' thermo every 10 steps over in.lj's 100 steps, run from that data file with in.lj's
#                     own force field, neighbour and integrator lines, printed with 17 significant digits; with
#                     the exact commands and the LAMMPS version.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
lmp=${1:-$root/.lammps/lmp}
in_lj=${2:-$root/.lammps/in.lj}
[[ -x "$lmp" ]] || { echo "make_lammps_reference.sh: no LAMMPS at $lmp (run lammps_bundle.sh or name lmp)" >&2; exit 2; }
[[ -f "$in_lj" ]] || { echo "make_lammps_reference.sh: no in.lj at $in_lj" >&2; exit 2; }
grep -q '^velocity' "$in_lj" && grep -q '^run' "$in_lj" || { echo "make_lammps_reference.sh: $in_lj has no velocity or run line" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. in.lj up to its velocity line, then write_data; nothing is run.
sed -n '1,/^velocity/p' "$in_lj" > "$work/write_state.lmp"
echo "write_data lj864.data" >> "$work/write_state.lmp"
# 2. The state read back, then in.lj's lines after `velocity` (pair, neighbour list, fix nve, run) with thermo
#    every 10 steps at full precision before its run line.
{
  echo "units lj"
  echo "atom_style atomic"
  echo "read_data lj864.data"
  sed -n '/^velocity/,$p' "$in_lj" | sed '1d' | sed '/^run/i thermo 10\nthermo_style custom step temp pe ke etotal press\nthermo_modify format float %.17g norm yes'
} > "$work/run_state.lmp"

var="-var x 0.3 -var y 0.3 -var z 0.3"
(cd "$work" && "$lmp" $var -in write_state.lmp -log write_state.log -screen none)
(cd "$work" && "$lmp" -in run_state.lmp -log run_state.log -screen none)
cp "$work/lj864.data" "$here/lj864.data"
python3 - "$work" "$here/lj864_thermo.json" "$var" "$(sha256sum "$in_lj" | cut -d' ' -f1)" <<'PY'
import json, os, re, sys
work, out, var, in_lj_sha256 = sys.argv[1:5]
log = open(os.path.join(work, "run_state.log")).read()
version = re.search(r"^LAMMPS \(([^)]*)\)", log, re.M).group(1)
rows, columns = [], None
for line in log.splitlines():
    if re.match(r"\s*Step\s", line):
        columns = [c.lower() for c in line.split()]
        continue
    if line.startswith("Loop time"):
        break
    if columns:
        fields = line.split()
        if len(fields) == len(columns):
            rows.append({c: (int(x) if c == "step" else float(x)) for c, x in zip(columns, fields)})
added = [line for line in open(os.path.join(work, "run_state.lmp")).read().splitlines()
         if line.startswith(("units", "atom_style", "read_data", "thermo"))]
doc = {"lammps_version": version,
       "in_lj_sha256": in_lj_sha256,
       "commands": [f"lmp {var} -in write_state.lmp", "lmp -in run_state.lmp"],
       "write_state.lmp": "in.lj up to and with its `velocity` line, then: write_data lj864.data",
       "run_state.lmp": "these lines, then in.lj's lines after its `velocity` line, with the thermo lines just "
                        "before its `run`: " + " | ".join(added),
       "note": "thermo per atom (norm yes): pe = E_pair, etotal = TotEng; press with the kinetic part; temp with "
               "3N-3 degrees of freedom",
       "thermo": rows}
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
os.replace(tmp, out)
print(f"wrote {out}: LAMMPS {version}, steps {[r['step'] for r in rows]}")
PY
