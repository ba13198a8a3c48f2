#!/usr/bin/env bash
# OpenMM's AMOEBA beside Quasar's on the same Tinker files (bench/amoeba-openmm.py; --help for its options):
#   bash bench/amoeba-openmm.sh KEY XYZ [--platform CPU|CUDA] [--tinker ANALYZE.txt] [--per-term] ...
# Installs OpenMM from PyPI (OPENMM_VERSION, default 8.6.1, the release checked; TinkerFiles came in 8.4) into a
# virtual environment outside the repository (QUASAR_OPENMM_VENV, default ~/.cache/quasar/openmm-venv) and runs
# the script with it. QUASAR: the quasar binary (default build/quasar).
#
# For the GPU machine (no network there; Python 3.12 with numpy, OPENMM_PYTHON_VERSION otherwise; CUDA under
# /usr/local/cuda):
#   here:  bash bench/amoeba-openmm.sh --fetch-wheels      (openmm and its CUDA 13 plugin, about 17 MB, into
#          .gpu/openmm, an ignored folder to carry)
#   there: OPENMM_WHEELS=.gpu/openmm bash bench/amoeba-openmm.sh KEY XYZ --platform CUDA
# The plugin's wheel is installed without the nvidia-* wheels it names: it loads the machine's CUDA libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${OPENMM_VERSION:-8.6.1}
if [ "${1:-}" = --fetch-wheels ]; then
  dir=${2:-.gpu/openmm}
  mkdir -p "$dir"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "${OPENMM_PYTHON_VERSION:-3.12}" \
    --platform manylinux_2_34_x86_64 -d "$dir" "openmm==$version" "openmm-cuda-13==$version"
  ls -l "$dir"
  exit 0
fi
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
if [ -n "${OPENMM_WHEELS:-}" ]; then
  # Into a folder on the machine's own Python (there a virtual environment holding numpy and PyTorch, whose
  # packages a new environment would not see); nothing from the network.
  site=${QUASAR_OPENMM_SITE:-/tmp/openmm-site}
  python3 -c 'import openmm.app; openmm.app.TinkerFiles' >/dev/null 2>&1 ||
    [ -d "$site/openmm" ] || python3 -m pip install -q --no-index --no-deps --target "$site" "$OPENMM_WHEELS"/*.whl >&2
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
  exec python3 bench/amoeba-openmm.py "$@"
fi
venv=${QUASAR_OPENMM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/openmm-venv}
if ! "$venv/bin/python" -c 'import openmm.app; openmm.app.TinkerFiles' >/dev/null 2>&1; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "openmm==$version" >&2
fi
exec "$venv/bin/python" bench/amoeba-openmm.py "$@"
