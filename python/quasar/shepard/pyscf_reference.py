"""Ab initio reference points for modified Shepard surfaces: energies, analytic gradients and analytic
Hessians from PySCF (Hartree-Fock or Kohn-Sham DFT, restricted for singlets and unrestricted otherwise),
in Quasar's units.

    from quasar.shepard import pyscf_reference as ref
    r = ref.compute(["O", "H", "H", "H"], positions, method="hf", basis="6-31g**", spin=1)
    r.energies (M,) eV, r.gradients (M, N, 3) eV/Å, r.hessians (M, 3N, 3N) eV/Å^2

As a process (what a growth loop in C++ runs; docs/formats/shepard.md, "The PySCF reference"):

    python -m quasar.shepard.pyscf_reference GEOMETRIES.xyz POINTS [--method hf] [--basis 6-31g**]
        [--charge 0] [--spin 1] [--threads 2] [--conv-tol 1e-10] [--conv-tol-grad 1e-7] [--failures FILE]

reads every frame of a (multi-frame) XYZ file and writes the Cartesian-points file that
`quasar shepard build` reads; with --failures, frames whose SCF does not converge are listed there
and left out instead of failing the run (what `quasar shepard grow`'s [reference] runs). The file
imports nothing of Quasar's, so `python pyscf_reference.py ...` works without the compiled package.
Needs PySCF (`pip install pyscf`).

Units. Positions go to PySCF in bohr and its results come back through Quasar's own constants
(src/quasar/core/units.hpp: 1 bohr = 0.52917721067 Å, 1 hartree = 27.21138602 eV), not PySCF's
(whose bohr is CODATA 2010's), so that the gradient in eV/Å is the derivative of the energy in eV
with respect to positions in Å exactly, as the engine sees them.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

BOHR = 0.52917721067       # Å (Quasar's units::bohr)
HARTREE = 27.21138602      # eV (Quasar's units::hartree)
HARTREE_PER_BOHR = HARTREE / BOHR
HARTREE_PER_BOHR2 = HARTREE / BOHR**2

__all__ = ["compute", "Reference", "Points", "read_xyz", "write_points", "level_of_theory", "BOHR", "HARTREE"]


def _pyscf():
    try:
        import pyscf  # noqa: F401
        from pyscf import dft, gto, scf
    except ImportError as e:
        raise ImportError("the PySCF reference needs PySCF: pip install pyscf") from e
    return gto, scf, dft


@dataclass
class Points:
    """Cartesian points: elements (N,), positions (M, N, 3) Å, energies (M,) eV, gradients (M, N, 3)
    eV/Å (dE/dx, not forces), hessians (M, 3N, 3N) eV/Å^2 (coordinates atom by atom: x1 y1 z1 x2 ...),
    and the seconds each point took."""

    elements: list[str]
    positions: np.ndarray
    energies: np.ndarray
    gradients: np.ndarray
    hessians: np.ndarray
    seconds: list[float] = field(default_factory=list)
    failures: dict[int, str] = field(default_factory=dict)  # point index -> why it was skipped (skip_failures)
    rescued: dict[int, str] = field(default_factory=dict)   # point index -> the fallback its SCF converged with


Reference = Points  # what compute() returns


def level_of_theory(method: str, basis: str, spin: int) -> str:
    """The name of the level of theory, "UHF/6-31G**" or "UB3LYP/6-31G**", say."""
    prefix = "U" if spin else "R"
    name = "HF" if method.lower() == "hf" else method.upper()
    return f"{prefix}{name}/{basis.upper()}"


def _mean_field(elements, positions_a, method, basis, charge, spin, conv_tol, conv_tol_grad, grid_level):
    gto, scf, dft = _pyscf()
    atoms = [(e, tuple(float(c) / BOHR for c in r)) for e, r in zip(elements, positions_a)]
    mol = gto.M(atom=atoms, unit="Bohr", basis=basis, charge=charge, spin=spin, verbose=0)
    if method.lower() == "hf":
        mf = scf.UHF(mol) if spin else scf.RHF(mol)
    else:
        mf = dft.UKS(mol) if spin else dft.RKS(mol)
        mf.xc = method
        mf.grids.level = grid_level
    mf.conv_tol = conv_tol
    mf.conv_tol_grad = conv_tol_grad
    mf.max_cycle = 200
    return mf


# What is tried, in order, when the SCF does not converge: its defaults (DIIS from the given or the
# minimal-basis guess), then a level shift with damping, then the second-order (Newton) solver from
# the superposition-of-atoms guess. Each must meet the same tolerances, so that the derivatives of a
# rescued point are as accurate as any other's.
FALLBACKS = ("default", "level shift", "second-order")


class SCFNotConverged(RuntimeError):
    """An SCF that none of FALLBACKS converged: what skip_failures skips (any other error stops)."""


def _converged_scf(elements, positions_a, method, basis, charge, spin, conv_tol, conv_tol_grad, grid_level, dm0):
    tried = []
    for attempt in FALLBACKS:
        mf = _mean_field(elements, positions_a, method, basis, charge, spin, conv_tol, conv_tol_grad, grid_level)
        if attempt == "default":
            e = mf.kernel(dm0=dm0)
            if mf.converged:
                return mf, e, tried
        else:
            if attempt == "level shift":
                solver = mf
                solver.level_shift = 0.5
                solver.damp = 0.5
                solver.diis_start_cycle = 4
                solver.max_cycle = 400
                solver.kernel()
            else:
                solver = mf.newton()
                solver.max_cycle = 100
                solver.kernel(dm0=mf.get_init_guess(key="atom"))
            if solver.converged:
                # Finish with the plain solver from that density: the level shift moves the orbital
                # energies, and the derivatives are the plain mean field's.
                mf = _mean_field(elements, positions_a, method, basis, charge, spin, conv_tol, conv_tol_grad,
                                 grid_level)
                e = mf.kernel(dm0=solver.make_rdm1())
                if mf.converged:
                    return mf, e, tried
        tried.append(attempt)
    raise SCFNotConverged(f"the SCF did not converge ({level_of_theory(method, basis, spin)}; tried "
                       f"{', '.join(FALLBACKS)})")


def _one_point(elements, positions_a, method, basis, charge, spin, conv_tol, conv_tol_grad, grid_level, derivatives,
               dm0=None):
    mf, e, tried = _converged_scf(elements, positions_a, method, basis, charge, spin, conv_tol, conv_tol_grad,
                                  grid_level, dm0)
    n = len(elements)
    g = h = None
    if derivatives >= 1:
        g = np.asarray(mf.nuc_grad_method().kernel()) * HARTREE_PER_BOHR
    if derivatives >= 2:
        # PySCF's Hessian is [atom i, atom j, i's component, j's component].
        hb = np.asarray(mf.Hessian().kernel())
        h = hb.transpose(0, 2, 1, 3).reshape(3 * n, 3 * n) * HARTREE_PER_BOHR2
    return e * HARTREE, g, h, mf.make_rdm1(), FALLBACKS[len(tried)]


def compute(elements: Sequence[str], positions, method: str = "hf", basis: str = "6-31g**", charge: int = 0,
            spin: int = 1, derivatives: int = 2, conv_tol: float = 1e-10, conv_tol_grad: float = 1e-7,
            grid_level: int = 3, guess: str = "minao",
            threads: Optional[int] = None, progress=None, skip_failures: bool = False) -> Points:
    """Energies, gradients and Hessians of one geometry ((N, 3), Å) or many ((M, N, 3)).

    method: "hf" or an exchange-correlation functional PySCF knows ("b3lyp", "pbe", ...); spin: the
    number of unpaired electrons (2S; OH3 is a doublet: 1): restricted for 0, unrestricted otherwise;
    derivatives: 0 (energies), 1 (and gradients) or 2 (and Hessians); conv_tol and conv_tol_grad: the
    SCF's tolerances on the energy (hartree) and on the orbital gradient, which the analytic gradient's
    error follows linearly (1e-7: about 1e-5 eV/Å; derivatives are accurate only as far as the SCF is
    converged); grid_level: PySCF's DFT
    grid level (DFT only; its gradients omit the grid's response, an error of about the grid's);
    guess: "minao" (PySCF's default initial guess at every point, so that a point does not depend on
    the others) or "previous" (each point after the first starts from the previous point's density:
    fewer SCF cycles for a sequence of nearby geometries, such as finite differences); threads: PySCF's
    thread count (default: its own). progress: a stream for one line per point.
    Missing derivatives are NaN. An SCF that does not converge with its defaults is retried with a
    level shift and then with the second-order solver (FALLBACKS; `rescued` lists the points that
    needed one); one that converges with none raises RuntimeError, or with skip_failures leaves the
    point NaN and its reason in `failures`."""
    elements = [str(e) for e in elements]
    pos = np.asarray(positions, dtype=np.float64)
    if pos.ndim == 2:
        pos = pos[None]
    if pos.ndim != 3 or pos.shape[1:] != (len(elements), 3):
        raise ValueError(f"positions must be (N, 3) or (M, N, 3) with N = {len(elements)}, not {np.shape(positions)}")
    if not np.all(np.isfinite(pos)):
        raise ValueError("positions must be finite")
    if guess not in ("minao", "previous"):
        raise ValueError(f"guess is 'minao' or 'previous', not {guess!r}")
    if derivatives not in (0, 1, 2):
        raise ValueError(f"derivatives is 0, 1 or 2, not {derivatives}")
    if threads is not None:
        from pyscf import lib
        lib.num_threads(int(threads))
    m, n = pos.shape[0], len(elements)
    out = Points(elements, pos.copy(), np.empty(m), np.full((m, n, 3), np.nan), np.full((m, 3 * n, 3 * n), np.nan))
    dm = None
    for k in range(m):
        start = time.perf_counter()
        try:
            e, g, h, dm, how = _one_point(elements, pos[k], method, basis, charge, spin, conv_tol, conv_tol_grad,
                                          grid_level, derivatives, dm if guess == "previous" else None)
        except SCFNotConverged as error:
            if not skip_failures:
                raise RuntimeError(f"point {k + 1}: {error}") from None
            out.energies[k] = np.nan
            out.failures[k] = str(error)
            out.seconds.append(time.perf_counter() - start)
            if progress is not None:
                print(f"pyscf: point {k + 1}/{m} skipped: {error}", file=progress, flush=True)
            continue
        if how != "default":
            out.rescued[k] = how
        out.energies[k] = e
        if g is not None:
            out.gradients[k] = g
        if h is not None:
            out.hessians[k] = h
        out.seconds.append(time.perf_counter() - start)
        if progress is not None:
            print(f"pyscf: point {k + 1}/{m} {level_of_theory(method, basis, spin)} E = {e:.10f} eV "
                  f"in {out.seconds[-1]:.2f} s", file=progress, flush=True)
    return out


def read_xyz(path: str | os.PathLike) -> tuple[list[str], np.ndarray]:
    """Every frame of an XYZ file (plain, or extended XYZ whose first columns are species and pos), all
    with the same elements in the same order: (elements, positions (M, N, 3) Å). Errors name the file
    and line."""
    path = os.fspath(path)
    with open(path) as f:
        lines = f.read().splitlines()
    elements: Optional[list[str]] = None
    frames = []
    i = 0

    def fail(line, message):
        raise ValueError(f"{path}:{line}: {message}")

    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        try:
            n = int(lines[i].split()[0])
        except ValueError:
            fail(i + 1, f"expected the atom count of frame {len(frames) + 1}, found '{lines[i].strip()}'")
        if n < 1:
            fail(i + 1, "a frame needs at least one atom")
        if i + 1 >= len(lines):
            fail(i + 1, "the file ends before the comment line")
        comment = lines[i + 1]
        if "properties=" in comment.lower():
            props = comment[comment.lower().index("properties=") + len("properties="):].split()[0].strip('"')
            if not props.lower().startswith("species:s:1:pos:r:3"):
                fail(i + 2, f"the columns must start with species and pos (Properties={props})")
        if i + 2 + n > len(lines):
            fail(len(lines), f"frame {len(frames) + 1} has {n} atoms but the file ends first")
        symbols, xyz = [], []
        for a in range(n):
            words = lines[i + 2 + a].split()
            if len(words) < 4:
                fail(i + 3 + a, "expected an element and x y z")
            try:
                r = [float(w) for w in words[1:4]]
            except ValueError:
                fail(i + 3 + a, f"x y z must be numbers, not {' '.join(words[1:4])}")
            if not all(math.isfinite(c) for c in r):
                fail(i + 3 + a, "positions must be finite")
            symbols.append(words[0])
            xyz.append(r)
        if elements is None:
            elements = symbols
        elif symbols != elements:
            fail(i + 3, f"frame {len(frames) + 1} has atoms {' '.join(symbols)}, the first {' '.join(elements)}")
        frames.append(xyz)
        i += 2 + n
    if not frames:
        raise ValueError(f"{path}: no frames")
    return elements, np.array(frames, dtype=np.float64)


def write_points(path: str | os.PathLike, points: Points, comment: str = "") -> None:
    """The Cartesian-points file (docs/formats/shepard.md) of these points, written atomically (a
    temporary file renamed), numbers with 17 significant digits, Hessians symmetrised."""
    path = os.fspath(path)
    n = len(points.elements)
    rows = [k for k in range(len(points.energies)) if k not in points.failures]
    m = len(rows)
    if np.isnan(points.gradients[rows]).any() or np.isnan(points.hessians[rows]).any():
        raise ValueError("a Cartesian-points file needs gradients and Hessians (derivatives=2)")

    def row(values):
        return " ".join(f"{float(v):.17g}" for v in values)

    out = ["# Cartesian points: Å, eV, eV/Å, eV/Å² (docs/formats/shepard.md)"]
    out += [f"# {line}" for line in comment.splitlines()]
    out += ["shepard-points 1", f"atoms {n}", "elements " + " ".join(points.elements), f"points {m}"]
    for i, k in enumerate(rows):
        out += [f"point {i + 1}", f"energy {float(points.energies[k]):.17g}", "positions"]
        out += [row(r) for r in points.positions[k]]
        out.append("gradient")
        out += [row(r) for r in points.gradients[k]]
        out.append("hessian")
        # Symmetrised: PySCF's is symmetric only to its coupled-perturbed equations' tolerance (at
        # stretched geometries up to about 1e-5 of the largest entry, more than the reader allows).
        out += [row(r) for r in 0.5 * (points.hessians[k] + points.hessians[k].T)]
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".points-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(out) + "\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m quasar.shepard.pyscf_reference",
        description="Energies, analytic gradients and Hessians of every frame of an XYZ file from PySCF, written as "
                    "the Cartesian points `quasar shepard build` reads (Å, eV, eV/Å, eV/Å²).")
    ap.add_argument("geometries", help="XYZ file (one or more frames, the same atoms in each), Å")
    ap.add_argument("output", help="Cartesian-points file to write (docs/formats/shepard.md)")
    ap.add_argument("--method", default="hf", help="hf, or a functional PySCF knows (b3lyp, pbe, ...); default hf")
    ap.add_argument("--basis", default="6-31g**", help="basis set (default 6-31g**)")
    ap.add_argument("--charge", type=int, default=0, help="total charge (default 0)")
    ap.add_argument("--spin", type=int, default=1,
                    help="unpaired electrons, 2S (default 1, a doublet such as OH3); 0 is restricted")
    ap.add_argument("--threads", type=int, default=None, help="PySCF's threads (default: its own)")
    ap.add_argument("--conv-tol", type=float, default=1e-10, help="SCF energy tolerance, hartree (default 1e-10)")
    ap.add_argument("--conv-tol-grad", type=float, default=1e-7,
                    help="SCF orbital-gradient tolerance (default 1e-7)")
    ap.add_argument("--grid-level", type=int, default=3, help="DFT grid level (default 3)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on standard error")
    ap.add_argument("--failures", default=None,
                    help="a frame whose SCF converges with no fallback is left out of OUTPUT and listed in this file "
                         "(a line 'FRAME REASON' each, FRAME from 1) instead of failing the run")
    args = ap.parse_args(argv)
    try:
        elements, positions = read_xyz(args.geometries)
        points = compute(elements, positions, method=args.method, basis=args.basis, charge=args.charge,
                         spin=args.spin, derivatives=2, conv_tol=args.conv_tol,
                         conv_tol_grad=args.conv_tol_grad, grid_level=args.grid_level,
                         threads=args.threads, progress=None if args.quiet else sys.stderr,
                         skip_failures=args.failures is not None)
        if args.failures is not None:
            with open(args.failures, "w") as f:
                for k, reason in sorted(points.failures.items()):
                    f.write(f"{k + 1} {' '.join(reason.split())}\n")
        write_points(args.output, points, comment=f"{level_of_theory(args.method, args.basis, args.spin)}, "
                                                  f"charge {args.charge}, from {args.geometries} (PySCF)")
    except (ValueError, RuntimeError, ImportError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"pyscf: wrote {args.output}: {len(points.energies) - len(points.failures)} points, "
              f"{len(points.failures)} failed, {len(points.rescued)} rescued by a fallback, "
              f"{sum(points.seconds):.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
