#!/usr/bin/env bash
# The Python package on the GPU machine (after QUASAR_GPU_PYTHON=1 bash bench/gpu-prepare.sh here;
# carry .gpu and build-cuda/quasar): `pip install .` there, which compiles the CUDA backend with the
# machine's nvcc, then tests/python, the GPU test included. Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# The system compiler, not /opt/gcc/bin/g++ (first in PATH there): that wrapper links shared libraries with
# -Bsymbolic (its link spec), so the extension binds its own copies of inline statics that must be shared
# with libstdc++; built that way it segfaulted under pytest there (in std::regex, later in TOML parsing).
export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
# The extension links the machine's own libraries; .gpu/lib (Debian's, for the quasar command the
# tests compare with) is for that command alone.
export LD_LIBRARY_PATH=$PWD/.gpu/py/prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
exe=$(mktemp -d)/quasar
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$PWD/.gpu/lib:$LD_LIBRARY_PATH" "$PWD/build-cuda/quasar" > "$exe"
chmod +x "$exe"
python3 -m pip install -q --no-deps --no-index --find-links .gpu/py/wheels scikit-build-core nanobind pathspec ase
if ! CMAKE_PREFIX_PATH=$PWD/.gpu/py/prefix CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install -v \
  --no-build-isolation --no-index -C cmake.version=">=3.24" . > "$out/pip-install.log" 2>&1; then
  tail -40 "$out/pip-install.log"
  exit 1
fi
grep -E "CUDA compiler identification" "$out/pip-install.log"
# The reference data gpu-prepare.sh put in .gpu/shared (../shared does not travel).
[ -d .gpu/shared ] && export QUASAR_SHARED=$PWD/.gpu/shared
QUASAR_EXE=$exe QUASAR_LAMMPS_POTENTIALS=$PWD/.gpu/potentials \
  python3 -m pytest -q -rs tests/python 2>&1 | tee "$out/pytest.log"
exit "${PIPESTATUS[0]}"
