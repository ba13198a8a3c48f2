#!/usr/bin/env bash
# Quasi-classical trajectories of H + CH4 per second on a grown Shepard surface: the GPU beside the
# CPU, with the collision of examples/shepard-grow-h-ch4 (35 kcal/mol, b up to 1 Å, 0.2 fs steps).
#   bash bench/shepard-qct.sh SET.shepard [GPU_TRAJECTORIES] [CPU_TRAJECTORIES]
# SET: a grown set, e.g. `bash bench/shepard-grow.sh 300` then $OUT/h-ch4-300.shepard. Defaults:
# 4096 trajectories on the GPU, 128 on the CPU (all its threads; OMP_NUM_THREADS=1 for one core).
# Prints trajectories per second, steps per trajectory and the reaction cross section of each run.
set -euo pipefail
cd "$(dirname "$0")/.."
set_file=$(realpath "${1:?usage: bench/shepard-qct.sh SET.shepard [GPU_TRAJECTORIES] [CPU_TRAJECTORIES]}")
bin=$(realpath "${QUASAR:-build/quasar}")
out=${OUT:-/tmp/shepard-qct-bench}
mkdir -p "$out"
source bench/shepard-qct-input.sh
run() {  # device trajectories
  local input="$out/qct-$1.toml"
  qct_input "$1" "$set_file" examples/shepard-grow-h-ch4/input.toml "$2" "qct-$1.json" |
    sed 's/^seed = .*/seed = 7/' > "$input"
  "$bin" shepard qct "$input" > "$out/qct-$1.log"
  python3 - "$out/qct-$1.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n, s = len(r["trajectories"]), r["seconds"]
steps = r["trajectory_steps"] / n
x = r["reactive"]
print(f"{sys.argv[2]}: {n} trajectories in {s:.3g} s = {n / s:.4g} trajectories/s ({steps:.0f} steps each,"
      f" {r['trajectory_steps'] / s:.4g} trajectory-steps/s); reactive cross section"
      f" {x['cross_section_A2']:.4f} +- {x['cross_section_error_A2']:.4f} A^2")
PY
}
run cuda "${2:-4096}"
run cpu "${3:-128}"
