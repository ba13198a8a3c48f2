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
for p in $modes; do
  for c in 0 0.5; do
    build-cuda/bench/bench_md_bench --device cuda --systems "$systems" --cells "$cells" --precision "$p" --compress "$c" \
      ${BENCH_STEPS:+--steps $BENCH_STEPS} 2>&1 | tee -a "$out/dp-bench.log"
  done
done
