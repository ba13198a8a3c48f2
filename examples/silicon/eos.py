#!/usr/bin/env python3
"""Equation of state of diamond silicon: DFT against the model.

usage: eos.py EOS.xyz MODEL_EVAL.json

EOS.xyz holds the DFT frames (8-atom cubic cells at several volumes, with energy=); MODEL_EVAL.json
is `quasar eval --model M --structure EOS.xyz --json` for the same frames. Fits the third-order
Birch-Murnaghan form (a cubic in V^(-2/3)) to both and prints the lattice constant, bulk modulus
and the energies per atom. Standard library only.
"""
import json
import sys

EV_PER_A3_IN_GPA = 160.21766208


def frames(path):
    lines = open(path).read().splitlines()
    out, k = [], 0
    while k < len(lines):
        n = int(lines[k])
        head = lines[k + 1]
        h = [float(x) for x in head.split('Lattice="')[1].split('"')[0].split()]
        vol = abs(h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) + h[2] * (h[3] * h[7] - h[4] * h[6]))
        energy = float(head.split("energy=")[1].split()[0])
        out.append((n, vol, energy))
        k += n + 2
    return out


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def birch_murnaghan(vols, energies):
    """E = sum_k c_k x^k, x = V^(-2/3): returns V0, E0, B0 (eV/Å^3)."""
    xs = [v ** (-2.0 / 3.0) for v in vols]
    a = [[sum(x ** (i + j) for x in xs) for j in range(4)] for i in range(4)]
    b = [sum(e * x ** i for x, e in zip(xs, energies)) for i in range(4)]
    c = solve(a, b)
    x = sum(xs) / len(xs)
    for _ in range(100):  # Newton on dE/dx = 0
        d1 = c[1] + 2 * c[2] * x + 3 * c[3] * x * x
        d2 = 2 * c[2] + 6 * c[3] * x
        x -= d1 / d2
    v0 = x ** -1.5
    e0 = sum(c[k] * x ** k for k in range(4))
    b0 = 4.0 / 9.0 * (2 * c[2] + 6 * c[3] * x) * v0 ** (-7.0 / 3.0)
    return v0, e0, b0


def main():
    dft = frames(sys.argv[1])
    model = json.load(open(sys.argv[2]))
    model = model if isinstance(model, list) else [model]
    n = dft[0][0]
    vols = [v for _, v, _ in dft]
    for name, es in (("DFT (LDA)", [e for _, _, e in dft]), ("model", [m["energy"] for m in model])):
        v0, e0, b0 = birch_murnaghan(vols, es)
        print(f"{name:10s} a0 {v0 ** (1 / 3):.4f} Å  B0 {b0 * EV_PER_A3_IN_GPA:.1f} GPa  E0 {e0 / n:.5f} eV/atom")
    print("volume (Å^3/atom)  E_DFT - E_model (meV/atom)")
    for (_, v, e), m in zip(dft, model):
        print(f"  {v / n:8.3f}  {1000 * (e - m['energy']) / n:8.2f}")


if __name__ == "__main__":
    main()
