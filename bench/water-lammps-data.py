#!/usr/bin/env python3
"""LAMMPS data file of the benchmark water box: frame 0 of a deepmd/npy system (DeePMD-kit's water
data: 192 atoms) repeated NX x NY x NZ times, as bench_md_bench builds it (types O=1, H=2).

usage: water-lammps-data.py DATA_DIR NX NY NZ > water.data"""
import sys

import numpy as np

folder, reps = sys.argv[1], [int(v) for v in sys.argv[2:5]]
box = np.load(f"{folder}/set.000/box.npy")[0].reshape(3, 3)
coord = np.load(f"{folder}/set.000/coord.npy")[0].reshape(-1, 3)
types = np.loadtxt(f"{folder}/type.raw", dtype=int).ravel()
names = open(f"{folder}/type_map.raw").read().split()
if not np.allclose(box, np.diag(np.diag(box))):
    sys.exit("water-lammps-data.py: an orthogonal box is expected")
shifts = np.array([[i, j, k] for i in range(reps[0]) for j in range(reps[1]) for k in range(reps[2])]) @ box
pos = (shifts[:, None, :] + coord[None, :, :]).reshape(-1, 3)
atype = np.tile(types, len(shifts)) + 1
mass = {"O": 15.999, "H": 1.008}
out = [f"water {reps} from {folder}", "", f"{len(pos)} atoms", f"{len(names)} atom types", ""]
for k, axis in enumerate("xyz"):
    out.append(f"0 {box[k, k] * reps[k]:.12f} {axis}lo {axis}hi")
out += ["", "Masses", ""] + [f"{t + 1} {mass[n]}  # {n}" for t, n in enumerate(names)] + ["", "Atoms # atomic", ""]
out += [f"{i + 1} {t} {p[0]:.12f} {p[1]:.12f} {p[2]:.12f}" for i, (t, p) in enumerate(zip(atype, pos))]
sys.stdout.write("\n".join(out) + "\n")
