#!/usr/bin/env bash
# LAMMPS + the quasar plugin (pair style quasar) on the GPU machine (after QUASAR_GPU_PLUGIN=1 bash bench/gpu-prepare.sh;
# carry .gpu, build-cuda/lammps, build-cuda/bench), one MPI rank per GPU: DP water repeated
# NX x NY x NZ times (4 4 4 = 12,288 atoms), NVE, with the model as bench_md_bench runs it (last fitting
# layer scaled by 1e-3, so that the atoms move thermally); prints atom-steps/s of the timed run and the
# device memory the run added at its peak (nvidia-smi every 0.2 s; CUDA contexts included). Logs to $OUT.
# usage: lammps-plugin-bench.sh RANKS "NX NY NZ" [precision] [steps]
# QUASAR_NCU=1: one rank under Nsight Compute instead, per-kernel times of 200 launches after 400
# (log $OUT/ncu-plugin-TAG.txt), to set beside `QUASAR_NCU=1 bash bench/dp-bench.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
ranks=${1:-1} reps=${2:-"4 4 4"} precision=${3:-double} steps=${4:-200}
compress=${QUASAR_COMPRESS:-0}  # > 0: the model compressed (tables from this closest distance), as dp-bench.sh's
export LD_LIBRARY_PATH=$PWD/.gpu/lammps/lib:$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
water=$PWD/.gpu/shared/reference/deepmd/water-data/data_0
tag="np$ranks-${reps// /x}-$precision"
[ "$compress" = 0 ] || tag+="-compressed"
python3 bench/water-lammps-data.py "$water" $reps > "$out/water-$tag.data"
model=$(mktemp -d)/water-bench.dp
QUASAR_DP_WATER=$PWD/.gpu/shared/reference/deepmd/bench/water-se_e2_a-bench.dp build-cuda/bench/bench_md_bench \
  --compress "$compress" --write-model "$model"
launch=(mpirun -np "$ranks" --bind-to none)
[ "${QUASAR_NCU:-0}" = 1 ] && launch=(ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 400
  --launch-count 200 --print-summary per-kernel --log-file "$out/ncu-plugin-$tag.txt")
smi=(nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits)
"${smi[@]}" > "$out/memory-$tag.csv"  # the baseline, then samples during the run
"${smi[@]}" -lms 200 >> "$out/memory-$tag.csv" &
sampler=$!
"${launch[@]}" .gpu/lammps/bin/lmp -in bench/in.water-quasar.lmp -log "$out/log-$tag.lammps" \
  -screen none -var data "$out/water-$tag.data" -var plugin "$PWD/build-cuda/lammps/quasarplugin.so" \
  -var model "$model" -var device cuda \
  -var precision "$precision" -var steps "$steps"
kill "$sampler"
rm -rf "$out/water-$tag.data" "$(dirname "$model")"
loop=$(grep "^Loop time" "$out/log-$tag.lammps" | tail -1)
read -r seconds nsteps atoms < <(echo "$loop" | awk '{print $4, $9, $12}')
ngpu=$(nvidia-smi -L | wc -l)
memory=$(awk -F', ' -v g="$ngpu" -v a="$atoms" 'NR <= g {base[$1] = $2; next} $2 - base[$1] > peak[$1] {peak[$1] = $2 - base[$1]}
  END {for (i in peak) {sum += peak[i]; if (peak[i] > top) top = peak[i]}
       printf "%d MiB on the busiest GPU, %.0f bytes per atom", top, sum * 1048576 / a}' "$out/memory-$tag.csv")
echo "$tag: $atoms atoms, $nsteps steps in $seconds s: $(awk -v a="$atoms" -v s="$nsteps" -v t="$seconds" 'BEGIN{printf "%.3e", a*s/t}') atom-steps/s; $memory"
