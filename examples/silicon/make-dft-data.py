#!/usr/bin/env python3
"""Silicon training data from our own DFT: LDA (Si.pz-vbc.UPF) with Debian's Quantum ESPRESSO.

usage: make-dft-data.py WORKDIR [--np 2] [--quasar build/quasar --data examples/silicon/dft]

Builds 221 reproducible configurations (fixed seeds): the 8-atom diamond cell under 13 volume
strains, 80 more with shear strains and thermal displacements (about 300 K to 1500 K), 20 16-atom
cells, 4 with a vacancy in 63 atoms, 4 liquid snapshots of 64 atoms from Stillinger-Weber MD at
2500 K (Debian's LAMMPS and Si.sw), and 100 more 8-atom cells with larger strains and displacements.
LDA, 18 Ry, Marzari-Vanderbilt smearing 0.02 Ry; k-points: 4x4x4 and 3x3x3 for 8 atoms, 2x3x3 for
16, one shifted point (1x1x1, offset) for 63-64. About 50 minutes with two MPI processes. Runs pw.x
on each (skipping finished ones, so it can be resumed) and writes the pw.x outputs to WORKDIR/out/;
with --quasar, `quasar convert` turns them into DATA/train.xyz and DATA/valid.xyz (every eighth
configuration), and DATA/eos.xyz (the 13 volumes of the perfect crystal, for the equation of
state). Standard library only.
"""
import argparse
import math
import os
import random
import subprocess

A0 = 5.43  # Å, diamond silicon
PSEUDO_DIR = "/usr/share/espresso/pseudo"
BASIS = [(0, 0, 0), (0, .5, .5), (.5, 0, .5), (.5, .5, 0), (.25, .25, .25), (.25, .75, .75), (.75, .25, .75), (.75, .75, .25)]


def diamond(n1, n2, n3, a=A0):
    cell = [[n1 * a, 0, 0], [0, n2 * a, 0], [0, 0, n3 * a]]
    pos = [((i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a) for i in range(n1) for j in range(n2) for k in range(n3) for b in BASIS]
    return cell, pos


def strained(cell, pos, eps):
    """Applies the symmetric strain eps (3x3) to cell rows and positions."""
    f = [[(1 if r == c else 0) + eps[r][c] for c in range(3)] for r in range(3)]
    apply = lambda v: tuple(sum(v[c] * f[c][r] for c in range(3)) for r in range(3))
    return [list(apply(v)) for v in cell], [apply(p) for p in pos]


def shaken(pos, sigma, rng):
    return [tuple(x + rng.gauss(0, sigma) for x in p) for p in pos]


def random_strain(rng, amp):
    e = [[0.0] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            e[r][c] = e[c][r] = rng.uniform(-amp, amp) * (1 if r == c else 0.5)
    return e


def liquid_snapshots(work, count, seed):
    """64-atom liquid snapshots from Stillinger-Weber MD (LAMMPS) at 2500 K and liquid density."""
    d = os.path.join(work, "liquid")
    os.makedirs(d, exist_ok=True)
    scale = (2.33 / 2.57) ** (1 / 3)
    script = f"""units metal
atom_style atomic
lattice diamond {A0 * scale}
region box block 0 2 0 2 0 2
create_box 1 box
create_atoms 1 box
mass 1 28.0855
pair_style sw
pair_coeff * * /usr/share/lammps/potentials/Si.sw Si
velocity all create 5000 {seed} mom yes rot yes
fix 1 all nvt temp 2500 2500 0.1
timestep 0.001
run 5000
dump 1 all custom 1000 {d}/snap.*.dump id x y z
dump_modify 1 sort id
run {1000 * count}
"""
    with open(os.path.join(d, "in.lmp"), "w") as f:
        f.write(script)
    subprocess.run(["lmp", "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=d, check=True)
    snaps = []
    for step in range(1000 * 6, 1000 * (count + 5) + 1, 1000):
        lines = open(os.path.join(d, f"snap.{step}.dump")).read().splitlines()
        lo_hi = [tuple(map(float, lines[5 + k].split()[:2])) for k in range(3)]
        cell = [[lo_hi[0][1] - lo_hi[0][0], 0, 0], [0, lo_hi[1][1] - lo_hi[1][0], 0], [0, 0, lo_hi[2][1] - lo_hi[2][0]]]
        pos = [tuple(float(x) for x in l.split()[1:4]) for l in lines[9:]]
        snaps.append((cell, pos))
    return snaps[:count]


def configurations(work):
    rng = random.Random(20261122)
    confs = []
    # Equation of state: isotropic strain of the perfect 8-atom cell.
    for s in [-0.06 + 0.01 * k for k in range(13)]:
        cell, pos = diamond(1, 1, 1)
        confs.append(("eos", *strained(cell, pos, [[s, 0, 0], [0, s, 0], [0, 0, s]]), (4, 4, 4)))
    # Thermal displacements (sigma ~ 0.05 to 0.18 Å) with random strains, 8 and 16 atoms.
    for k in range(80):
        cell, pos = diamond(1, 1, 1)
        cell, pos = strained(cell, pos, random_strain(rng, 0.03))
        confs.append(("crystal8", cell, shaken(pos, rng.uniform(0.04, 0.18), rng), (3, 3, 3)))
    for k in range(20):
        cell, pos = diamond(2, 1, 1)
        cell, pos = strained(cell, pos, random_strain(rng, 0.02))
        confs.append(("crystal16", cell, shaken(pos, rng.uniform(0.05, 0.15), rng), (2, 3, 3)))
    # A vacancy: 63 atoms.
    # 63-64 atoms: one shifted k-point (the 2x2x2 mesh would take hours on two cores).
    for k in range(4):
        cell, pos = diamond(2, 2, 2)
        del pos[rng.randrange(len(pos))]
        confs.append(("vacancy", cell, shaken(pos, rng.uniform(0.03, 0.12), rng), (1, 1, 1, 1)))
    for cell, pos in liquid_snapshots(work, 4, 4928):
        confs.append(("liquid", cell, pos, (1, 1, 1, 1)))
    # More 8-atom cells from a stream of their own (the configurations above stay as they were):
    # strains up to 5% and displacements up to 0.25 Å (hot, strongly distorted crystal).
    more = random.Random(20261123)
    for k in range(100):
        cell, pos = diamond(1, 1, 1)
        cell, pos = strained(cell, pos, random_strain(more, 0.05))
        confs.append(("crystal8", cell, shaken(pos, more.uniform(0.04, 0.25), more), (3, 3, 3)))
    return confs


def pw_input(cell, pos, kpts):
    lines = ["&control", "  calculation = 'scf', tprnfor = .true., tstress = .true.,",
             f"  pseudo_dir = '{PSEUDO_DIR}', outdir = './tmp', disk_io = 'none'", "/",
             "&system", f"  ibrav = 0, nat = {len(pos)}, ntyp = 1, ecutwfc = 18.0,",
             "  occupations = 'smearing', smearing = 'mv', degauss = 0.02", "/",
             "&electrons", f"  conv_thr = {1e-9 * len(pos):.1e}", "/",
             "ATOMIC_SPECIES", "Si 28.0855 Si.pz-vbc.UPF", "CELL_PARAMETERS angstrom"]
    lines += ["  %.10f %.10f %.10f" % tuple(v) for v in cell]
    lines += ["ATOMIC_POSITIONS angstrom"] + ["Si %.10f %.10f %.10f" % p for p in pos]
    shift = 1 if len(kpts) > 3 else 0
    lines += ["K_POINTS automatic", "%d %d %d %d %d %d" % (*kpts[:3], shift, shift, shift)]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--quasar")
    ap.add_argument("--data")
    a = ap.parse_args()
    out = os.path.join(a.work, "out")
    os.makedirs(out, exist_ok=True)
    confs = configurations(a.work)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    for k, (kind, cell, pos, kpts) in enumerate(confs):
        name = os.path.join(out, f"{k:03d}-{kind}")
        if os.path.exists(name + ".out") and "JOB DONE" in open(name + ".out").read():
            continue
        with open(name + ".in", "w") as f:
            f.write(pw_input(cell, pos, kpts))
        with open(name + ".out", "w") as f:
            subprocess.run(["mpirun", "-np", str(a.np), "pw.x", "-in", name + ".in"], stdout=f, stderr=subprocess.STDOUT,
                           cwd=a.work, env=env, check=False)
        print(f"{k + 1}/{len(confs)} {kind}", flush=True)
    if a.quasar and a.data:
        os.makedirs(a.data, exist_ok=True)
        names = [os.path.join(out, f"{k:03d}-{c[0]}.out") for k, c in enumerate(confs)]
        parts = (("train", lambda k: k % 8 != 5), ("valid", lambda k: k % 8 == 5), ("eos", lambda k: confs[k][0] == "eos"))
        for part, keep in parts:
            subprocess.run([a.quasar, "convert", "--output", os.path.join(a.data, part + ".xyz")]
                           + [n for k, n in enumerate(names) if keep(k)], check=True)


if __name__ == "__main__":
    main()
