#!/usr/bin/env bash
# DeePMD-kit beside Quasar on the GPU machine (after bench/gpu-prepare.sh with QUASAR_GPU_COPPER=1;
# carry .gpu, .whl and build-cuda/quasar). .whl holds the PyPI wheels of deepmd-kit 3.2.0 and what
# it needs beyond the machine's PyTorch: `pip download --no-deps -d .whl deepmd-kit==3.2.0 dargs wcmatch
# bracex array_api_compat lmdb nvidia-cuda-runtime-cu12`.
# Usage: bench/deepmd-kit-bench.sh [water cells...] -- [copper cells...]. Logs to $OUT/deepmd-kit.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site
# Its CUDA operators (the compressed model's tables) are built for CUDA 12 and load libcudart.so.12;
# the machine has CUDA 13, so .whl also holds the nvidia-cuda-runtime-cu12 wheel.
export LD_LIBRARY_PATH=/tmp/site/nvidia/cuda_runtime/lib:$LD_LIBRARY_PATH
# The wheel's PyTorch operators link MPICH's libmpi.so.12, which the machine lacks.
gcc -shared -fPIC -Wl,-soname,libmpi.so.12 bench/mpi_stub.c -o /tmp/libmpi.so.12
export DPKIT_MPI_STUB=/tmp/libmpi.so.12
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
