#!/usr/bin/env python3
"""The silicon model as DeePMD-kit runs it on the CPU against Quasar, on one frame.

usage: deepmd_kit_cpu_check.py MODEL.dp MODEL.pb QUASAR LMP WORKDIR [--tol 1e-10]

The frame: the 216-atom diamond crystal (a = 5.38 Å) with every atom displaced by a Gaussian of
0.1 Å per axis (seeded), written as a LAMMPS data file. It is evaluated four ways: DeePMD-kit's
DeepPot on MODEL.dp (its NumPy backend, which gives the energy only), DeepPot on MODEL.pb
(TensorFlow, the converted model), LAMMPS's `pair_style deepmd` with MODEL.pb (`run 0`, as the
benchmark's MD runs it) and `QUASAR eval`. Prints the largest differences from Quasar in energy
(eV), forces (eV/Å) and virial (eV); exits 1 when one exceeds --tol.
"""
import argparse
import itertools
import json
import subprocess
import sys

import numpy as np

A = 5.38
REPEAT = 3
NKTV2P = 1.6021765e6  # LAMMPS's bar * Å^3 -> eV in metal units


def diamond_frame(seed=15, sigma=0.1):
    basis = np.array([[0, 0, 0], [0, 2, 2], [2, 0, 2], [2, 2, 0], [1, 1, 1], [1, 3, 3], [3, 1, 3], [3, 3, 1]]) / 4
    cells = np.array(list(itertools.product(range(REPEAT), repeat=3)), dtype=float)
    coords = ((cells[:, None, :] + basis[None, :, :]).reshape(-1, 3)) * A
    coords += np.random.default_rng(seed).normal(0.0, sigma, coords.shape)
    box = np.eye(3) * A * REPEAT
    # Wrapped into the box: LAMMPS drops atoms outside it when it reads a data file.
    return np.mod(coords, np.diag(box)), box


def write_data(path, coords, box):
    with open(path, "w") as f:
        f.write(f"diamond silicon, displaced\n\n{len(coords)} atoms\n1 atom types\n\n")
        for axis, length in zip("xyz", np.diag(box)):
            f.write(f"0 {float(length)!r} {axis}lo {axis}hi\n")
        f.write("\nMasses\n\n1 28.0855\n\nAtoms # atomic\n\n")
        for i, r in enumerate(coords.tolist(), start=1):
            f.write(f"{i} 1 {r[0]!r} {r[1]!r} {r[2]!r}\n")  # repr: the float read back is the same


def deeppot(model, coords, box):
    from deepmd.infer import DeepPot

    e, f, v = DeepPot(model).eval(coords[None], box.reshape(1, 9), np.zeros(len(coords), dtype=int))[:3]
    return float(np.ravel(e)[0]), np.asarray(f).reshape(-1, 3), np.asarray(v).reshape(3, 3)


def quasar(exe, model, data):
    cmd = [exe, "eval", "--model", model, "--structure", data, "--format", "lammps-data", "--type-map", "Si",
           "--device", "cpu", "--json"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {run.stderr}")
    r = json.loads(run.stdout)
    return r["energy"], np.array(r["forces"]), np.array(r["virial"])


def lammps(exe, model, data, workdir):
    with open(f"{workdir}/in.check", "w") as f:
        f.write(f"""units metal
atom_style atomic
atom_modify map array
read_data {data}
pair_style deepmd {model}
pair_coeff * * Si
compute vir all pressure NULL virial
thermo_style custom step pe c_vir[*]
run 0
print "RESULT $(pe:%.17g) $(vol:%.17g) {' '.join(f'$(c_vir[{k}]:%.17g)' for k in range(1, 7))}"
write_dump all custom {workdir}/check.dump id fx fy fz modify sort id format float %.17g
""")
    log = f"{workdir}/check.lmp.log"
    run = subprocess.run([exe, "-in", f"{workdir}/in.check", "-log", "none", "-screen", log], cwd=workdir,
                         capture_output=True, text=True)
    lines = [l for l in open(log) if l.startswith("RESULT")] if run.returncode == 0 else []
    if not lines:
        sys.exit(f"LAMMPS failed (exit status {run.returncode}); see {log}\n{run.stderr[-2000:]}")
    e, vol, xx, yy, zz, xy, xz, yz = map(float, lines[-1].split()[1:])
    virial = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]) * vol / NKTV2P
    return e, np.loadtxt(f"{workdir}/check.dump", skiprows=9)[:, 1:4], virial


parser = argparse.ArgumentParser()
for name in ("dp", "pb", "quasar", "lmp", "workdir"):
    parser.add_argument(name)
parser.add_argument("--tol", type=float, default=1e-10)
args = parser.parse_args()

coords, box = diamond_frame()
data = f"{args.workdir}/check.data"
write_data(data, coords, box)
ref = quasar(args.quasar, args.dp, data)
print(f"one frame, {len(coords)} atoms (largest |force| {np.abs(ref[1]).max():.2f} eV/Å): "
      f"quasar eval {ref[0]:.12f} eV; largest differences from it:")
print(f"  {'':37s} {'energy eV':>10s} {'force eV/Å':>11s} {'virial eV':>10s}")
worst = 0.0
for name, got in (("DeePMD-kit DeepPot, model.dp (NumPy)", deeppot(args.dp, coords, box)),
                  ("DeePMD-kit DeepPot, converted (TF)", deeppot(args.pb, coords, box)),
                  ("LAMMPS pair deepmd, converted (TF)", lammps(args.lmp, args.pb, data, args.workdir))):
    d = [abs(got[0] - ref[0]), np.abs(got[1] - ref[1]).max(), np.abs(got[2] - ref[2]).max()]
    # DeePMD-kit's NumPy backend has no derivatives: its forces and virial come back as NaN.
    worst = max(worst, *(x for x in d if not np.isnan(x)))
    cols = [f"{x:{w}.2e}" if not np.isnan(x) else f"{'n/a':>{w}s}" for x, w in zip(d, (10, 11, 10))]
    print(f"  {name:37s} {' '.join(cols)}")
if worst > args.tol:
    sys.exit(f"the models disagree by {worst:.2e}, more than {args.tol:g}")
