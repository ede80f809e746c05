#!/usr/bin/env bash
# LAMMPS built for this CPU, for the chapter's side-by-side benchmark (bench.sh's `lammps_native` rows).
#   bash 01_critical_vs_triangle/lammps_native_build.sh <out_dir>          (run from the repository root)
# Builds LAMMPS from the source in the bundle (.lammps/lammps-src.tar.xz, written by lammps_bundle.sh) with
# -O3 -march=native and the packages in.lj can use: OPENMP, OPT and INTEL (INTEL_ARCH=cpu). MPI comes from the
# bundle's mpich (its mpicxx, mpi.h and libmpi.so.12) when the bundle has them, else the build is serial +
# OpenMP (LAMMPS' STUBS). Nothing is downloaded: every input is in .lammps/.
# If INTEL does not configure or compile with this compiler, the first error lines are recorded and LAMMPS is
# built again without INTEL. Writes:
#   <out_dir>/lmp                 the binary (absent when the build failed or ran out of time)
#   <out_dir>/native_build.json   what was built: source, compiler, flags, packages, MPI, INTEL's fate, seconds
# Wall-time cap: LAMMPS_NATIVE_CAP_S seconds in all (default 300); jobs: LAMMPS_NATIVE_JOBS (default nproc).
# Compiler: $CXX if set, else c++. Exit 0 with an "ok": false record when the build fails (bench.sh goes on
# without the native rows); exit 2 for bad usage.
set -euo pipefail
out=${1:?usage: lammps_native_build.sh <out_dir>}
root=$(pwd)
[[ -f "$root/01_critical_vs_triangle/bench.sh" ]] || { echo "lammps_native_build.sh: run it from the repository root" >&2; exit 2; }
cap=${LAMMPS_NATIVE_CAP_S:-300} jobs=${LAMMPS_NATIVE_JOBS:-$(nproc)}
[[ "$cap" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "lammps_native_build.sh: LAMMPS_NATIVE_CAP_S must be seconds 1..99999, got '$cap'" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "lammps_native_build.sh: LAMMPS_NATIVE_JOBS must be a count, got '$jobs'" >&2; exit 2; }
source_tar="$root/.lammps/lammps-src.tar.xz"
[[ -f "$source_tar" ]] || { echo "lammps_native_build.sh: $source_tar missing (run lammps_bundle.sh)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/lmp" "$out/native_build.json"
start=$SECONDS
cxx=${CXX:-c++}
flags="-O3 -march=native -DNDEBUG"

record() {  # record <ok> <mpi> <packages> <intel_json>: the build's facts as JSON
  python3 - "$out/native_build.json" "$1" "$2" "$3" "$4" "$cxx" "$flags" "$((SECONDS - start))" "$jobs" \
    "$(cat "$out/src/VERSION" 2>/dev/null || echo unknown)" <<'PY'
import json, subprocess, sys
path, ok, mpi, packages, intel, cxx, flags, seconds, jobs, source = sys.argv[1:]
try:
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
except (OSError, IndexError):
    version = "unknown"
json.dump({"ok": ok == "1", "source": source, "compiler": f"{cxx} ({version})", "flags": flags,
           "packages": [p for p in packages.split(",") if p], "mpi": mpi,
           "intel": json.loads(intel), "build_seconds": int(seconds), "jobs": int(jobs)},
          open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
}

# The source, and MPI from the bundle's mpich when it has the headers.
rm -rf "$out/src" "$out/build"
mkdir -p "$out/src"
tar -xJf "$source_tar" -C "$out/src" --strip-components=1
mpi="serial (STUBS)"
mpi_args=(-D BUILD_MPI=OFF)
bundle=$("$root/.lammps/bundle_dir" 2>/dev/null || true)
if [[ -n "$bundle" && -f "$bundle/include/mpi.h" && -x "$bundle/bin/mpicxx" && -e "$bundle/lib/libmpi.so" ]]; then
  # mpich's mpicxx finds its prefix from its own folder and calls $MPICH_CXX: our compiler.
  export MPICH_CXX=$cxx
  mpi="mpich $(cat "$bundle/VERSION" 2>/dev/null | sed -n 's/.*mpich==\([^ ]*\).*/\1/p')"
  mpi_args=(-D BUILD_MPI=ON -D MPI_CXX_COMPILER="$bundle/bin/mpicxx")
fi

left() { echo $((cap - (SECONDS - start))); }
build() {  # build <intel ON|OFF> <log>: configure and compile in $out/build; 0 when lmp was linked
  local intel=$1 log=$2
  rm -rf "$out/build"
  (( $(left) > 5 )) || { echo "no time left" > "$log"; return 1; }
  timeout "$(left)" cmake -S "$out/src/cmake" -B "$out/build" -G Ninja \
    -D CMAKE_BUILD_TYPE=Release -D CMAKE_CXX_COMPILER="$cxx" -D CMAKE_CXX_FLAGS_RELEASE="$flags" \
    -D BUILD_SHARED_LIBS=OFF -D BUILD_OMP=ON -D BUILD_TOOLS=OFF -D DOWNLOAD_POTENTIALS=OFF \
    -D WITH_JPEG=OFF -D WITH_PNG=OFF -D WITH_GZIP=OFF -D WITH_FFMPEG=OFF -D WITH_CURL=OFF \
    -D PKG_OPENMP=ON -D PKG_OPT=ON -D PKG_INTEL="$intel" -D INTEL_ARCH=cpu "${mpi_args[@]}" > "$log" 2>&1 || return 1
  (( $(left) > 5 )) || { echo "no time left" >> "$log"; return 1; }
  timeout "$(left)" cmake --build "$out/build" --target lmp -- -j "$jobs" >> "$log" 2>&1 || return 1
  [[ -x "$out/build/lmp" ]]
}
first_errors() {  # the first error lines of a log, for the record
  { grep -m3 -E 'error|Error|ERROR' "$1" || tail -n 3 "$1"; } | cut -c1-300 | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))'
}

echo "lammps_native_build.sh: $(cat "$out/src/VERSION" 2>/dev/null) with $cxx $flags, $mpi, $jobs jobs, cap $cap s"
if build ON "$out/build_intel.log"; then
  packages=OPENMP,OPT,INTEL intel='{"built": true}'
else
  status=$([[ $(left) -gt 5 ]] && echo failed || echo "ran out of time")
  reason=$(first_errors "$out/build_intel.log")
  echo "lammps_native_build.sh: with INTEL: $status after $((SECONDS - start)) s: $reason; building without INTEL"
  intel="{\"built\": false, \"why\": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1] + ": " + json.loads(sys.argv[2])))' "$status" "$reason")}"
  if build OFF "$out/build_plain.log"; then
    packages=OPENMP,OPT
  else
    echo "lammps_native_build.sh: without INTEL too: $(first_errors "$out/build_plain.log")"
    record 0 "$mpi" "" "$intel"
    exit 0
  fi
fi
ln -sf "$out/build/lmp" "$out/lmp"
record 1 "$mpi" "$packages" "$intel"
echo "lammps_native_build.sh: built $out/lmp ($packages, $mpi) in $((SECONDS - start)) s"
