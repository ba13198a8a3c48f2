#!/usr/bin/env bash
# LAMMPS (Debian's lmp) on the CPU for the systems of bench/md_bench: LJ (2.5 sigma) and EAM Cu,
# at about 32k, 256k and 2M atoms; prints atom-steps/s per system. Usage: bench/lammps_cpu.sh [SIZES] [STEPS]
# SIZES: cells per edge for fcc (4 atoms per cell), default "20 40 80" -> 32000, 256000, 2048000 atoms.
set -euo pipefail
sizes=${1:-"20 40 80"}
steps=${2:-20}
lmp=${LMP:-lmp}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pot=/usr/share/lammps/potentials/Cu_u3.eam
printf "%-6s %10s %8s %14s\n" system atoms threads atom-steps/s
for n in $sizes; do
  for sys in lj eam; do
    if [ $sys = lj ]; then
      # Argon-like LJ in metal units at the reduced density 0.8442 (sigma 3.405 Å, eps 0.0104 eV).
      a=$(python3 -c "print((4/0.8442)**(1/3)*3.405)")
      body="pair_style lj/cut $(python3 -c "print(2.5*3.405)")
pair_coeff 1 1 0.0104 3.405
mass 1 39.948"
    else
      a=3.615
      body="pair_style eam
pair_coeff 1 1 $pot"
    fi
    cat > "$work/in.$sys" <<IN
units metal
atom_style atomic
lattice fcc $a
region box block 0 $n 0 $n 0 $n
create_box 1 box
create_atoms 1 box
$body
velocity all create 300.0 4928459 mom yes dist gaussian
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
timestep 0.002
fix 1 all nve
thermo 100
run 5
run $steps
IN
    OMP_NUM_THREADS=1 "$lmp" -in "$work/in.$sys" -log none -screen "$work/out.$sys" >/dev/null
    line=$(grep "^Loop time" "$work/out.$sys" | tail -1)
    secs=$(echo "$line" | awk '{print $4}')
    atoms=$(echo "$line" | awk '{print $12}')
    rate=$(python3 -c "print(f'{$atoms*$steps/$secs:.4g}')")
    printf "%-6s %10s %8s %14s\n" $sys "$atoms" 1 "$rate"
  done
done
