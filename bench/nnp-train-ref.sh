#!/usr/bin/env bash
# n2p2's own training of the H2O_RPBE-D3 water potential (train/H2O_RPBE-D3: 20 structures, input.nn's Kalman
# filter settings), the reference for Quasar's training: wall seconds per epoch with 1 and 2 MPI ranks and the
# learning curve (learning-curve.out's RMSE of energies per atom and of forces, train and test), printed beside
# reference-nnp-train.log (n2p2's training of the shipped potential: 7,241 structures, 16 ranks, 25 epochs).
# Each rank count runs in its own copy of the folder, under a temporary directory. scaling.data is remade with
# nnp-scaling when it is missing, when QUASAR_NNP_RESCALE=1, or when nnp-scaling (QUASAR_NNP_SCALING) gives
# other values for this input.data (relative 1e-10); otherwise the shipped file is used.
#
# usage: bench/nnp-train-ref.sh [epochs]        (default: input.nn's `epochs`)
# env:   QUASAR_NNP_TRAIN    n2p2's nnp-train (required)
#        QUASAR_NNP_SCALING  n2p2's nnp-scaling (optional; needed when scaling.data must be remade)
#        QUASAR_NNP_RANKS    rank counts (default "1 2")
#        MPIRUN (default mpirun), MPIRUN_FLAGS (default --bind-to core)
#        QUASAR_NNP_DATA     the training folder (default ../shared/reference/n2p2/train/H2O_RPBE-D3)
#        OUT                 where the runs' folders stay (default: a new mktemp -d)
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # nproc heeds OMP_NUM_THREADS
train=${QUASAR_NNP_TRAIN:-}
if [ -z "$train" ] || [ ! -x "$train" ]; then
  echo "nnp-train-ref: set QUASAR_NNP_TRAIN to n2p2's nnp-train (and QUASAR_NNP_SCALING to its nnp-scaling);" >&2
  echo "  docs/performance.md, 'How to run the peers'; got '${train}'" >&2
  exit 2
fi
scaling=${QUASAR_NNP_SCALING:-}
data=${QUASAR_NNP_DATA:-../shared/reference/n2p2/train/H2O_RPBE-D3}
for f in input.nn input.data reference-nnp-train.log; do
  [ -f "$data/$f" ] || { echo "nnp-train-ref: $data/$f missing (set QUASAR_NNP_DATA)" >&2; exit 2; }
done
data=$(cd "$data" && pwd)
epochs=${1:-$(awk '$1 == "epochs" {print $2}' "$data/input.nn")}
ranks=(${QUASAR_NNP_RANKS:-1 2})
mpirun=${MPIRUN:-mpirun}
out=${OUT:-$(mktemp -d /tmp/nnp-train-ref.XXXXXX)}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $cores cores usable; load $(cut -d' ' -f1-3 /proc/loadavg)"
mpi() {  # ranks, command...
  local n=$1; shift
  "$mpirun" -np "$n" ${MPIRUN_FLAGS:---bind-to core} $([ "$n" -gt "$cores" ] && echo --oversubscribe) "$@"
}

# scaling.data: shipped, or remade by nnp-scaling (500 histogram bins, as n2p2's examples).
remake=${QUASAR_NNP_RESCALE:-0}
[ -f "$data/scaling.data" ] || remake=1
if [ -n "$scaling" ]; then
  [ -x "$scaling" ] || { echo "nnp-train-ref: QUASAR_NNP_SCALING=$scaling is not executable" >&2; exit 2; }
  mkdir -p "$out/scaling"
  cp "$data/input.nn" "$data/input.data" "$out/scaling/"
  (cd "$out/scaling" && mpi 1 "$scaling" 500 > nnp-scaling.stdout 2>&1) ||
    { echo "nnp-train-ref: nnp-scaling failed ($out/scaling)" >&2; tail -20 "$out/scaling/nnp-scaling.stdout" >&2; exit 1; }
  if [ -f "$data/scaling.data" ]; then
    dev=$(awk 'FNR == 1 { file++ } /^#/ { next }
      file == 1 { for (k = 3; k <= 6; k++) v[$1, $2, k] = $k }
      file == 2 { for (k = 3; k <= 6; k++) { d = $k - v[$1, $2, k]; d = d < 0 ? -d : d; s = $k < 0 ? -$k : $k;
                  r = d / (s > 1e-300 ? s : 1); if (r > m) m = r } }
      END { printf "%.2e", m }' "$out/scaling/scaling.data" "$data/scaling.data")
    echo "scaling.data: shipped vs nnp-scaling on this input.data: max relative deviation $dev"
    awk -v d="$dev" 'BEGIN { exit !(d > 1e-10) }' && remake=1
  fi
elif [ "$remake" = 1 ]; then
  echo "nnp-train-ref: scaling.data must be remade; set QUASAR_NNP_SCALING to n2p2's nnp-scaling" >&2; exit 2
fi
[ "$remake" = 1 ] && echo "scaling.data: remade by nnp-scaling" || echo "scaling.data: the shipped file"

# Training, one folder per rank count.
for r in "${ranks[@]}"; do
  run=$out/ranks-$r
  rm -rf "$run" && mkdir -p "$run"
  cp "$data/input.nn" "$data/input.data" "$run/"
  if [ "$remake" = 1 ]; then cp "$out/scaling/scaling.data" "$run/"; else cp "$data/scaling.data" "$run/"; fi
  sed -i -E "s/^epochs([[:space:]]+)[0-9]+/epochs\1$epochs/" "$run/input.nn"
  start=$(date +%s.%N)
  (cd "$run" && mpi "$r" "$train" > nnp-train.stdout 2>&1) ||
    { echo "nnp-train-ref: nnp-train failed ($run)" >&2; tail -20 "$run/nnp-train.stdout" >&2; exit 1; }
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  # Per epoch: seconds (the TIMING line's epoch column) and updates; the learning curve by column name.
  awk '$1 == "TIMING" && $2 ~ /^[0-9]+$/ { print $2, $3, $(NF - 1) }' "$run/nnp-train.stdout" > "$run/timing.txt"
  awk '/^#  +epoch / { for (k = 2; k <= NF; k++) c[$k] = k - 1; next } /^#/ { next }
    { print $1, $c["RMSEpa_Etrain_pu"], $c["RMSEpa_Etest_pu"], $c["RMSE_Ftrain_pu"], $c["RMSE_Ftest_pu"] }' \
    "$run/learning-curve.out" > "$run/curve.txt"
  per_epoch=$(awk '$1 > 0 { s += $3; n++ } END { printf "%.3f", n ? s / n : 0 }' "$run/timing.txt")
  updates=$(awk '$1 > 0 { s += $2; n++ } END { printf "%.0f", n ? s / n : 0 }' "$run/timing.txt")
  echo "ranks $r: $epochs epochs, wall $wall s (setup included), $per_epoch s/epoch, $updates updates/epoch ($run)"
done

# The reference's curve and epoch times (its ENERGY/FORCES/TIMING lines).
awk '$1 == "ENERGY" { e1[$2] = $3; e2[$2] = $4 } $1 == "FORCES" { f1[$2] = $3; f2[$2] = $4 }
  $1 == "UPDATE" { u[$2] = $5 } $1 == "TIMING" && $2 ~ /^[0-9]+$/ { t[$2] = $5; if ($2 > n) n = $2 }
  END { for (i = 0; i <= n; i++) print i, e1[i], e2[i], f1[i], f2[i], t[i], (i in u) ? u[i] : 0 }' \
  "$data/reference-nnp-train.log" > "$out/reference.txt"
ref_epoch=$(awk '$1 > 0 { s += $6; n++ } END { printf "%.1f", s / n }' "$out/reference.txt")
ref_updates=$(awk '$1 > 0 { s += $7; n++ } END { printf "%.0f", s / n }' "$out/reference.txt")
ref_ranks=$(awk '/^Number of processors:/ { print $4; exit }' "$data/reference-nnp-train.log")
ref_structures=$(awk '/^Total number of structures:/ { print $5; exit }' "$data/reference-nnp-train.log")
echo "reference-nnp-train.log: $ref_epoch s/epoch, $ref_updates updates/epoch ($ref_structures structures, $ref_ranks ranks)"

# Side by side: RMSE of energies per atom (Ha/atom) and forces (Ha/bohr), train and test, per epoch.
echo
printf '%-5s' epoch
for r in "${ranks[@]}"; do printf ' | %-47s' "nnp-train, $r rank(s): E_train E_test F_train F_test"; done
printf ' | %s\n' "reference: E_train E_test F_train F_test"
n=$(awk -v m="$epochs" '{ if ($1 > m) m = $1 } END { print m }' "$out/reference.txt")
for ((i = 0; i <= n; i++)); do
  printf '%-5s' "$i"
  for r in "${ranks[@]}"; do
    awk -v i="$i" '$1 == i { printf " | %11.4e %11.4e %11.4e %11.4e", $2, $3, $4, $5; f = 1 }
      END { if (!f) printf " | %47s", "" }' "$out/ranks-$r/curve.txt"
  done
  awk -v i="$i" '$1 == i { printf " | %11.4e %11.4e %11.4e %11.4e", $2, $3, $4, $5 } END { printf "\n" }' "$out/reference.txt"
done
echo "(Ha/atom and Ha/bohr; x 27211.386 meV/atom, x 51.42208 eV/Å)"

# Machine-readable summary.
{
  printf 'what\tranks\tepochs\ts_per_epoch\tupdates_per_epoch\tE_train_last\tE_test_last\tF_train_last\tF_test_last\n'
  for r in "${ranks[@]}"; do
    awk -v r="$r" -v ep="$epochs" 'NR == FNR { if ($1 > 0) { s += $3; u += $2; n++ } next }
      { last = $0 } END { split(last, v, " "); printf "nnp-train\t%d\t%d\t%.3f\t%.0f\t%s\t%s\t%s\t%s\n", r, ep, s / n, u / n, v[2], v[3], v[4], v[5] }' \
      "$out/ranks-$r/timing.txt" "$out/ranks-$r/curve.txt"
  done
  awk -v r="$ref_ranks" '$1 > 0 { s += $6; u += $7; n++ } { last = $0 } END { split(last, v, " ");
    printf "reference\t%d\t%d\t%.1f\t%.0f\t%s\t%s\t%s\t%s\n", r, n, s / n, u / n, v[2], v[3], v[4], v[5] }' \
    "$out/reference.txt"
} > "$out/summary.tsv"
echo
echo "summary ($out/summary.tsv):"
cat "$out/summary.tsv"
