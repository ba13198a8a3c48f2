#!/usr/bin/env bash
# Grows H + CH4 Shepard data sets against the analytic CBG-2009 surface (examples/shepard-grow-h-ch4)
# to point budgets and prints the held-out RMS error each reached (a line per iteration in
# $OUT/shepard-grow-BUDGET.log; the data sets there too).
#   bash bench/shepard-grow.sh [BUDGET ...]     (default: 100 300 1000 2000)
#   DEVICE=cuda to interpolate on the GPU; PER_ITERATION (new points by each criterion per
#   iteration, default budget / 40, at least 5); TRAJECTORIES per iteration (default 40);
#   HELD_OUT configurations (default 500); CONFIDENCE, the lengths' mode (default the example's:
#   fitted, constant or bayes); LENGTH, the constant confidence length (1/Å, default the example's
#   0.3; with fitted, the length of a set under 10 points).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/shepard-grow-bench}
mkdir -p "$out"
bin=${QUASAR:-build/quasar}
[ -x "$bin" ] || bin=build-cuda/quasar
device=${DEVICE:-cpu}
for budget in ${@:-100 300 1000 2000}; do
  per=${PER_ITERATION:-$(( budget / 40 > 5 ? budget / 40 : 5 ))}
  input="$out/grow-$budget.toml"
  sed -e "s/^iterations = .*/iterations = 100000/" \
      -e "s/^max_points = .*/max_points = $budget/" \
      -e "s/^target_rms_meV = .*/target_rms_meV = 0/" \
      -e "s/^h_weight_points = .*/h_weight_points = $per/" \
      -e "s/^variance_points = .*/variance_points = $per/" \
      -e "s/^trajectories = .*/trajectories = ${TRAJECTORIES:-40}/" \
      -e "s/^held_out = .*/held_out = ${HELD_OUT:-500}/" \
      -e "s/^length = [0-9.]*/length = ${LENGTH:-0.3}/" \
      ${CONFIDENCE:+-e "s/^confidence = \"[a-z]*\"/confidence = \"$CONFIDENCE\"/"} \
      -e "s|^output = .*|output = \"h-ch4-$budget.shepard\"|" \
      examples/shepard-grow-h-ch4/input.toml > "$input"
  start=$(date +%s)
  "$bin" shepard grow "$input" --device "$device" | tee "$out/shepard-grow-$budget.log" | grep --line-buffered "grow: iteration"
  echo "budget $budget: $(grep 'grow: iteration' "$out/shepard-grow-$budget.log" | tail -1) [$(( $(date +%s) - start )) s]"
done
