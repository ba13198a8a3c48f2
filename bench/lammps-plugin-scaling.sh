#!/usr/bin/env bash
# Weak and strong scaling of LAMMPS + the quasar plugin (pair style quasar) over 1, 2, 4 ... MAXRANKS GPUs (one MPI
# rank per GPU), DP water; prepare and carry as for lammps-plugin-bench.sh. Weak: 98,304 atoms
# (8 8 8) per GPU. Strong: 98,304 and 786,432 atoms (16 16 16) in total.
# usage: lammps-plugin-scaling.sh MAXRANKS [precision]
set -euo pipefail
cd "$(dirname "$0")"
max=${1:-2} precision=${2:-double}
weak=([1]="8 8 8" [2]="8 8 16" [4]="8 16 16" [8]="16 16 16")
for ((n = 1; n <= max; n *= 2)); do
  echo "weak:   $(bash lammps-plugin-bench.sh "$n" "${weak[$n]}" "$precision" 200)"
  [ "$n" = 1 ] || echo "strong: $(bash lammps-plugin-bench.sh "$n" "8 8 8" "$precision" 200)"
  echo "strong: $(bash lammps-plugin-bench.sh "$n" "16 16 16" "$precision" 100)"
done
