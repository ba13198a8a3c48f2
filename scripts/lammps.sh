#!/usr/bin/env bash
# LAMMPS 7Jan2022, built from Debian's source package into a cache outside the repository (core
# styles, PLUGIN, MPI, -O2 as LAMMPS's own default; about 8 minutes on 2 cores, once). Debian's own
# lmp lacks PLUGIN and its liblammps-dev headers are incomplete.
#   scripts/lammps.sh            the LAMMPS that loads the quasar plugin; prints its install
#                                prefix, whose src/ holds the headers a plugin is compiled against.
#   scripts/lammps.sh --builtin  the same LAMMPS with the quasar pair styles compiled in, linked to
#                                this checkout's build/ (made again, incrementally, on every call);
#                                prints its lmp.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
prefix=${QUASAR_LAMMPS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/lammps-20220106}
root=$prefix-build  # the source, and the build folder of the style compiled in
mode=${1:-plugin}
flags="-O2 -DNDEBUG"  # a cache built with other flags is built again
[ "$mode" = plugin ] && [ -x "$prefix/bin/lmp" ] && [ -f "$prefix/src/pair.h" ] &&
  [ "$(cat "$prefix/flags" 2>/dev/null)" = "$flags" ] && { echo "$prefix"; exit 0; }

fetch_source() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  local need=(dpkg-dev libopenmpi-dev openmpi-bin ninja-build) missing=() p
  for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if ! apt-get source --print-uris lammps >/dev/null 2>&1; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      $sudo tee /etc/apt/sources.list.d/quasar-deb-src.sources >/dev/null
    $sudo apt-get update -qq
  fi
  rm -rf "$root" && mkdir -p "$root"
  (cd "$root" && apt-get source -qq lammps >/dev/null 2>&1 && rm -f lammps_*)
}

trim_source() {  # keeps what a build of the style compiled in needs (53 MB of 342)
  rm -rf "$src"/{examples,bench,doc,potentials,tools,unittest}
}

# Both builds lie in $root beside the source and are compiled alike, so that ccache (with
# CCACHE_BASEDIR, paths relative) reuses the first one's objects for all files but the style's.
configure() {  # build folder, then more cmake options
  local build=$1; shift
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CCACHE_BASEDIR=$root /usr/bin/cmake -S "$src/cmake" -B "$build" -G Ninja -DPKG_PLUGIN=ON -DBUILD_MPI=ON \
    -DBUILD_OMP=OFF -DBUILD_SHARED_LIBS=ON -DLAMMPS_EXCEPTIONS=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="$flags" "${launcher[@]}" "$@" >/dev/null
  CCACHE_BASEDIR=$root /usr/bin/cmake --build "$build" -j"$(nproc)" >/dev/null
}

src=$(ls -d "$root"/lammps-*/ 2>/dev/null | head -1 || true)
if [ "$mode" = plugin ]; then
  fetch_source
  src=$(ls -d "$root"/lammps-*/ | head -1)
  configure "$root/build" -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_RPATH="$prefix/lib"
  /usr/bin/cmake --install "$root/build" >/dev/null
  mkdir -p "$prefix/src"
  cp "$src"/src/*.h "$prefix/src/"
  cp -r "$src/src/fmt" "$prefix/src/"
  echo "$flags" > "$prefix/flags"
  rm -rf "$root/build"
  trim_source
  echo "$prefix"
elif [ "$mode" = --builtin ]; then
  [ -f "$repo/build/quasar-lammps.cmake" ] || { echo "lammps.sh: build Quasar first (scripts/setup)" >&2; exit 1; }
  if [ -z "$src" ]; then fetch_source; src=$(ls -d "$root"/lammps-*/ | head -1); trim_source; fi
  for f in "$src"/src/pair_quasar*.{h,cpp}; do  # styles of an earlier checkout (pair_quasar_dp.*)
    [ -e "$f" ] && [ ! -e "$repo/lammps/$(basename "$f")" ] && rm -f "$f"
  done
  for f in pair_quasar.h pair_quasar.cpp; do  # copied only when changed: ninja goes by the time
    cmp -s "$repo/lammps/$f" "$src/src/$f" || cp "$repo/lammps/$f" "$src/src/$f"
  done
  configure "$root/builtin" -DCMAKE_PROJECT_INCLUDE="$repo/build/quasar-lammps.cmake"
  echo "$root/builtin/lmp"
else
  echo "usage: lammps.sh [--builtin]" >&2; exit 2
fi
