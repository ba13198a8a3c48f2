#!/usr/bin/env bash
# Run here before a device call: builds the CUDA tree (tests and benchmarks, sm_90) and fills the
# ignored folder .gpu/ with what the GPU machine lacks: shared libraries, Debian's LAMMPS with its
# EAM files (the tests compare against it there too) and the reference data the tests read.
# Then call the device with carry [".gpu-pack/all.tar.xz"] and the command `tar xJf .gpu-pack/all.tar.xz &&
# bash bench/gpu-check.sh tests example` (`sanitize` as another call: it says why), and with
# [".gpu-pack/bench.tar.xz"] for `bash bench/gpu-check.sh bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
# QUASAR_GPU_PLUGIN=1: also the LAMMPS plugin, with the LAMMPS of scripts/lammps.sh in .gpu/lammps.
plugin=()
[ "${QUASAR_GPU_PLUGIN:-0}" = 1 ] && plugin=(-DQUASAR_LAMMPS_HEADERS="$(bash scripts/lammps.sh)/src")
# QUASAR_GPU_TREE=build takes the executables of the default build instead (it compiles the same
# sm_90 kernels when nvcc is found), copied into build-cuda/'s layout: no second build of everything.
if [ "${QUASAR_GPU_TREE:-build-cuda}" = build ]; then
  grep -q '^CMAKE_CUDA_COMPILER:' build/CMakeCache.txt || { echo "build/ has no CUDA backend"; exit 1; }
  cmake --build build -j2
  rm -rf build-cuda/tests build-cuda/bench && mkdir -p build-cuda/tests build-cuda/bench
  cp build/tests/*_test build-cuda/tests/ && cp build/bench/bench_* build-cuda/bench/ && cp build/quasar build-cuda/
  if [ "${QUASAR_GPU_PLUGIN:-0}" = 1 ]; then mkdir -p build-cuda/lammps && cp build/lammps/quasarplugin.so build-cuda/lammps/; fi
else
  cmake --preset cuda -DQUASAR_TESTS=ON -DQUASAR_BENCH=ON "${plugin[@]}" >/dev/null
  cmake --build build-cuda -j2
fi
rm -rf .gpu && mkdir -p .gpu/lib .gpu/bin .gpu/potentials
bins=(build-cuda/quasar build-cuda/tests/*_test build-cuda/bench/bench_*)
strip "${bins[@]}"  # the carry to the device is limited to 64 MB
# QUASAR_GPU_LAMMPS=0 leaves LAMMPS out (its libraries are most of the carry).
# The EAM files the tests read (small), with or without LAMMPS.
cp /usr/share/lammps/potentials/{Cu_u3.eam,Cu_mishin1.eam.alloy,CuNi.eam.alloy,AlCu.eam.alloy} .gpu/potentials/ 2>/dev/null || true
# QUASAR_GPU_BASELINE=PATH: another build's bench_md_bench (an earlier commit's) travels as
# .gpu/base/bench_md_bench, for bench/before-after.sh in the same device call.
if [ -n "${QUASAR_GPU_BASELINE:-}" ]; then
  mkdir -p .gpu/base
  cp "$QUASAR_GPU_BASELINE" .gpu/base/bench_md_bench
  strip .gpu/base/bench_md_bench
  bins+=(.gpu/base/bench_md_bench)
fi
if [ "${QUASAR_GPU_LAMMPS:-1}" = 1 ] && command -v lmp >/dev/null; then
  cp /usr/bin/lmp .gpu/bin/
  bins+=(/usr/bin/lmp)
fi
if [ "${QUASAR_GPU_PLUGIN:-0}" = 1 ]; then
  lammps=$(bash scripts/lammps.sh)
  mkdir -p .gpu/lammps
  cp -r "$lammps/bin" "$lammps/lib" .gpu/lammps/
  strip .gpu/lammps/bin/lmp .gpu/lammps/lib/liblammps.so.0 build-cuda/lammps/quasarplugin.so
  bins+=(.gpu/lammps/bin/lmp build-cuda/lammps/quasarplugin.so)
fi
# Reference data the tests read (small files only).
if [ -d ../shared/reference/deepmd ]; then
  mkdir -p .gpu/shared/reference/deepmd
  cp ../shared/reference/deepmd/*.{yaml,json} .gpu/shared/reference/deepmd/
  cp -r ../shared/reference/deepmd/water-data .gpu/shared/reference/deepmd/  # 2 MB
  mkdir -p .gpu/shared/reference/deepmd/bench
  cp ../shared/reference/deepmd/bench/water-se_e2_a-bench.dp .gpu/shared/reference/deepmd/bench/
  [ "${QUASAR_GPU_COPPER:-0}" = 1 ] && cp ../shared/reference/deepmd/bench/copper-se_e2_a-bench.dp .gpu/shared/reference/deepmd/bench/
fi
# n2p2's examples and training sets (5 MB; the tests build their paths from the folder names).
# AMOEBA's Tinker cases and GW's Si-EPM inputs, which the tests name through helpers, and AMOEBA's
# benchmark systems for bench/amoeba-bench.sh (about 5 MB).
for rel in amoeba/tinker-test-file amoeba/tinker-test-ref amoeba/liquid-water amoeba/params amoeba/bench gw; do
  if [ -e "../shared/reference/$rel" ]; then
    mkdir -p ".gpu/shared/reference/$(dirname "$rel")"
    cp -r "../shared/reference/$rel" ".gpu/shared/reference/$rel"
  fi
done
if [ -d ../shared/reference/n2p2 ]; then
  mkdir -p .gpu/shared/reference
  cp -r ../shared/reference/n2p2 .gpu/shared/reference/
fi
# And every ../shared path a test names (test::shared_path("...")), so that new tests find their data
# there too (a test that skips for want of it fails bench/gpu-check.sh); the copper model only as above.
root=$PWD
mkdir -p .gpu/shared
grep -ohE 'shared_path\("[^"]+"\)' tests/*.cpp tests/*.hpp | sed -E 's/shared_path\("(.*)"\)/\1/' | sort -u |
  while read -r rel; do
    if [ -e "../shared/$rel" ] && [[ $rel != *copper-se_e2_a-bench.dp ]]; then
      (cd ../shared && cp -r --parents "$rel" "$root/.gpu/shared/")
    fi
  done
# QUASAR_GPU_PYTHON=1: what `pip install .` needs there beyond the machine's Python (3.12 with numpy,
# scipy, pytest): the build backends and ASE as wheels, toml++ (headers, library, CMake file) and the
# numerical libraries' headers.
if [ "${QUASAR_GPU_PYTHON:-0}" = 1 ]; then
  pip=${XDG_CACHE_HOME:-$HOME/.cache}/quasar/python/bin/pip  # scripts/python.sh made it
  "$pip" download -q --no-deps --only-binary=:all: --python-version 3.12 -d .gpu/py/wheels \
    scikit-build-core nanobind pathspec 'ase>=3.23'
  lib=.gpu/py/prefix/lib/x86_64-linux-gnu
  mkdir -p .gpu/py/prefix/include "$lib/cmake"
  cp -r /usr/include/toml++ .gpu/py/prefix/include/
  # FFTW's, CBLAS's and LAPACKE's headers: the machine has the libraries (gpu-machine-sonames.txt); its
  # headers are not known to be there.
  cp /usr/include/{fftw3.h,lapack.h,lapacke.h,lapacke_config.h,lapacke_mangling.h} \
     /usr/include/x86_64-linux-gnu/openblas-pthread/{cblas.h,openblas_config.h} .gpu/py/prefix/include/
  cp -P /usr/lib/x86_64-linux-gnu/libtomlplusplus.so* "$lib/"
  cp -r /usr/lib/x86_64-linux-gnu/cmake/tomlplusplus "$lib/cmake/"
fi
../shared/tools/collect-libs .gpu/lib "${bins[@]}"
du -sh .gpu build-cuda/tests build-cuda/bench | sed 's/^/unpacked: /'
# Two packs, since the carry (with the working tree) is limited to 64 MiB: the tests in all.tar.xz
# (for `gpu-check.sh tests example sanitize`), the benchmarks in bench.tar.xz (`gpu-check.sh bench`).
mkdir -p .gpu-pack
pack=(.gpu build-cuda/tests build-cuda/quasar)
[ -f build-cuda/lammps/quasarplugin.so ] && pack+=(build-cuda/lammps/quasarplugin.so)
# One thread and a 1 GiB dictionary: every binary links the same library, so one dictionary over all
# of them halves the size (38 MB against 62 MB with -9 -T0, whose blocks each start afresh).
pack_xz() { xz -T1 --lzma2=preset=6,dict=1GiB; }
tar cf - "${pack[@]}" | pack_xz > .gpu-pack/all.tar.xz
tar cf - .gpu build-cuda/bench build-cuda/quasar | pack_xz > .gpu-pack/bench.tar.xz
du -sh .gpu-pack/all.tar.xz .gpu-pack/bench.tar.xz | sed 's/^/carry: /'
