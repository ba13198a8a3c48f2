#!/usr/bin/env bash
# DeePMD-kit from PyPI in a virtual environment outside the repository, for the interoperability
# tests (tests/dp_write_test.cpp); prints its python. Its numpy backend needs no GPU framework.
set -euo pipefail
venv=${QUASAR_DPKIT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/deepmd-kit}
if ! "$venv/bin/python" -c 'import deepmd.infer' >/dev/null 2>&1; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q numpy scipy pyyaml 'dargs>=0.4.7' h5py wcmatch packaging ml_dtypes array-api-compat \
    einops lmdb msgpack typing_extensions >&2
  # Its other dependencies (mendeleev, for other descriptors) are not needed here.
  "$venv/bin/pip" install -q --no-deps 'deepmd-kit==3.2.0' >&2
fi
echo "$venv/bin/python"
