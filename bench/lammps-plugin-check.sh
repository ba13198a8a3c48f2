#!/usr/bin/env bash
# On the GPU machine: the quasar plugin (pair style quasar) in LAMMPS on the GPU against the same plugin on the CPU
# (the CPU plugin equals Quasar's own evaluation: tests/python/test_lammps_plugin.py), with 1, 2 and
# 4 MPI ranks (ranks beyond the GPUs share them). Fails when a run exits non-zero or writes no dump,
# or when a force, per-atom energy or per-atom virial differs from the CPU's by more than its
# tolerance; the last line says PASS or FAIL.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lammps/lib:$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
for run in "1 cpu" "1 cuda" "2 cuda" "4 cuda"; do
  read -r ranks device <<< "$run"
  rm -f "$out/check-$ranks-$device.dump"
  mpirun -np "$ranks" --bind-to none --oversubscribe .gpu/lammps/bin/lmp -in bench/in.silicon-check.lmp -screen none \
    -log "$out/log-check-$ranks-$device.lammps" -var plugin "$PWD/build-cuda/lammps/quasarplugin.so" \
    -var model "$PWD/examples/silicon/model.dp" -var device "$device" -var dump "$out/check-$ranks-$device.dump" ||
    { echo "FAIL: LAMMPS with $ranks ranks on $device exited non-zero"; status=1; }
done
python3 - "$out" <<'PY' || status=1
import os
import sys
import numpy as np
out = sys.argv[1]
EV_PER_BAR_A3 = 1 / 1.6021765e6  # stress/atom is pressure x volume (bar A^3)
# GPU plugin against CPU plugin, measured on the H100 with 1, 2 and 4 ranks (docs/performance.md):
# forces 3.2e-14 eV/A, per-atom energies 1.4e-14 eV, per-atom virials 2.8e-14 eV. The tolerances
# are 30 to 70 times those: rounding in another summation order, nothing more.
TOLERANCE = {"force": 1e-12, "energy": 1e-12, "virial": 1e-12}


def load(tag):  # rows ordered by position: create_atoms numbers the atoms by rank
    path = f"{out}/check-{tag}.dump"
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    d = np.loadtxt(path, skiprows=9, ndmin=2)
    return d[np.lexsort(np.round(d[:, 1:4], 6).T[::-1])] if len(d) else None


problems = []
ref = load("1-cpu")
if ref is None:
    sys.exit("FAIL: the CPU run wrote no dump, nothing to compare with")
for tag in ("1-cuda", "2-cuda", "4-cuda"):
    d = load(tag)
    if d is None:
        problems.append(f"{tag}: no dump")
        continue
    if d.shape != ref.shape or not np.abs(d[:, 1:4] - ref[:, 1:4]).max() < 1e-9:
        problems.append(f"{tag}: not the same atoms as the CPU run ({len(d)} rows against {len(ref)})")
        continue
    diff = {"force": np.abs(d[:, 4:7] - ref[:, 4:7]).max(), "energy": np.abs(d[:, 7] - ref[:, 7]).max(),
            "virial": np.abs(d[:, 8:] - ref[:, 8:]).max() * EV_PER_BAR_A3}
    print(f"plugin {tag} vs 1-cpu ({len(d)} atoms): max |dF| {diff['force']:.2e} eV/A, "
          f"max |de_i| {diff['energy']:.2e} eV, max |dW_i| {diff['virial']:.2e} eV")
    for what, value in diff.items():
        if not value <= TOLERANCE[what]:  # NaN fails too
            problems.append(f"{tag}: {what} differs by {value:.2e}, tolerance {TOLERANCE[what]:.0e}")
for p in problems:
    print(f"FAIL: {p}")
sys.exit(1 if problems else 0)
PY
grep -h -A1 "^ *Step" "$out"/log-check-*.lammps | grep -v Step
if [ $status = 0 ]; then echo "lammps-plugin-check: PASS"; else echo "lammps-plugin-check: FAIL"; fi
exit $status
