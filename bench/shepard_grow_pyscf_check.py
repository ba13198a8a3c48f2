"""The grown H + H2O surface against UHF/6-31G** itself at geometries no growth chose: the collinear
O-H1...H' path through the barrier, bent approaches near it, and H' at random directions 1.5-5 Å from O
(energies relative to H' 10 Å away, eV). Run by bench/shepard-grow-pyscf.sh after the growth:
    python bench/shepard_grow_pyscf_check.py DATASET.shepard QUASAR"""
import subprocess
import sys
import tempfile

import numpy as np
from pyscf import gto, scf

HARTREE = 27.21138602  # eV, the engine's
WATER = np.array([[0.0, 0.0, 0.0], [0.943, 0.0, 0.0], [-0.2583, 0.9069, 0.0]])


def geometries():
    out = [("reactants, H' 10 Å", np.vstack([WATER, [0.0, 0.0, 10.0]]))]
    for roh, rhh in [(0.943, 3.0), (1.1, 1.0), (1.2, 0.9), (1.3, 0.82), (1.4, 0.78), (1.8, 0.76), (4.0, 0.735)]:
        out.append((f"collinear O-H1 {roh}, H1-H' {rhh}", np.vstack([WATER[0], [roh, 0, 0], WATER[2], [roh + rhh, 0, 0.05]])))
    for angle in (160, 140, 120):
        a = np.radians(180 - angle)
        out.append((f"O-H1-H' {angle} deg, O-H1 1.2, H1-H' 0.9",
                    np.vstack([WATER[0], [1.2, 0, 0], WATER[2], [1.2 + 0.9 * np.cos(a), 0, 0.9 * np.sin(a) + 0.02]])))
    rng = np.random.default_rng(1)
    for r in (5.0, 3.0, 2.0, 1.5):
        for _ in range(3):
            u = rng.normal(size=3)
            out.append((f"H' {r} Å from O, random direction", np.vstack([WATER, r * u / np.linalg.norm(u)])))
    return out


def main(dataset, quasar):
    geoms = geometries()
    with tempfile.NamedTemporaryFile("w", suffix=".xyz") as f:
        for _, x in geoms:
            f.write("4\ngeometry\n" + "".join(f"{e} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}\n" for e, p in zip("OHHH", x)))
        f.flush()
        out = subprocess.run([quasar, "shepard", "eval", dataset, f.name], check=True, capture_output=True,
                             text=True).stdout
    surface = np.array([float(line.split()[1]) for line in out.splitlines() if not line.startswith("#")])
    uhf = []
    for _, x in geoms:
        mol = gto.M(atom=[(e, tuple(p)) for e, p in zip("OHHH", x)], basis="6-31g**", spin=1, verbose=0)
        uhf.append(scf.UHF(mol).kernel() * HARTREE)
    uhf = np.array(uhf)
    print("# geometry: UHF/6-31G**  surface  difference (eV, relative to the first)")
    for (name, _), e, s in zip(geoms, uhf - uhf[0], surface - surface[0]):
        print(f"{name:42s} {e:8.3f} {s:8.3f} {s - e:+8.3f}")
    d = (surface - surface[0]) - (uhf - uhf[0])
    print(f"# RMS difference {np.sqrt(np.mean(d[1:] ** 2)) * 1e3:.0f} meV, largest {np.max(np.abs(d)) * 1e3:.0f} meV")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
