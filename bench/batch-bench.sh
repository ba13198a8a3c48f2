#!/usr/bin/env bash
# Batched evaluation against one frame at a time (bench/batch_bench.cpp): frames per second for
# DeePMD-kit water frames (64 molecules, 192 atoms) with the full-size water Deep Potential, and for
# 6-atom Lennard-Jones molecules. Prints one table (also to $OUT/batch-bench.log).
#   GPU machine, after bench/gpu-prepare.sh (carry .gpu and build-cuda/bench): bash bench/batch-bench.sh
#   here, on the CPU (the build/ tree):                                          bash bench/batch-bench.sh cpu
# Frame counts: WATER_FRAMES, LJ_FRAMES (lists); SINGLE_FRAMES: water frames timed one at a time
# (eight times as many LJ frames).
set -uo pipefail
cd "$(dirname "$0")/.."
device=${1:-cuda}
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
shared=$PWD/.gpu/shared
[ -d "$shared/reference/deepmd" ] || shared=$(cd .. && pwd)/shared
export QUASAR_DP_WATER=${QUASAR_DP_WATER:-$shared/reference/deepmd/bench/water-se_e2_a-bench.dp}
export QUASAR_WATER_DATA=${QUASAR_WATER_DATA:-$shared/reference/deepmd/water-data/data_0}
bin=build-cuda/bench/bench_batch_bench
[ -x "$bin" ] || bin=build/bench/bench_batch_bench
if [ "$device" = cpu ]; then
  water=${WATER_FRAMES:-"8"} lj=${LJ_FRAMES:-"256 1024"} single=${SINGLE_FRAMES:-8}
else
  water=${WATER_FRAMES:-"64 1024"} lj=${LJ_FRAMES:-"1024 16384"} single=${SINGLE_FRAMES:-256}
fi
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
"$bin" --device "$device" --water-frames "$water" --lj-frames "$lj" --single-frames "$single" 2>&1 |
  tee "$out/batch-bench.log"
