#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu-prepare.sh): every test on the CUDA backend (and the CPU
# one, so that CPU-vs-GPU tests have both), then the benchmarks. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export QUASAR_LAMMPS_POTENTIALS=$PWD/.gpu/potentials
[ -x .gpu/bin/lmp ] && export QUASAR_LMP=$PWD/.gpu/bin/lmp
[ -d .gpu/shared ] && export QUASAR_SHARED=$PWD/.gpu/shared
export QUASAR_SOURCE_DIR=$PWD QUASAR_BINARY_DIR=$PWD/build-cuda
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
what=${1:-all}
status=0
if [ "$what" = all ] || [ "$what" = tests ]; then
  for t in build-cuda/tests/*_test; do
    name=$(basename "$t")
    if ! QUASAR_TEST_BACKENDS=${QUASAR_TEST_BACKENDS:-cpu,cuda} "$t" --gtest_brief=1 > "$out/$name.log" 2>&1; then
      status=1
      echo "FAILED: $name"; grep -B2 -A8 -E 'Failure|FAILED|exception' "$out/$name.log" | head -60
    else
      echo "ok: $name: $(grep -a -E '^\[  (PASSED|SKIPPED) ' "$out/$name.log" | tr -s ' ' | tr '\n' ' ')"
    fi
  done
fi
if [ "$what" = all ] || [ "$what" = example ]; then
  # The embedded default (DP MD of silicon at 300 K) on the GPU.
  (cd examples/silicon && ../../build-cuda/quasar run md.toml --device cuda) 2>&1 | tee "$out/example.log" || status=1
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  for b in build-cuda/bench/bench_*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" --device cuda ${BENCH_ARGS:-} 2>&1 | tee "$out/$(basename "$b").log"
  done
fi
exit $status
