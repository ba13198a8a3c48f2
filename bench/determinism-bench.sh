#!/usr/bin/env bash
# What `deterministic = true` costs on the GPU machine (after bench/gpu-prepare.sh): LJ and EAM
# (NVE, and Langevin whose thermostat work is a sum over atoms) and the Deep Potential water model
# (double and mixed32, exact and compressed nets), each with and without the fixed-point sums.
# Logs: $OUT/determinism-bench.log and $OUT/dp-bench.log.
#   bash bench/determinism-bench.sh ["LJ/EAM CELLS"] ["DP CELLS"]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export QUASAR_LAMMPS_POTENTIALS=$PWD/.gpu/potentials
for integrator in nve langevin; do
  for det in "" --deterministic; do
    echo "== LJ and EAM, $integrator ${det:-(default sums)}"
    build-cuda/bench/bench_md_bench --device cuda --systems "lj eam" --cells "${1:-40 80}" --integrator $integrator $det
  done
done 2>&1 | tee "$out/determinism-bench.log"
for det in 0 1; do
  echo "== DP water, QUASAR_DETERMINISTIC=$det" | tee -a "$out/dp-bench.log"
  QUASAR_DETERMINISTIC=$det bash bench/dp-bench.sh "${2:-4}" water "double mixed32" "0 0.5"
done
