#!/usr/bin/env bash
# Deep Potential MD on the GPU machine (after bench/gpu-prepare.sh; carry .gpu and build-cuda/bench):
# every precision mode, with and without compressed embeddings, for the given water box sizes
# (cells^3 copies of a 192-atom liquid frame; 4 -> 12,288 atoms). Logs to $OUT/dp-bench.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export QUASAR_DP_WATER=${QUASAR_DP_WATER:-$PWD/.gpu/shared/reference/deepmd/bench/water-se_e2_a-bench.dp}
export QUASAR_DP_COPPER=${QUASAR_DP_COPPER:-$PWD/.gpu/shared/reference/deepmd/bench/copper-se_e2_a-bench.dp}
export QUASAR_WATER_DATA=${QUASAR_WATER_DATA:-$PWD/.gpu/shared/reference/deepmd/water-data/data_0}
cells=${1:-4}
systems=${2:-water}
modes=${3:-"double mixed32 mixed16"}
compress=${4:-"0 0.5"}  # 0: exact nets; else the closest distance for the tables
# QUASAR_NCU=1: per-kernel times of 12 steps from Nsight Compute instead (log $OUT/ncu-MODE-COMPRESS.txt).
# QUASAR_DETERMINISTIC=1: fixed-point sums (deterministic = true), to measure what they cost.
det=()
[ "${QUASAR_DETERMINISTIC:-0}" = 1 ] && det=(--deterministic)
for p in $modes; do
  for c in $compress; do
    prof=() steps=${BENCH_STEPS:-}
    if [ "${QUASAR_NCU:-0}" = 1 ]; then
      prof=(ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 400 --launch-count 120
        --print-summary per-kernel --log-file "$out/ncu-$p-$c.txt")
      steps=12
    fi
    "${prof[@]}" build-cuda/bench/bench_md_bench --device cuda --systems "$systems" --cells "$cells" --precision "$p" \
      --compress "$c" ${steps:+--steps $steps} "${det[@]}" 2>&1 | tee -a "$out/dp-bench.log"
  done
done
