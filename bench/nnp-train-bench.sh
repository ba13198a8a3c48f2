#!/usr/bin/env bash
# Quasar's n2p2 training (`quasar train` on an n2p2 folder) of the H2O_RPBE-D3 water potential
# (train/H2O_RPBE-D3: 20 structures, input.nn's Kalman filter settings): seconds per epoch and the
# learning curve (RMSE of energies per atom and of forces, train and test, in Ha/atom and Ha/bohr),
# beside reference-nnp-train.log (n2p2's training of the shipped potential on 7,241 structures).
# bench/nnp-train-ref.sh runs n2p2's own nnp-train on the same folder for the comparison.
#
# usage: bench/nnp-train-bench.sh [epochs] [device]     (default: input.nn's `epochs`; auto)
# env:   QUASAR       the quasar command (default build/quasar)
#        QUASAR_NNP_DATA  the training folder (default ../shared/reference/n2p2/train/H2O_RPBE-D3)
#        QUASAR_NNP_SCALING_DATA  a scaling.data to use (default: none, so that Quasar computes it from
#                     input.data as nnp-scaling does; the shipped file comes from the full data set)
#        OUT          where the run's folder stays (default: a new mktemp -d)
set -euo pipefail
cd "$(dirname "$0")/.."
quasar=${QUASAR:-build/quasar}
[ -x "$quasar" ] || { echo "nnp-train-bench: no quasar command at $quasar (set QUASAR)" >&2; exit 2; }
quasar=$(cd "$(dirname "$quasar")" && pwd)/$(basename "$quasar")
data=${QUASAR_NNP_DATA:-../shared/reference/n2p2/train/H2O_RPBE-D3}
for f in input.nn input.data reference-nnp-train.log; do
  [ -f "$data/$f" ] || { echo "nnp-train-bench: $data/$f missing (set QUASAR_NNP_DATA)" >&2; exit 2; }
done
data=$(cd "$data" && pwd)
epochs=${1:-$(awk '$1 == "epochs" {print $2}' "$data/input.nn")}
device=${2:-auto}
out=${OUT:-$(mktemp -d /tmp/nnp-train-bench.XXXXXX)}
run=$out/quasar-$device
rm -rf "$run" && mkdir -p "$run"
cp "$data/input.nn" "$data/input.data" "$run/"
[ -n "${QUASAR_NNP_SCALING_DATA:-}" ] && cp "$QUASAR_NNP_SCALING_DATA" "$run/scaling.data"
chmod u+w "$run"/*
sed -i -E "s/^epochs([[:space:]]+)[0-9]+/epochs\1$epochs/" "$run/input.nn"
echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) threads; load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
(cd "$run" && "$quasar" train . --device "$device" --output out > quasar-train.stdout 2>&1) ||
  { echo "nnp-train-bench: quasar train failed ($run)" >&2; tail -20 "$run/quasar-train.stdout" >&2; exit 1; }
wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
# Per epoch the progress line's seconds; the learning curve by column name.
awk '$1 == "epoch" { split($2, e, "/"); print e[1], $NF == "s" ? $(NF - 1) : $NF }' "$run/quasar-train.stdout" > "$run/timing.txt"
awk '/^#  +epoch / { for (k = 2; k <= NF; k++) c[$k] = k - 1; next } /^#/ { next }
  { print $1, $c["RMSEpa_Etrain_pu"], $c["RMSEpa_Etest_pu"], $c["RMSE_Ftrain_pu"], $c["RMSE_Ftest_pu"] }' \
  "$run/out/learning-curve.out" > "$run/curve.txt"
per_epoch=$(awk '$1 > 0 { s += $2; n++ } END { printf "%.3f", n ? s / n : 0 }' "$run/timing.txt")
head -2 "$run/quasar-train.stdout"
echo "quasar train ($device): $epochs epochs, wall $wall s (setup included), $per_epoch s/epoch, epoch 0 (symmetry functions and their derivatives, errors) $(awk '$1 == 0 { print $2 }' "$run/timing.txt") s ($run)"
echo
printf '%-5s | %-47s | %s\n' epoch "quasar: E_train E_test F_train F_test" "reference-nnp-train.log: E_train E_test F_train F_test"
awk '$1 == "ENERGY" { e1[$2] = $3; e2[$2] = $4 } $1 == "FORCES" { f1[$2] = $3; f2[$2] = $4 }
  END { for (i in e1) print i, e1[i], e2[i], f1[i], f2[i] }' "$data/reference-nnp-train.log" | sort -n > "$out/reference.txt"
for ((i = 0; i <= epochs; i++)); do
  printf '%-5s' "$i"
  awk -v i="$i" '$1 == i { printf " | %11.4e %11.4e %11.4e %11.4e", $2, $3, $4, $5; f = 1 } END { if (!f) printf " | %47s", "" }' "$run/curve.txt"
  awk -v i="$i" '$1 == i { printf " | %11.4e %11.4e %11.4e %11.4e", $2, $3, $4, $5 } END { printf "\n" }' "$out/reference.txt"
done
echo "(Ha/atom and Ha/bohr; x 27211.386 meV/atom, x 51.42208 eV/Å)"
