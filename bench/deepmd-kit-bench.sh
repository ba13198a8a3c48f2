#!/usr/bin/env bash
# DeePMD-kit beside Quasar on the GPU machine (after bench/gpu-prepare.sh with QUASAR_GPU_COPPER=1;
# carry .gpu, .whl and build-cuda/quasar; bench/deepmd-kit-env.sh says what .whl holds).
# Usage: bench/deepmd-kit-bench.sh [water cells...] -- [copper cells...]. Logs to $OUT/deepmd-kit.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
source bench/deepmd-kit-env.sh
bench=.gpu/shared/reference/deepmd/bench
water=(4) copper=(14)
if [ $# -gt 0 ]; then
  water=(); copper=(); dest=water
  for a in "$@"; do
    if [ "$a" = -- ]; then dest=copper; elif [ $dest = water ]; then water+=("$a"); else copper+=("$a"); fi
  done
fi
{
  build-cuda/quasar dp convert $bench/water-se_e2_a-bench.dp /tmp/water.yaml
  python3 bench/deepmd_kit_bench.py /tmp/water.yaml .gpu/shared/reference/deepmd/water-data/data_0 \
    --cells "${water[@]}" --evals 10 --min-dist 0.5
  if [ ${#copper[@]} -gt 0 ] && [ -f $bench/copper-se_e2_a-bench.dp ]; then
    build-cuda/quasar dp convert $bench/copper-se_e2_a-bench.dp /tmp/copper.yaml
    python3 bench/deepmd_kit_bench.py /tmp/copper.yaml none --fcc 3.615 --cells "${copper[@]}" --evals 5 --min-dist 0.5
  fi
} 2>&1 | tee -a "$out/deepmd-kit.log"
