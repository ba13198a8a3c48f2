#!/usr/bin/env bash
# LAMMPS with the PLUGIN package and MPI, for the quasar/dp plugin and its tests: Debian's own lmp
# (7Jan2022) lacks PLUGIN and its liblammps-dev headers are incomplete, so this builds the same
# version from Debian's source package, once, into a cache outside the repository (core styles
# and PLUGIN only; about 6 minutes on 2 cores). Prints the install prefix; its src/ holds the
# headers a plugin is compiled against.
set -euo pipefail
prefix=${QUASAR_LAMMPS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/lammps-20220106}
if [ -x "$prefix/bin/lmp" ] && [ -f "$prefix/src/pair.h" ]; then echo "$prefix"; exit 0; fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need=(dpkg-dev libopenmpi-dev openmpi-bin ninja-build)
missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! apt-get source --print-uris lammps >/dev/null 2>&1; then
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
    $SUDO tee /etc/apt/sources.list.d/quasar-deb-src.sources >/dev/null
  $SUDO apt-get update -qq
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq lammps >/dev/null 2>&1)
src=$(ls -d "$work"/lammps-*/ | head -1)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=$work
/usr/bin/cmake -S "$src/cmake" -B "$work/build" -G Ninja -DPKG_PLUGIN=ON -DBUILD_MPI=ON -DBUILD_OMP=OFF \
  -DBUILD_SHARED_LIBS=ON -DLAMMPS_EXCEPTIONS=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_RPATH="$prefix/lib" "${launcher[@]}" >/dev/null
/usr/bin/cmake --build "$work/build" -j"$(nproc)" >/dev/null
/usr/bin/cmake --install "$work/build" >/dev/null
mkdir -p "$prefix/src"
cp "$src"/src/*.h "$prefix/src/"
cp -r "$src/src/fmt" "$prefix/src/"
echo "$prefix"
