#!/usr/bin/env bash
# Grows the H + H2O Shepard surface of examples/shepard-grow-h-h2o against PySCF at UHF/6-31G**
# (analytic Hessians, run by the growth loop) and prints the reactive cross section of every
# iteration's surface against its data points: the convergence curve of docs/performance.md; then
# the final surface against UHF/6-31G** at fixed geometries (bench/shepard_grow_pyscf_check.py).
#   bash bench/shepard-grow-pyscf.sh [BUDGET]      (data points, default 300)
#   PYTHON: an interpreter with numpy and PySCF (default: scripts/python.sh's virtual environment,
#   else python3); TRAJECTORIES per iteration (default the example's 100); PER_ITERATION new points
#   by each criterion (default 5); THREADS for PySCF (default 2). Output in $OUT (default
#   /tmp/shepard-grow-pyscf): the log and the data set (written after every iteration).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/shepard-grow-pyscf}
mkdir -p "$out"
bin=${QUASAR:-build/quasar}
[ -x "$bin" ] || bin=build-cuda/quasar
venv=${QUASAR_PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/python}
python=${PYTHON:-$([ -x "$venv/bin/python" ] && echo "$venv/bin/python" || echo python3)}
"$python" -c "import pyscf" 2>/dev/null || { echo "needs PySCF in $python (pip install pyscf)" >&2; exit 1; }
budget=${1:-300}
per=${PER_ITERATION:-5}
input="$out/grow-$budget.toml"
sed -e "s/^iterations = .*/iterations = 100000/" \
    -e "s/^max_points = .*/max_points = $budget/" \
    -e "s/^h_weight_points = .*/h_weight_points = $per/" \
    -e "s/^variance_points = .*/variance_points = $per/" \
    -e "s/^trajectories = .*/trajectories = ${TRAJECTORIES:-100}/" \
    -e "s/^threads = .*/threads = ${THREADS:-2}/" \
    -e "s|^python = .*|python = \"$python\"|" \
    -e "s|^script = .*|script = \"$PWD/python/quasar/shepard/pyscf_reference.py\"|" \
    -e "s|^output = .*|output = \"h-h2o-$budget.shepard\"|" \
    examples/shepard-grow-h-h2o/input.toml > "$input"
start=$(date +%s)
log="$out/shepard-grow-pyscf-$budget.log"
"$bin" shepard grow "$input" | tee "$log" | grep --line-buffered "grow: iteration"
echo "# points  sigma_reactive(A^2)  +-  RMS error at the new points before adding them (meV)  seconds"
awk '/grow: iteration .* sigma/ {
       for (i = 1; i <= NF; ++i) { if ($i == "sigma") s = $(i+1) " " $(i+3); if ($i == "there") e = $(i+1); }
       printf "%7d  %s  %s  %s\n", $4, s, e, $(NF-1) }
     /failed|stopped/ { print "# " $0 }' "$log"
echo "# $(( $(date +%s) - start )) s; log: $log"
echo "# the grown surface against UHF/6-31G** at geometries it was not grown on"
"$python" bench/shepard_grow_pyscf_check.py "$out/h-h2o-$budget.shepard" "$bin"
