#!/usr/bin/env bash
# The reaction cross section on the surfaces of a grown set's first N points, for several N: with
# constant confidence lengths (examples/shepard-grow-h-h2o) the first N points of the final set are
# the growth's own surface at N points, so this gives the convergence curve with as many
# trajectories per surface as wanted.
#   bash bench/shepard-qct-convergence.sh SET.shepard INPUT.toml "N1 N2 ..." [TRAJECTORIES]
# INPUT.toml: its [qct] table (e.g. examples/shepard-grow-h-h2o/input.toml); QCT_EXTRA: more [qct]
# lines (e.g. 'quanta = [0, 0, 2]'); DEVICE (default cuda when a GPU answers, else cpu). Prints
# points, trajectories, reactive count and sigma +- its standard error (Å^2) per surface.
set -euo pipefail
cd "$(dirname "$0")/.."
set_file=$(realpath "${1:?usage: SET.shepard INPUT.toml \"N1 N2 ...\" [TRAJECTORIES]}")
input=$(realpath "${2:?}")
sizes=${3:?}
trajectories=${4:-4096}
bin=$(realpath "${QUASAR:-build/quasar}")
out=${OUT:-/tmp/shepard-qct-convergence}
mkdir -p "$out"
source bench/shepard-qct-input.sh
echo "# points  trajectories  reactive  sigma(A^2)  error(A^2)"
for n in $sizes; do
  # The header, then points 1..n ("points" says how many).
  awk -v n="$n" '/^points / { print "points " n; next } /^point / { if ($2 > n) exit } { print }' "$set_file" \
    > "$out/first-$n.shepard"
  qct_input "${DEVICE:-auto}" "$out/first-$n.shepard" "$input" "$trajectories" "qct-$n.json" "${QCT_EXTRA:-}" \
    > "$out/qct-$n.toml"
  "$bin" shepard qct "$out/qct-$n.toml" > "$out/qct-$n.log" 2>&1 || { echo "$n: failed (see $out/qct-$n.log)"; continue; }
  python3 - "$out/qct-$n.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
x = r["reactive"]
print(f"{sys.argv[2]:>8}  {x['trajectories']:>12}  {x['count']:>8}  {x['cross_section_A2']:.4f}  {x['cross_section_error_A2']:.4f}")
PY
done
