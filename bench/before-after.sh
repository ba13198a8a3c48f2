#!/usr/bin/env bash
# Two builds of bench_md_bench measured in one device call, alternating, so that a change's cost is
# read against the same GPU state: the Deep Potential (water, every precision mode, exact and
# compressed nets, as bench/dp-bench.sh) and LJ and EAM (bench_md_bench's own systems).
#   bash bench/before-after.sh BEFORE_BENCH AFTER_BENCH [CELLS] [REPEATS]
# CELLS: water box (cells^3 copies of 192 atoms; 4 -> 12,288 atoms); REPEATS alternations (default 2).
# Prints every run and, last, a table of the best rate of each build and their ratio (after / before).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
before=$1 after=$2 cells=${3:-4} repeats=${4:-2}
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
export QUASAR_DP_WATER=${QUASAR_DP_WATER:-$PWD/.gpu/shared/reference/deepmd/bench/water-se_e2_a-bench.dp}
export QUASAR_WATER_DATA=${QUASAR_WATER_DATA:-$PWD/.gpu/shared/reference/deepmd/water-data/data_0}
[ -d .gpu/potentials ] && export QUASAR_LAMMPS_POTENTIALS=$PWD/.gpu/potentials
log=$out/before-after.log
: > "$log"
runs=()
for p in double mixed32 mixed16; do
  for c in 0 0.5; do runs+=("--systems water --cells $cells --precision $p --compress $c"); done
done
runs+=("--systems lj" "--systems eam")
for args in "${runs[@]}"; do
  for ((r = 0; r < repeats; ++r)); do
    for which in before after; do
      bin=$before
      [ $which = after ] && bin=$after
      # shellcheck disable=SC2086
      "$bin" --device cuda $args 2>&1 | grep -v '^sys ' | sed "s|^|$which $args: |" | tee -a "$log"
    done
  done
done
# The best rate per (arguments, atoms) and build.
python3 - "$log" <<'EOF'
import re, sys
best = {}
for line in open(sys.argv[1]):
    m = re.match(r"(before|after) (.*?): (\S+)\s+(\d+)\s+cuda\s+\d+\s+(\S+)", line)
    if not m:
        continue
    which, args, system, atoms, rate = m.groups()
    key = (args, atoms)
    best.setdefault(key, {})
    best[key][which] = max(best[key].get(which, 0.0), float(rate))
print(f"{'run':58} {'atoms':>8} {'before':>11} {'after':>11} {'ratio':>7}")
for (args, atoms), v in best.items():
    b, a = v.get("before", 0.0), v.get("after", 0.0)
    ratio = a / b if b else float("nan")
    print(f"{args:58} {atoms:>8} {b:11.4g} {a:11.4g} {ratio:7.3f}")
EOF
