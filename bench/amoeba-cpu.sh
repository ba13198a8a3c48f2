#!/usr/bin/env bash
# AMOEBA on the CPU: seconds per `quasar eval` of Tinker's benchmark systems (../shared/reference/amoeba/bench:
# bench5, 648 waters; bench7, DHFR in water, 23,558 atoms), each term alone (the key plus Tinker's switch
# `NAMEterm only`) and all terms together; best of REPEATS runs.
#   bash bench/amoeba-cpu.sh [SYSTEMS] [REPEATS]      (defaults: "bench5 bench7", 3)
# A run is the whole process: reading the key, the parameter file and the structure is included (the
# cheapest terms show about what that costs). QUASAR: the binary (default build/quasar); SHARED: the
# shared folder (default ../shared); OUT: scratch folder for the keys and outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${QUASAR:-build/quasar}")
shared=$(realpath "${SHARED:-../shared}")
src="$shared/reference/amoeba/bench"
[ -d "$src" ] || { echo "amoeba-cpu.sh: $src is not here" >&2; exit 1; }
out=${OUT:-/tmp/amoeba-cpu-bench}
mkdir -p "$out"
systems=${1:-bench5 bench7}
repeats=${2:-3}
echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# Best wall-clock seconds of `quasar eval` on KEY over the repeats.
best_of() {
  local key=$1 xyz=$2 best="" t0 t1 s
  for _ in $(seq "$repeats"); do
    t0=$(date +%s.%N)
    "$bin" eval --model "$key" --structure "$xyz" --device cpu > "$key.out"
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
  done
  printf '%.3f' "$best"
}

for sys in $systems; do
  xyz="$src/$sys.xyz"
  # The key with its parameter file named by an absolute path (it is relative to the key's folder).
  base="$out/$sys.key"
  prm=$(sed -n 's/^parameters[[:space:]]\+\([^[:space:]]\+\).*/\1/p' "$src/$sys.key")
  prm=$(realpath "$src/$prm")
  sed "s|^parameters[[:space:]].*|parameters $prm|" "$src/$sys.key" > "$base"
  atoms=$(head -1 "$xyz" | awk '{print $1}')
  terms=$("$bin" eval --model "$base" --structure "$xyz" --device cpu --json |
    python3 -c 'import json, sys; print(" ".join(json.load(sys.stdin)["terms"]))')
  echo "$sys ($atoms atoms): seconds per evaluation, best of $repeats"
  for term in $terms; do
    key="$out/$sys-$term.key"
    { cat "$base"; echo; echo "${term}term only"; } > "$key"
    printf '  %-10s %s\n' "$term" "$(best_of "$key" "$xyz")"
  done
  printf '  %-10s %s\n' "total" "$(best_of "$base" "$xyz")"
  grep -m1 "Total Potential Energy" "$base.out" | sed 's/^ */  /'
done
