#!/usr/bin/env bash
# A labelled water training set for n2p2's H2O_RPBE-D3 architecture, made with Quasar alone: the basis of the
# training race (bench/nnp-train-race.sh), since train/H2O_RPBE-D3 holds only 20 of the 7,241 structures behind
# reference-nnp-train.log.
#
# Structures: Langevin MD with the shipped potential (predict/H2O_RPBE-D3, bohr and hartree) of the 20 structures
# of train/H2O_RPBE-D3/input.data (11 of 48 atoms, 2 of 96, 7 of 192), each at every temperature of TEMPERATURES,
# all as one ensemble run (`quasar run` with [ensemble]); after EQUILIBRATE steps a frame of every system every
# SPACING steps (0.5 fs steps, Langevin tau 100 fs). Labels: the same potential's energies and forces at those
# frames (what the MD computed). The potential's architecture and symmetry functions are those of train/'s
# input.nn, so that a network trained on this set can reach zero error: the race measures how fast a trainer
# gets to the accuracy of the reference log, not what the data allow.
#
# The folder OUT gets input.data (n2p2's format, bohr and hartree; the comment line says step, system and
# temperature), input.nn (train/'s, with the reference run's output intervals), scaling.data (the symmetry-function statistics of input.data, as
# nnp-scaling computes them, from `quasar train` with 0 epochs), target.txt (reference-nnp-train.log's epoch-25
# errors) and the run's files under md/; and OUT.tar.xz of the four training files, to carry elsewhere.
#
# usage: bench/nnp-train-data.sh [OUT]                  (default /tmp/nnp-train-data)
# env:   QUASAR         the quasar command (default build/quasar)
#        DEVICE         cpu | cuda | auto (default auto); the MD takes 12 s on an H100, more than an hour on 2 cores
#        TEMPERATURES   K (default "300 400 500 600")
#        EQUILIBRATE    steps before the first frame (default 800), a multiple of SPACING
#        SPACING        steps between frames of a system (default 200: 0.1 ps)
#        FRAMES         frames per system (default 10); 20 x temperatures x frames structures in all (800)
#        SEED           the ensemble's seed (default 2026; system k draws with SEED + k)
#        QUASAR_NNP_TRAIN_DIR    n2p2's train/H2O_RPBE-D3 (default ../shared/reference/n2p2/train/H2O_RPBE-D3)
#        QUASAR_NNP_MODEL        the shipped potential (default ../shared/reference/n2p2/predict/H2O_RPBE-D3)
set -euo pipefail
cd "$(dirname "$0")/.."
quasar=$(realpath -e "${QUASAR:-build/quasar}") || { echo "nnp-train-data: no quasar command (set QUASAR)" >&2; exit 2; }
train=${QUASAR_NNP_TRAIN_DIR:-../shared/reference/n2p2/train/H2O_RPBE-D3}
model=${QUASAR_NNP_MODEL:-../shared/reference/n2p2/predict/H2O_RPBE-D3}
for f in "$train/input.nn" "$train/input.data" "$train/reference-nnp-train.log" "$model/input.nn"; do
  [ -f "$f" ] || { echo "nnp-train-data: $f missing (set QUASAR_NNP_TRAIN_DIR, QUASAR_NNP_MODEL)" >&2; exit 2; }
done
train=$(realpath "$train") model=$(realpath "$model")
out=$(realpath -m "${1:-/tmp/nnp-train-data}")
device=${DEVICE:-auto}
temperatures=(${TEMPERATURES:-300 400 500 600})
equilibrate=${EQUILIBRATE:-800} spacing=${SPACING:-200} frames=${FRAMES:-10} seed=${SEED:-2026}
[ $((equilibrate % spacing)) = 0 ] || { echo "nnp-train-data: EQUILIBRATE must be a multiple of SPACING" >&2; exit 2; }
steps=$((equilibrate + (frames - 1) * spacing))
mkdir -p "$out/md"
cd "$out/md"

# The start structures in Å and eV; system f * temperatures + c is structure f at temperature c.
"$quasar" convert --units bohr,Ha --output start.xyz "$train/input.data" > /dev/null
nstart=$(awk '$1 == "begin"' "$train/input.data" | wc -l)
list=()
for ((f = 0; f < nstart; f++)); do list+=("${temperatures[@]}"); done
cat > md.toml <<EOF
[structure]
file = "start.xyz"

[potential]
type = "nnp"
model = "$model"
length_unit = "bohr"
energy_unit = "Ha"

[md]
integrator = "langevin"
timestep_fs = 0.5
steps = $steps
temperature_K = ${temperatures[0]}
tau_t_fs = 100
seed = $seed

[ensemble]
copies = ${#temperatures[@]}
temperatures_K = [$(IFS=,; echo "${list[*]}")]

[output]
thermo_every = $spacing
thermo_csv = "thermo.csv"
trajectory = "traj.xyz"
trajectory_every = $spacing
progress = false
EOF
echo "nnp-train-data: $nstart structures x ${#temperatures[@]} temperatures (${temperatures[*]} K), $steps steps of 0.5 fs," \
  "frames from step $equilibrate every $spacing, on $device; $(date -u +%FT%TZ)"
start=$(date +%s.%N)
"$quasar" run md.toml --device "$device" > md.stdout 2>&1 || { tail -20 md.stdout >&2; exit 1; }
echo "MD: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }') s"

# The frames from step EQUILIBRATE on, each tagged with its system's temperature (kept in the comment line).
awk -v first="$equilibrate" -v temps="${temperatures[*]}" '
  BEGIN { nt = split(temps, t, " ") }
  left == 0 { n = $1; header = ""; left = -1; next }
  left == -1 { match($0, / step=[0-9]+/); step = substr($0, RSTART + 6, RLENGTH - 6)
               match($0, / system=[0-9]+/); sys = substr($0, RSTART + 8, RLENGTH - 8)
               keep = step + 0 >= first; if (keep) { print n; print $0 " temperature_K=" t[sys % nt + 1] }
               left = n; next }
  { if (keep) print; left-- }' traj.xyz > frames.xyz
"$quasar" convert --output-format n2p2 --units bohr,Ha --output "$out/input.data" frames.xyz > /dev/null
# train/'s input.nn, with the output intervals of the reference's own run (its log: energy and force comparison
# files every 25 epochs, neuron statistics every 5 and every epoch up to 10; weights every epoch and the training
# log as in the file), so that writing the comparison of every force each epoch does not weigh on the race.
sed -E -e 's/^(write_trainpoints|write_trainforces)([[:space:]]+)1([[:space:]])/\1\225\3/' \
  -e 's/^write_neuronstats([[:space:]]+)1 /write_neuronstats\15 10/' "$train/input.nn" > "$out/input.nn"

# scaling.data as nnp-scaling makes it (Quasar's statistics agree with it to 1e-13 relative).
rm -rf scaling && mkdir scaling
cp "$out/input.nn" "$out/input.data" scaling/
sed -i -E "s/^epochs([[:space:]]+)[0-9]+/epochs\10/" scaling/input.nn
(cd scaling && "$quasar" train . --device cpu --output out > train.stdout 2>&1) || { tail -20 scaling/train.stdout >&2; exit 1; }
cp scaling/out/scaling.data "$out/scaling.data"

# The target: the reference's errors after its last epoch (25), train and test, energy per atom and force.
awk '$1 == "ENERGY" { e1 = $3; e2 = $4; n = $2 } $1 == "FORCES" { f1 = $3; f2 = $4 }
  END { print "# reference-nnp-train.log, epoch " n ": RMSE energy per atom (Ha/atom) and force (Ha/bohr)";
        print "# E_train E_test F_train F_test"; print e1, e2, f1, f2 }' "$train/reference-nnp-train.log" > "$out/target.txt"

# What the set holds, and how far its symmetry functions reach beyond the shipped potential's range (scaling.data
# of its 7,241 structures): the networks are asked to extrapolate there.
awk '$1 == "begin" { s++; n = 0 } $1 == "atom" { n++; a++; f2 += $8 * $8 + $9 * $9 + $10 * $10 }
  $1 == "energy" { e = $2 / n; if (s == 1 || e < lo) lo = e; if (s == 1 || e > hi) hi = e }
  END { printf "input.data: %d structures, %d atoms; energy %.6f to %.6f Ha/atom; force RMS %.4e Ha/bohr\n",
        s, a, lo, hi, sqrt(f2 / (3 * a)) }' "$out/input.data"
awk 'FNR == 1 { file++ } /^#/ { next } file == 1 { lo[$1, $2] = $3; hi[$1, $2] = $4; next }
  { w = hi[$1, $2] - lo[$1, $2]; below = (lo[$1, $2] - $3) / w; above = ($4 - hi[$1, $2]) / w
    x = below > above ? below : above; if (x > worst) worst = x; if (x > 0) n++; total++ }
  END { printf "symmetry functions beyond the shipped potential'"'"'s range: %d of %d, by at most %.3f of the range\n",
        n, total, (worst > 0 ? worst : 0) }' "$model/scaling.data" "$out/scaling.data"
tar -C "$out" -cJf "$out.tar.xz" input.nn input.data scaling.data target.txt
echo "wrote $out (input.nn, input.data, scaling.data, target.txt) and $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1))"
