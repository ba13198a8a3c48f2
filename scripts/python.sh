#!/usr/bin/env bash
# The Python package: a virtual environment outside the repository with the build and test
# requirements, `pip install .` (compiles the extension; incremental in build/python), then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
venv=${QUASAR_PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/python}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q scikit-build-core nanobind numpy pytest 'ase>=3.23' pyscf
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
"$venv/bin/pip" install -q --no-build-isolation .
# The LAMMPS plugin tests (tests/python/test_lammps_plugin.py) run where the plugin was built, and
# test the style compiled into LAMMPS too (a build that reuses the plugin LAMMPS's objects: a minute).
export QUASAR_LAMMPS_PREFIX=${QUASAR_LAMMPS_PREFIX:-$(bash scripts/lammps.sh)}
export QUASAR_LAMMPS_PLUGIN=${QUASAR_LAMMPS_PLUGIN:-$PWD/build/lammps/quasarplugin.so}
if [ -z "${QUASAR_LAMMPS_BUILTIN:-}" ]; then
  QUASAR_LAMMPS_BUILTIN=$(bash scripts/lammps.sh --builtin)
  export QUASAR_LAMMPS_BUILTIN
fi
QUASAR_EXE=${QUASAR_EXE:-$PWD/build/quasar} "$venv/bin/python" -m pytest -q -rs tests/python
