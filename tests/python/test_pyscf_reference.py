"""The PySCF reference of modified Shepard surfaces (quasar.shepard.pyscf_reference): analytic gradients
against finite differences of its energies, analytic Hessians (symmetric) against finite differences of
its gradients, the unit conversions against PySCF's own hartree and bohr results with Quasar's
constants, and the process interface: `python -m quasar.shepard.pyscf_reference` writes the Cartesian
points that `quasar shepard build` reads, and the data set reproduces each point's energy and gradient.
O H3 (a doublet) near the OH + H2 saddle at the default level, UHF/6-31G** (about a minute)."""
import subprocess
import sys

import numpy as np
import pytest

import quasar

pyscf = pytest.importorskip("pyscf", reason="PySCF is not installed (pip install pyscf; scripts/python.sh installs it)")

from quasar import shepard  # noqa: E402
from quasar.shepard import pyscf_reference as ref  # noqa: E402

from test_quasar import quasar_command  # noqa: E402

ELEMENTS = ["O", "H", "H", "H"]
SADDLE = np.array([[0.0, 0.0, 0.0], [-0.118, 0.963, 0.0], [1.35, 0.0, 0.05], [2.17, 0.02, -0.03]])
# The default level and tolerances; finite differences start each SCF from the previous density.
LEVEL = dict(method="hf", basis="6-31g**", spin=1, threads=2)
STEP = 2e-3  # Å


def four_point(values, k):
    """d/dx_k by the fourth-order central difference from values at x_k + (1, -1, 2, -2) STEP."""
    return (8 * (values[4 * k] - values[4 * k + 1]) - (values[4 * k + 2] - values[4 * k + 3])) / (12 * STEP)


def displaced(coordinates):
    out = []
    for k in coordinates:
        for s in (1, -1, 2, -2):
            y = SADDLE.copy()
            y.flat[k] += s * STEP
            out.append(y)
    return np.array(out)


def without_rigid_body(x, g):
    """The gradient (N, 3) less its projection on the rigid translations and rotations of geometry x."""
    c = x - x.mean(axis=0)
    basis = [np.tile(np.eye(3)[a], (len(x), 1)).ravel() for a in range(3)]
    basis += [np.cross(np.eye(3)[a], c).ravel() for a in range(3)]
    q, _ = np.linalg.qr(np.array(basis).T)
    flat = g.ravel()
    return (flat - q @ (q.T @ flat)).reshape(g.shape)


@pytest.fixture(scope="module")
def saddle():
    return ref.compute(ELEMENTS, SADDLE, **LEVEL)


def test_constants_are_the_engines():
    assert ref.BOHR == quasar._quasar.units["bohr"] and ref.HARTREE == quasar._quasar.units["hartree"]


def test_units_against_pyscf_in_atomic_units(saddle):
    from pyscf import gto, scf
    mol = gto.M(atom=[(e, tuple(r / 0.52917721067)) for e, r in zip(ELEMENTS, SADDLE)], unit="Bohr",
                basis="6-31g**", spin=1, verbose=0)
    mf = scf.UHF(mol)
    mf.conv_tol, mf.conv_tol_grad = 1e-10, 1e-7
    e_ha = mf.kernel()
    g_au = mf.nuc_grad_method().kernel()
    h_au = mf.Hessian().kernel()
    h = np.array([[h_au[i, j, a, b] for j in range(4) for b in range(3)] for i in range(4) for a in range(3)])
    de = abs(saddle.energies[0] - e_ha * 27.21138602)
    dg = np.max(np.abs(saddle.gradients[0] - g_au * 27.21138602 / 0.52917721067))
    dh = np.max(np.abs(saddle.hessians[0] - h * 27.21138602 / 0.52917721067**2))
    print(f"against PySCF in hartree and bohr: {de:.1e} eV, {dg:.1e} eV/Å, {dh:.1e} eV/Å²")
    assert de < 1e-10 and dg < 1e-10 and dh < 1e-8  # the same calculation: measured 1.4e-12, 3e-13, 1.1e-10
    assert ref.level_of_theory("hf", "6-31g**", 1) == "UHF/6-31G**"
    assert ref.level_of_theory("b3lyp", "6-31g**", 1) == "UB3LYP/6-31G**"


def test_gradient_against_finite_differences_of_energies(saddle):
    e = ref.compute(ELEMENTS, displaced(range(12)), derivatives=0, guess="previous", **LEVEL).energies
    fd = np.array([four_point(e, k) for k in range(12)]).reshape(4, 3)
    err = np.max(np.abs(fd - saddle.gradients[0]))
    print(f"analytic - finite-difference gradient: {err:.1e} eV/Å (largest {np.max(np.abs(fd)):.2f})")
    assert err < 1e-4  # measured 1.2e-6 (the SCF's orbital-gradient tolerance 1e-7 dominates)
    assert np.max(np.abs(saddle.gradients[0].sum(axis=0))) < 1e-8  # translation invariance


def test_hessian_symmetric_and_against_finite_differences_of_gradients(saddle):
    h = saddle.hessians[0]
    asym = np.max(np.abs(h - h.T))
    columns = range(3, 9)  # the two hydrogens that react (H2's column block costs as much as any other)
    g = ref.compute(ELEMENTS, displaced(columns), derivatives=1, guess="previous", **LEVEL).gradients.reshape(-1, 12)
    fd = np.array([four_point(g, k) for k in range(len(columns))]).T
    err = np.max(np.abs(fd - h[:, list(columns)]))
    print(f"Hessian: asymmetry {asym:.1e}, analytic - finite differences {err:.1e} eV/Å² "
          f"(largest {np.max(np.abs(h)):.1f})")
    assert asym < 1e-3  # measured 1.1e-5 (the coupled-perturbed equations' tolerance), entries up to 51 eV/Å²
    assert err < 0.05  # measured 7.5e-4 (the gradients' SCF tolerance over the 2e-3 Å step)


def test_the_command_writes_points_that_quasar_shepard_build_reproduces(tmp_path):
    frames = [SADDLE, SADDLE + np.array([[0, 0, 0], [0.02, -0.01, 0], [0.05, 0.03, 0.0], [-0.04, 0.0, 0.02]])]
    xyz = tmp_path / "geometries.xyz"
    xyz.write_text("".join("4\nOH3\n" + "".join(f"{s} {r[0]:.17g} {r[1]:.17g} {r[2]:.17g}\n"
                                                for s, r in zip(ELEMENTS, f)) for f in frames))
    points_file = tmp_path / "points.txt"
    run = subprocess.run([sys.executable, "-m", "quasar.shepard.pyscf_reference", str(xyz), str(points_file),
                          "--threads", "2"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "point 2/2 UHF/6-31G**" in run.stderr
    direct = ref.compute(ELEMENTS, np.array(frames), **LEVEL)
    read = shepard.read_points(points_file)
    assert np.array_equal(read.positions, np.array(frames))
    assert np.max(np.abs(read.energies - direct.energies)) < 1e-8
    assert np.max(np.abs(read.gradients - direct.gradients)) < 1e-6
    subprocess.run([quasar_command(), "shepard", "build", str(points_file), str(tmp_path / "oh3.shepard"),
                    "--confidence", "0.3"], check=True, capture_output=True)
    out = subprocess.run([quasar_command(), "shepard", "eval", str(tmp_path / "oh3.shepard"), str(xyz)],
                         check=True, capture_output=True, text=True).stdout
    rows = np.array([[float(w) for w in line.split()] for line in out.splitlines() if not line.startswith("#")])
    err_e = np.max(np.abs(rows[:, 1] - read.energies))
    # Internal coordinates hold the gradient without its rigid-body part, which an SCF converged to a finite
    # orbital gradient leaves slightly nonzero (rotations: measured 7e-7 eV/Å).
    internal = np.array([without_rigid_body(x, g) for x, g in zip(read.positions, read.gradients)])
    rigid = np.max(np.abs(internal - read.gradients))
    err_g = np.max(np.abs(rows[:, 2:] - internal.reshape(2, 12)))
    print(f"data points through quasar shepard build/eval: |dE| {err_e:.1e} eV, |dG| {err_g:.1e} eV/Å "
          f"(the gradients' rigid-body part {rigid:.1e})")
    assert err_e < 4e-10 and err_g < 1e-12 and rigid < 1e-4  # measured 4e-12 (15 printed digits), 4e-15, 7e-7


def test_bad_input(tmp_path):
    bad = tmp_path / "bad.xyz"
    bad.write_text("2\nx\nO 0 0 0\nH 0 0\n")
    with pytest.raises(ValueError, match="bad.xyz:4"):
        ref.read_xyz(bad)
    run = subprocess.run([sys.executable, "-m", "quasar.shepard.pyscf_reference", str(bad), str(tmp_path / "p")],
                         capture_output=True, text=True)
    assert run.returncode == 1 and "bad.xyz:4" in run.stderr
    with pytest.raises(ValueError, match="positions"):
        ref.compute(ELEMENTS, np.zeros((3, 3)))
