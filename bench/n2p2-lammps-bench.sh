#!/usr/bin/env bash
# n2p2 as its users run MD: LAMMPS with the ML-HDNNP pair style (pair_style hdnnp, n2p2's libnnpif) on the
# H2O_RPBE-D3 water potential (bohr and Ha; LAMMPS metal units through cflength/cfenergy), NVE from 300 K,
# timestep 0.5 fs, 1 Å neighbour skin rebuilt when an atom has moved half of it (Quasar's MD step). The
# 1,080-atom box of predict/H2O_RPBE-D3 is replicated (QUASAR_N2P2_CELLS, default "1 2 4": 1,080, 8,640 and
# 69,120 atoms). Before timing, one step-0 evaluation of the 1,080-atom box on the largest rank count is
# compared with n2p2's own prediction (expected.txt); a deviation over 1e-8 Ha or 1e-8 Ha/bohr stops the run.
# Each timed run: 2 steps to warm up (after the set-up evaluation), then as many steps as fit in
# QUASAR_N2P2_SECONDS (LAMMPS's `timer timeout`; `pre no` keeps the set-up's force evaluation out of that time);
# its loop time gives atom-steps/s. LAMMPS's "% CPU use" of that loop gives the rate per busy core (atom-steps
# per CPU-second and rank), the figure that holds where other work shares the cores (the load average before each
# run is printed too). Memory: the largest resident set of rank 0 (n2p2's symmetry-function derivatives
# included; about 57 kB per atom) and LAMMPS's own per-rank estimate (which leaves n2p2 out). Larger boxes:
# QUASAR_N2P2_CELLS="1 2 4 8" (553k atoms, about 32 GB in all).
#
# usage: bench/n2p2-lammps-bench.sh [ranks...]        (default: 1 and every core, `nproc`)
# env:   QUASAR_N2P2_LMP     LAMMPS built with ML-HDNNP against n2p2 (required)
#        QUASAR_N2P2_WATER   folder with input.nn, scaling.data, weights.001.data, weights.008.data, input.data
#                            and expected.txt (default ../shared/reference/n2p2/predict/H2O_RPBE-D3, else
#                            .peers/H2O_RPBE-D3)
#        QUASAR_N2P2_CELLS   replications per axis (default "1 2 4"); QUASAR_N2P2_SECONDS (default 20)
#        MPIRUN (default mpirun), MPIRUN_FLAGS (default --bind-to core)
#        OUT                 logs and inputs (default /tmp/n2p2-lammps-bench)
# On the GPU machine (carry .peers: n2p2-lammps.tar.xz holds the binary and the library the machine lacks,
# H2O_RPBE-D3/ the potential and structure):
#   tar xJf .peers/n2p2-lammps.tar.xz -C /tmp && QUASAR_N2P2_LMP=/tmp/n2p2-lammps/bin/lmp bash bench/n2p2-lammps-bench.sh 1 16
# Prints one line per run, then a summary (tab-separated, also in $OUT/summary.tsv).
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # nproc heeds OMP_NUM_THREADS
lmp=${QUASAR_N2P2_LMP:-}
if [ -z "$lmp" ] || [ ! -x "$lmp" ]; then
  echo "n2p2-lammps-bench: set QUASAR_N2P2_LMP to a LAMMPS binary built with the ML-HDNNP package against n2p2" >&2
  echo "  (docs/performance.md, 'How to run the peers'); got '${lmp}'" >&2
  exit 2
fi
water=../shared/reference/n2p2/predict/H2O_RPBE-D3
[ -d "$water" ] || water=.peers/H2O_RPBE-D3  # the GPU machine's carry
water=${QUASAR_N2P2_WATER:-$water}
for f in input.nn scaling.data weights.001.data weights.008.data input.data expected.txt; do
  [ -f "$water/$f" ] || { echo "n2p2-lammps-bench: $water/$f missing (set QUASAR_N2P2_WATER)" >&2; exit 2; }
done
water=$(cd "$water" && pwd)
cells=(${QUASAR_N2P2_CELLS:-1 2 4})
seconds=${QUASAR_N2P2_SECONDS:-20}
mpirun=${MPIRUN:-mpirun}
out=${OUT:-/tmp/n2p2-lammps-bench}
mkdir -p "$out"
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || { ranks=(1); [ "$cores" -gt 1 ] && ranks+=("$cores"); }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
echo "CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $cores cores usable; ranks ${ranks[*]}"
# The potential's units from LAMMPS's metal units: n2p2 length = cflength x Å, energy = cfenergy x eV.
cflength=1.8897261328 cfenergy=0.0367493254

# input.data (bohr) as a LAMMPS data file (Å), atoms in input.data's order; orthogonal box assumed.
awk -v c=$cflength '
  $1 == "lattice" { n++; L[n] = $(n + 1) / c; for (k = 1; k <= 3; k++) if (k != n && $(k + 1) != 0) skew = 1 }
  $1 == "end" { exit }
  $1 == "atom" { a++; x[a] = $2 / c; y[a] = $3 / c; z[a] = $4 / c; t[a] = ($5 == "H") ? 1 : 2 }
  END {
    if (skew || n != 3) {
      print "n2p2-lammps-bench: an orthogonal lattice is expected in input.data" > "/dev/stderr"; exit 1 }
    printf "H2O_RPBE-D3 water from input.data (bohr) in Å\n\n%d atoms\n2 atom types\n\n", a
    printf "0 %.15f xlo xhi\n0 %.15f ylo yhi\n0 %.15f zlo zhi\n\n", L[1], L[2], L[3]
    printf "Masses\n\n1 1.008\n2 15.999\n\nAtoms # atomic\n\n"
    for (i = 1; i <= a; i++) printf "%d %d %.15f %.15f %.15f\n", i, t[i], x[i], y[i], z[i]
  }' "$water/input.data" > "$out/water.data"

header() {  # the system and the potential
  cat <<EOF
units metal
atom_style atomic
boundary p p p
read_data $out/water.data
replicate $1 $1 $1
pair_style hdnnp 6.36 dir "$water/" showew no showewsum 0 resetew no maxew 100000000 &
  cflength $cflength cfenergy $cfenergy
pair_coeff * * H O
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
EOF
}
run_lmp() {  # ranks, input, log
  "$mpirun" -np "$1" ${MPIRUN_FLAGS:---bind-to core} $([ "$1" -gt "$cores" ] && echo --oversubscribe) \
    "$lmp" -in "$2" -log "$3" -screen none > "$3.stdout" 2>&1 ||
    { echo "n2p2-lammps-bench: LAMMPS failed ($3)" >&2; tail -20 "$3" "$3.stdout" >&2; exit 1; }
}

# 1. Step 0 of the 1,080-atom box against n2p2's prediction (expected.txt, Ha and Ha/bohr).
maxrank=${ranks[0]}; for r in "${ranks[@]}"; do [ "$r" -gt "$maxrank" ] && maxrank=$r; done
{ header 1; cat <<EOF
thermo_style custom step pe
run 0
print "CHECK_ENERGY \$(pe:%.17g)"
write_dump all custom $out/check.forces id fx fy fz modify sort id format float %.17g
EOF
} > "$out/in.check"
run_lmp "$maxrank" "$out/in.check" "$out/check.log"
awk -v ce=$cfenergy -v cl=$cflength -v ranks="$maxrank" '
  FNR == 1 { file++ }
  file == 1 && $1 == "CHECK_ENERGY" { e = $2 * ce }
  file == 2 && FNR > 9 { n++; f[n, 1] = $2 * ce / cl; f[n, 2] = $3 * ce / cl; f[n, 3] = $4 * ce / cl }
  file == 3 && $1 == "energy" { eref = $2 }
  file == 3 && $1 == "force" {
    m++; for (k = 1; k <= 3; k++) { d = f[m, k] - $(k + 1); if (d < 0) d = -d; if (d > df) df = d } }
  END {
    de = e - eref; if (de < 0) de = -de
    printf "check (%d ranks): energy %.10f Ha (n2p2 %.10f), |dE| %.2e Ha, max |dF| %.2e Ha/bohr over %d atoms\n",
      ranks, e, eref, de, df, m
    if (m != n || m == 0 || de > 1e-8 || df > 1e-8) {
      print "n2p2-lammps-bench: LAMMPS+n2p2 disagrees with expected.txt" > "/dev/stderr"; exit 1 }
  }' "$out/check.log" "$out/check.forces" "$water/expected.txt"

# 2. Timed NVE runs. Columns of the summary (one row per run):
cols=(ranks atoms steps loop_s atom_steps_per_s per_rank cpu_use_percent per_cpu_s pair_percent rank0_maxrss_MiB
      lammps_MiB_per_rank load_before)
(IFS=$'\t'; echo "${cols[*]}") > "$out/summary.tsv"
for r in "${ranks[@]}"; do
  for c in "${cells[@]}"; do
    tag=r${r}-c${c}
    { header "$c"; cat <<EOF
velocity all create 300.0 4928459 dist gaussian mom yes rot no
fix nve all nve
timestep 0.0005
thermo 100
thermo_style custom step temp pe ke etotal
run 2
timer timeout $seconds every 1
run 100000000 pre no
info memory out log
EOF
    } > "$out/in.$tag"
    load=$(cut -d' ' -f1 /proc/loadavg)  # other work on the machine shows here
    run_lmp "$r" "$out/in.$tag" "$out/$tag.log"
    # The second "Loop time" is the timed run's; its timing table holds Pair's %total and the CPU use.
    line=$(awk -v r="$r" -v load="$load" '
      /^Loop time of/ { loops++; if (loops == 2) { t = $4; s = $9; n = $12 } }
      loops == 2 && /^Pair +\|/ { pair = $NF }
      loops == 2 && /% CPU use with/ { cpu = $1; sub("%", "", cpu) }
      /^Per MPI rank memory allocation/ { lm = $(NF - 3) }
      /^Maximum resident set size:/ { rss = $5 }
      END { rate = n * s / t
            printf "%d\t%d\t%d\t%.3f\t%.4g\t%.4g\t%s\t%.4g\t%s\t%.0f\t%.1f\t%s\n",
                   r, n, s, t, rate, rate / r, cpu, rate / r / (cpu / 100), pair, rss, lm, load }' "$out/$tag.log")
    echo "$line" >> "$out/summary.tsv"
    echo "$line" | awk -F'\t' '{
      printf "ranks %d  atoms %d  steps %d  loop %.2f s  %.4g atom-steps/s  %.4g per rank", $1, $2, $3, $4, $5, $6
      printf "  CPU use %s%%  %.4g per CPU-s  pair %s%%  rank-0 max RSS %s MiB  LAMMPS %s MiB/rank  load %s\n",
             $7, $8, $9, $10, $11, $12 }'
  done
done
echo "summary ($out/summary.tsv):"
cat "$out/summary.tsv"
