#!/usr/bin/env bash
# The training race: how soon n2p2's nnp-train and `quasar train` reach the accuracy of reference-nnp-train.log
# (n2p2's training of the shipped H2O_RPBE-D3 potential, epoch 25) on the same data, the same input.nn and the
# same scaling.data: a set made by bench/nnp-train-data.sh (structures from MD with the shipped potential,
# labelled by it, so that the architecture can fit them exactly).
#
# Each run prints its learning curve against wall time: the seconds since the program started (reading the data
# and the setup included) at the end of each epoch, with the RMSE of energies per atom (Ha/atom) and of forces
# (Ha/bohr) of the training and the test structures. Then, per run, the seconds per epoch and the epoch and time at
# which each error first falls to the target (target.txt: the reference's epoch-25 values), and where all four
# have first done so together ("all"). Both codes draw their 10% test structures at random (with input.nn's seed,
# but not the same random numbers), so their test sets differ.
#
# usage: bench/nnp-train-race.sh DATA [epochs]       (DATA: the folder, or its .tar.xz; default 30 epochs)
# env:   QUASAR              the quasar command (default build/quasar; "none" leaves Quasar out)
#        QUASAR_DEVICES      Quasar's devices, one run each (default "cpu"; on a GPU machine "cuda"); on the CPU
#                            OMP_NUM_THREADS threads (default every core)
#        QUASAR_NNP_TRAIN    n2p2's nnp-train (unset: n2p2 left out, as on a machine without it)
#        QUASAR_NNP_SCALING  n2p2's nnp-scaling (optional: checks DATA's scaling.data against it)
#        QUASAR_NNP_RANKS    nnp-train's MPI rank counts, one run each (default "1 2")
#        MPIRUN (default mpirun), MPIRUN_FLAGS (default --bind-to core)
#        QUASAR_NNP_SEED     random_seed for both (default input.nn's): the initial weights, the test structures
#                            and the order of the updates, on which the epoch that reaches the target depends
#        QUASAR_RACE_CURVES  curve.tsv files of earlier runs (OUT/*/curve.tsv) to print in the summary too
#        OUT                 where the runs' folders stay (default: a new mktemp -d)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
data=$1
epochs=${2:-30}
out=$(realpath -m "${OUT:-$(mktemp -d /tmp/nnp-train-race.XXXXXX)}")
mkdir -p "$out"
if [ -f "$data" ]; then  # a .tar.xz from nnp-train-data.sh
  mkdir -p "$out/data" && tar -C "$out/data" -xJf "$data" && data=$out/data
fi
for f in input.nn input.data scaling.data target.txt; do
  [ -f "$data/$f" ] || { echo "nnp-train-race: $data/$f missing (make DATA with bench/nnp-train-data.sh)" >&2; exit 2; }
done
data=$(realpath "$data")
quasar=${QUASAR:-build/quasar}
[ "$quasar" = none ] || quasar=$(realpath -e "$quasar") || { echo "nnp-train-race: no quasar at $quasar" >&2; exit 2; }
train=${QUASAR_NNP_TRAIN:-}
[ -z "$train" ] || [ -x "$train" ] || { echo "nnp-train-race: QUASAR_NNP_TRAIN=$train is not executable" >&2; exit 2; }
[ "$quasar" != none ] || [ -n "$train" ] || [ -n "${QUASAR_RACE_CURVES:-}" ] ||
  { echo "nnp-train-race: nothing to run (QUASAR=none, no QUASAR_NNP_TRAIN, no QUASAR_RACE_CURVES)" >&2; exit 2; }
read -r t_etrain t_etest t_ftrain t_ftest < <(grep -v '^#' "$data/target.txt")
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
timed=()
[ -x /usr/bin/time ] && timed=(/usr/bin/time -f "%M")  # peak resident memory (kB) of the run
echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $cores cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/GPU: /'
awk '$1 == "begin" { s++ } $1 == "atom" { a++ } END { printf "data: %s, %d structures, %d atoms\n", FILENAME, s, a }' "$data/input.data"
echo "target (reference-nnp-train.log, epoch 25): E_train $t_etrain E_test $t_etest Ha/atom, F_train $t_ftrain F_test $t_ftest Ha/bohr"
echo "$epochs epochs, random_seed $(awk '$1 == "random_seed" { print $2 }' "$data/input.nn" | sed "s/.*/${QUASAR_NNP_SEED:-&}/"); $(date -u +%FT%TZ); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$( [ "$quasar" = none ] ||
  echo ", $("$quasar" --version 2>/dev/null | head -1)")"

# A copy of DATA with the epochs set.
prepare() {  # folder
  rm -rf "$1" && mkdir -p "$1"
  cp "$data/input.nn" "$data/input.data" "$data/scaling.data" "$1/"
  chmod u+w "$1"/*
  sed -i -E "s/^epochs([[:space:]]+)[0-9]+/epochs\1$epochs/" "$1/input.nn"
  [ -z "${QUASAR_NNP_SEED:-}" ] || sed -i -E "s/^random_seed([[:space:]]+)[0-9]+/random_seed\1$QUASAR_NNP_SEED/" "$1/input.nn"
}
# learning-curve.out's four RMSE columns by name, beside the wall time at each epoch's end (file of "epoch
# seconds-since-start"): the curve.tsv of a run.
curve() {  # learning-curve.out, times, name
  awk -v name="$3" 'NR == FNR { t[$1] = $2; next }
    /^#  +epoch / { for (k = 2; k <= NF; k++) c[$k] = k - 1; next } /^#/ { next }
    !h++ { print "# " name; print "# epoch wall_s E_train E_test F_train F_test" }
    ($1 in t) { print $1, t[$1], $c["RMSEpa_Etrain_pu"], $c["RMSEpa_Etest_pu"], $c["RMSE_Ftrain_pu"], $c["RMSE_Ftest_pu"] }' \
    "$2" "$1"
}
curves=()

# n2p2: scaling.data checked against nnp-scaling when given; then nnp-train per rank count.
if [ -n "$train" ]; then
  mpi() {  # ranks, command...
    local n=$1; shift
    "${MPIRUN:-mpirun}" -np "$n" ${MPIRUN_FLAGS:---bind-to core} $([ "$n" -gt "$cores" ] && echo --oversubscribe) "$@"
  }
  if [ -n "${QUASAR_NNP_SCALING:-}" ]; then
    prepare "$out/nnp-scaling" && rm "$out/nnp-scaling/scaling.data"
    start=$(date +%s.%N)
    (cd "$out/nnp-scaling" && OMP_NUM_THREADS=1 mpi 1 "$QUASAR_NNP_SCALING" 500 > nnp-scaling.stdout 2>&1)
    dev=$(awk 'FNR == 1 { file++ } /^#/ { next } file == 1 { for (k = 3; k <= 6; k++) v[$1, $2, k] = $k; next }
      { for (k = 3; k <= 6; k++) { d = $k - v[$1, $2, k]; d = d < 0 ? -d : d; s = $k < 0 ? -$k : $k
        r = d / (s > 1e-300 ? s : 1); if (r > m) m = r } } END { printf "%.1e", m }' \
      "$out/nnp-scaling/scaling.data" "$data/scaling.data")
    echo "nnp-scaling: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s, its scaling.data" \
      "and DATA's differ by $dev (relative)"
  fi
  for r in ${QUASAR_NNP_RANKS:-1 2}; do
    run=$out/n2p2-ranks-$r
    prepare "$run"
    start=$(date +%s.%N)
    (cd "$run" && OMP_NUM_THREADS=1 "${timed[@]}" -o memory.txt "$(command -v "${MPIRUN:-mpirun}")" -np "$r" \
      ${MPIRUN_FLAGS:---bind-to core} $([ "$r" -gt "$cores" ] && echo --oversubscribe) "$train" > nnp-train.stdout 2>&1) ||
      { echo "nnp-train-race: nnp-train failed ($run)" >&2; tail -20 "$run/nnp-train.stdout" >&2; exit 1; }
    wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
    # TIMING lines: epoch, ..., seconds of the epoch, seconds since epoch 0 began; the setup before is the rest.
    awk -v wall="$wall" '$1 == "TIMING" && $2 ~ /^[0-9]+$/ { e[$2] = $NF; if ($2 > n) n = $2 }
      END { for (i = 0; i <= n; i++) print i, wall - e[n] + e[i] }' "$run/nnp-train.stdout" > "$run/times.txt"
    curve "$run/learning-curve.out" "$run/times.txt" "n2p2 nnp-train, $r rank(s)" > "$run/curve.tsv"
    [ -s "$run/memory.txt" ] && echo "n2p2, $r rank(s): peak memory $(tail -1 "$run/memory.txt") kB (of mpirun's tree, largest process)"
    curves+=("$run/curve.tsv")
  done
fi

# Quasar, per device.
if [ "$quasar" != none ]; then
  for d in ${QUASAR_DEVICES:-cpu}; do
    name=$d
    [ "$d" = cpu ] && name="cpu, ${OMP_NUM_THREADS:-$cores} threads"  # OMP_NUM_THREADS sets Quasar's CPU threads
    run=$out/quasar-${name//[ ,]/}
    prepare "$run"
    start=$(date +%s.%N)
    (cd "$run" && "${timed[@]}" -o memory.txt "$quasar" train . --device "$d" --output out > quasar-train.stdout 2>&1) ||
      { echo "nnp-train-race: quasar train failed ($run)" >&2; tail -20 "$run/quasar-train.stdout" >&2; exit 1; }
    wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
    # Each epoch's line ends in its seconds; the setup before epoch 0 is the rest of the wall time.
    awk -v wall="$wall" '$1 == "epoch" { split($2, e, "/"); n = e[1]; s[n] = ($NF == "s" ? $(NF - 1) : $NF); sum += s[n] }
      END { t = wall - sum; for (i = 0; i <= n; i++) { t += s[i]; print i, t } }' "$run/quasar-train.stdout" > "$run/times.txt"
    curve "$run/out/learning-curve.out" "$run/times.txt" "quasar train, $name" > "$run/curve.tsv"
    sed -n 1,2p "$run/quasar-train.stdout"
    [ -s "$run/memory.txt" ] && echo "quasar, $name: peak memory $(tail -1 "$run/memory.txt") kB"
    curves+=("$run/curve.tsv")
  done
fi
curves+=(${QUASAR_RACE_CURVES:-})

# Each curve against wall time, then the time to the target.
for c in "${curves[@]}"; do
  echo
  sed -n 1p "$c" | sed 's/^# //'
  printf '%5s %10s %12s %12s %12s %12s\n' epoch wall_s E_train E_test F_train F_test
  awk '!/^#/ { printf "%5d %10.2f %12.4e %12.4e %12.4e %12.4e\n", $1, $2, $3, $4, $5, $6 }' "$c"
done
echo
echo "time to the target (epoch and seconds since start at which each error first falls to reference epoch 25's):"
printf '%-28s %9s %9s | %-17s %-17s %-17s %-17s | %s\n' run s/epoch epoch0_s E_train E_test F_train F_test all
summary=$out/summary.tsv
printf 'run\ts_per_epoch\tepoch0_s\tepoch_all\ttime_all_s\tE_train\tE_test\tF_train\tF_test\n' > "$summary"
for c in "${curves[@]}"; do
  awk -v t2="$t_etrain" -v t3="$t_etest" -v t4="$t_ftrain" -v t5="$t_ftest" -v tsv="$summary" '
    BEGIN { n = 0 } NR == 1 { name = substr($0, 3); next } /^#/ { next }
    { ep[n] = $1; w[n] = $2; for (k = 3; k <= 6; k++) v[n, k] = $k; n++ }
    END {
      lim[3] = t2; lim[4] = t3; lim[5] = t4; lim[6] = t5
      setup = w[0]; per = n > 1 ? (w[n - 1] - w[0]) / (ep[n - 1] - ep[0]) : 0
      line = sprintf("%-28s %9.3f %9.2f |", name, per, setup); row = sprintf("%s\t%.4f\t%.3f", name, per, setup)
      all = -1
      for (i = 0; i < n && all < 0; i++) { ok = 1; for (k = 3; k <= 6; k++) if (v[i, k] > lim[k]) ok = 0; if (ok) all = i }
      cols = ""
      for (k = 3; k <= 6; k++) {
        f = -1; for (i = 0; i < n && f < 0; i++) if (v[i, k] <= lim[k]) f = i
        line = line sprintf(" %-17s", f < 0 ? "not reached" : sprintf("%d: %.1f s", ep[f], w[f]))
        cols = cols sprintf("\t%s", f < 0 ? "NA" : sprintf("%.3f", w[f]))
      }
      line = line " | " (all < 0 ? "not reached" : sprintf("%d: %.1f s", ep[all], w[all]))
      print line
      print row "\t" (all < 0 ? "NA\tNA" : sprintf("%d\t%.3f", ep[all], w[all])) cols >> tsv
    }' "$c"
done
# Speed-ups against the first run (n2p2 with the first rank count when it ran).
awk -F'\t' 'NR == 1 { next } NR == 2 { base = $1; bt = $5; bs = $2; next }
  { printf "%s vs %s: %s per epoch, %s to the target (all four)\n", $1, base,
    ($2 > 0 ? sprintf("%.1fx", bs / $2) : "-"), ($5 != "NA" && bt != "NA" ? sprintf("%.1fx", bt / $5) : "-") }' "$summary"
echo "(Ha/atom and Ha/bohr; summary in $summary)"
