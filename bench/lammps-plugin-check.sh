#!/usr/bin/env bash
# On the GPU machine: the quasar/dp plugin in LAMMPS on the GPU against the same plugin on the CPU
# (the CPU plugin equals Quasar's own evaluation: tests/python/test_lammps_plugin.py), with 1, 2 and
# 4 MPI ranks (ranks beyond the GPUs share them). Prints the largest differences.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lammps/lib:$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for run in "1 cpu" "1 cuda" "2 cuda" "4 cuda"; do
  read -r ranks device <<< "$run"
  mpirun -np "$ranks" --bind-to none --oversubscribe .gpu/lammps/bin/lmp -in bench/in.silicon-check.lmp -screen none \
    -log "$out/log-check-$ranks-$device.lammps" -var plugin "$PWD/build-cuda/lammps/quasarplugin.so" \
    -var model "$PWD/examples/silicon/model.dp" -var device "$device" -var dump "$out/check-$ranks-$device.dump"
done
python3 - "$out" <<'PY'
import sys
import numpy as np
out = sys.argv[1]


def load(tag):  # rows ordered by position: create_atoms numbers the atoms by rank
    d = np.loadtxt(f"{out}/check-{tag}.dump", skiprows=9)
    return d[np.lexsort(np.round(d[:, 1:4], 6).T[::-1])]


ref = load("1-cpu")
for tag in ("1-cuda", "2-cuda", "4-cuda"):
    d = load(tag)
    assert np.abs(d[:, 1:4] - ref[:, 1:4]).max() < 1e-9, "not the same atoms"
    print(f"plugin {tag} vs 1-cpu ({len(d)} atoms): max |dF| {np.abs(d[:, 4:7] - ref[:, 4:7]).max():.2e} eV/A, "
          f"max |de_i| {np.abs(d[:, 7] - ref[:, 7]).max():.2e} eV, max |dW_i| {np.abs(d[:, 8:] - ref[:, 8:]).max() / 1.6021765e6:.2e} eV")
PY
grep -h -A1 "^ *Step" "$out"/log-check-*.lammps | grep -v Step
