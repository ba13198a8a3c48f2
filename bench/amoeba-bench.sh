#!/usr/bin/env bash
# AMOEBA term by term: seconds per energy-and-force evaluation of Tinker's benchmark systems
# (reference/amoeba/bench of the shared folder: bench5, 648 waters; bench7, DHFR in water, 23,558
# atoms) on one device, by bench/amoeba_bench.cpp: valence terms, van der Waals, multipoles (real
# space, reciprocal), polarization (its solve and conjugate-gradient steps), their sum and the whole
# evaluation; mean and best of REPEATS evaluations after a warm-up, the system set up once.
#   bash bench/amoeba-bench.sh [cpu|cuda] [SYSTEMS] [REPEATS] [PRECISION]
#   (defaults: cpu, "bench5 bench7", 5, double; PRECISION mixed32 on cuda: float pairs, fixed-point sums)
# BENCH: the executable (default build-cuda/bench/bench_amoeba_bench for cuda when it is there, else
# build/bench/bench_amoeba_bench). The shared folder is $QUASAR_SHARED, else ../shared. On the GPU
# machine, after bench/gpu-prepare.sh and `tar xJf .gpu-pack/bench.tar.xz` (which carries the
# executable, its libraries in .gpu/lib and the systems in .gpu/shared):
#   QUASAR_SHARED=$PWD/.gpu/shared bash bench/amoeba-bench.sh cuda
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-cpu}
systems=${2:-bench5 bench7}
repeats=${3:-5}
precision=${4:-double}
bin=${BENCH:-build/bench/bench_amoeba_bench}
if [ -z "${BENCH:-}" ] && [ "$device" = cuda ] && [ -x build-cuda/bench/bench_amoeba_bench ]; then
  bin=build-cuda/bench/bench_amoeba_bench
fi
[ -x "$bin" ] || { echo "amoeba-bench.sh: no executable $bin (build the target bench_amoeba_bench)" >&2; exit 1; }
[ -d .gpu/lib ] && export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
shared=${QUASAR_SHARED:-../shared}
src="$shared/reference/amoeba/bench"
[ -d "$src" ] || { echo "amoeba-bench.sh: $src is not here" >&2; exit 1; }
echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
if [ "$device" = cuda ] && command -v nvidia-smi >/dev/null; then
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
fi
for sys in $systems; do
  "$bin" --device "$device" --precision "$precision" --repeats "$repeats" "$src/$sys.key" "$src/$sys.xyz"
done
