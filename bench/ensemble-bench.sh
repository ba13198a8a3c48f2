#!/usr/bin/env bash
# MD of many small systems as one md::Ensemble against one md::Simulation per system
# (bench/ensemble_bench.cpp): trajectory-steps per second for 6-atom Lennard-Jones argon molecules and
# for 4-molecule water clusters with DeePMD-kit's water model. Prints one table (also to
# $OUT/ensemble-bench.log).
#   GPU machine, after bench/gpu-prepare.sh (carry .gpu and build-cuda/bench): bash bench/ensemble-bench.sh
#   here, on the CPU (the build/ tree):                                          bash bench/ensemble-bench.sh cpu
# Counts: LJ_COUNTS, WATER_COUNTS (lists of system counts); STEPS; SINGLE (systems run alone).
set -uo pipefail
cd "$(dirname "$0")/.."
device=${1:-cuda}
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
shared=$PWD/.gpu/shared
[ -d "$shared/reference/deepmd" ] || shared=$(cd .. && pwd)/shared
export QUASAR_DP_MODEL=${QUASAR_DP_MODEL:-$shared/reference/deepmd/deeppot_sea.yaml}
export QUASAR_WATER_DATA=${QUASAR_WATER_DATA:-$shared/reference/deepmd/water-data/data_0}
bin=build-cuda/bench/bench_ensemble_bench
[ -x "$bin" ] || bin=build/bench/bench_ensemble_bench
if [ "$device" = cpu ]; then
  lj=${LJ_COUNTS:-"256 1024"} water=${WATER_COUNTS:-"64"} steps=${STEPS:-100} single=${SINGLE:-64}
else
  lj=${LJ_COUNTS:-"1024 16384"} water=${WATER_COUNTS:-"256 4096"} steps=${STEPS:-200} single=${SINGLE:-64}
fi
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
"$bin" --device "$device" --lj-counts "$lj" --water-counts "$water" --steps "$steps" --single "$single" 2>&1 |
  tee "$out/ensemble-bench.log"
