"""quasar.shepard: data sets from Cartesian points (Python = `quasar shepard build`, to the bit), reading and
writing (text and HDF5), grids of Z-matrix coordinates (Python = `quasar shepard eval --grid`), the exact and approximate evaluation of many configurations (data points reproduced against the
analytic surface they came from, gradients against finite differences, batched = single, Python = `quasar
shepard eval`, CPU = GPU), and QCT studies (Python = `quasar shepard qct`, the same seed giving the same
trajectories). The points come from an analytic Morse surface of O H3 with exact gradients and Hessians."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import quasar
from quasar import shepard

from test_quasar import quasar_command

pytestmark = pytest.mark.skipif(not quasar._quasar.shepard_built, reason="built without Shepard interpolation")

ELEMENTS = ["O", "H", "H", "H"]
# Morse pairs (D eV, a 1/Å, r0 Å) by element pair: enough curvature for a surface with minima.
MORSE = {("H", "O"): (4.6, 2.3, 0.97), ("H", "H"): (4.7, 1.9, 0.74)}
BASE = np.array([[0.0, 0.0, 0.0], [-0.118, 0.963, 0.0], [1.35, 0.0, 0.05], [2.17, 0.02, -0.03]])


def morse_surface(x):
    """Energy (eV), gradient (N, 3) eV/Å and Hessian (3N, 3N) eV/Å^2 of the pair sum, exact."""
    n = len(x)
    e, g, h = 0.0, np.zeros((n, 3)), np.zeros((3 * n, 3 * n))
    for i in range(n):
        for j in range(i + 1, n):
            d, a, r0 = MORSE[tuple(sorted((ELEMENTS[i], ELEMENTS[j])))]
            v = x[j] - x[i]
            r = np.linalg.norm(v)
            u = v / r
            q = np.exp(-a * (r - r0))
            e += d * (1 - q) ** 2
            f1 = 2 * d * a * q * (1 - q)                   # dV/dr
            f2 = 2 * d * a * a * q * (2 * q - 1)           # d2V/dr2
            g[j] += f1 * u
            g[i] -= f1 * u
            block = f2 * np.outer(u, u) + f1 / r * (np.eye(3) - np.outer(u, u))
            for p, s in ((i, 1), (j, 1)):
                h[3 * p:3 * p + 3, 3 * p:3 * p + 3] += block
            h[3 * i:3 * i + 3, 3 * j:3 * j + 3] -= block
            h[3 * j:3 * j + 3, 3 * i:3 * i + 3] -= block
    return e, g, h


def morse_points(count, seed=7, spread=0.08):
    rng = np.random.default_rng(seed)
    pos = BASE + spread * rng.standard_normal((count, 4, 3))
    e, g, h = zip(*(morse_surface(x) for x in pos))
    return shepard.Points(list(ELEMENTS), pos, np.array(e), np.array(g), np.array(h))


@pytest.fixture(scope="module")
def points():
    return morse_points(12)


@pytest.fixture(scope="module")
def dataset(points):
    return shepard.DataSet.from_points(points, confidence=0.3, wtol=0.0)


def test_morse_hessian_is_the_derivative_of_its_gradient():
    x, h = BASE.copy(), 1e-5
    hess = morse_surface(x)[2]
    for k in range(12):
        xp, xm = x.copy(), x.copy()
        xp.flat[k] += h
        xm.flat[k] -= h
        col = (morse_surface(xp)[1] - morse_surface(xm)[1]).ravel() / (2 * h)
        assert np.max(np.abs(col - hess[:, k])) < 1e-6  # measured 3e-8 (entries up to 52 eV/Å²)


def test_build_equals_the_command_and_files_read_back(points, dataset, tmp_path):
    path = tmp_path / "points.txt"
    shepard.write_points(path, points)
    back = shepard.read_points(path)
    assert back.elements == ELEMENTS
    for name in ("positions", "energies", "gradients", "hessians"):
        assert np.array_equal(getattr(back, name), getattr(points, name)), name
    subprocess.run([quasar_command(), "shepard", "build", str(path), str(tmp_path / "cli.shepard"), "--confidence",
                    "0.3", "--wtol", "0"], check=True, capture_output=True)
    cli = shepard.DataSet.read(tmp_path / "cli.shepard")
    assert dataset.difference(cli) == ""
    dataset.write(tmp_path / "py.shepard")
    assert (tmp_path / "py.shepard").read_bytes() == (tmp_path / "cli.shepard").read_bytes()
    assert shepard.DataSet.from_points(path, confidence=0.3, wtol=0.0) == dataset
    assert len(dataset) == 12 and dataset.internal == 6 and dataset.elements == ELEMENTS
    assert len(dataset.permutations) == 6 and dataset.parameters == {"weight": "two-part", "p": 2.0, "q": 12.0,
                                                                     "wtol": 0.0}
    assert np.array_equal(dataset.positions, points.positions) and np.array_equal(dataset.energies, points.energies)
    identity = shepard.DataSet.from_points(points, confidence=0.3, group="identity")
    assert identity.permutations == [[0, 1, 2, 3]]


def test_surface_reproduces_the_data_points(points, dataset):
    e, g = shepard.Surface(dataset).evaluate(points.positions)
    err_e = np.max(np.abs(e - points.energies))
    err_g = np.max(np.abs(g - points.gradients))
    print(f"data points: |dE| {err_e:.1e} eV, |dG| {err_g:.1e} eV/Å")
    assert err_e < 1e-12 and err_g < 1e-12  # measured 0 and 4e-15


def test_gradients_against_finite_differences_and_batched_equals_single(dataset):
    surf = shepard.Surface(dataset)
    rng = np.random.default_rng(3)
    configs = BASE + 0.06 * rng.standard_normal((5, 4, 3))
    e, g = surf.evaluate(configs)
    h, worst = 1e-5, 0.0
    for c in range(len(configs)):
        e1, g1 = surf.evaluate(configs[c])
        assert e1 == e[c] and np.array_equal(g1, g[c])
        for k in range(12):
            xp, xm = configs[c].copy(), configs[c].copy()
            xp.flat[k] += h
            xm.flat[k] -= h
            fd = (surf.evaluate(xp, gradients=False)[0] - surf.evaluate(xm, gradients=False)[0]) / (2 * h)
            worst = max(worst, abs(fd - g[c].flat[k]))
    print(f"gradient against central differences: {worst:.1e} eV/Å")
    assert worst < 1e-7  # measured 7e-9
    e2, none = surf.evaluate(configs, gradients=False)
    assert none is None and np.array_equal(e2, e)
    # The approximate method with each configuration its own group is the exact method.
    eg, gg = surf.evaluate_groups(configs, offsets=range(6), centres=range(5))
    assert np.array_equal(eg, e) and np.array_equal(gg, g)


def test_python_equals_the_eval_command(dataset, tmp_path):
    rng = np.random.default_rng(11)
    configs = BASE + 0.05 * rng.standard_normal((4, 4, 3))
    dataset.write(tmp_path / "set.shepard")
    xyz = tmp_path / "frames.xyz"
    xyz.write_text("".join("4\nframe\n" + "".join(f"{s} {x[0]:.17g} {x[1]:.17g} {x[2]:.17g}\n"
                                                  for s, x in zip(ELEMENTS, c)) for c in configs))
    out = subprocess.run([quasar_command(), "shepard", "eval", str(tmp_path / "set.shepard"), str(xyz)],
                         check=True, capture_output=True, text=True).stdout
    rows = np.array([[float(w) for w in line.split()] for line in out.splitlines() if not line.startswith("#")])
    e, g = shepard.Surface(tmp_path / "set.shepard").evaluate(configs)
    assert np.allclose(rows[:, 1], e, rtol=1e-14, atol=0)  # the command prints 15 digits
    assert np.allclose(rows[:, 2:], g.reshape(4, 12), rtol=1e-13, atol=1e-13)


def test_bad_input_is_named(dataset, tmp_path):
    surf = shepard.Surface(dataset)
    with pytest.raises(ValueError, match="N = 4"):
        surf.evaluate(np.zeros((2, 5, 3)))
    bad = tmp_path / "bad.shepard"
    bad.write_text("shepard-dataset 1\natoms 2\n")
    with pytest.raises(quasar.QuasarError, match="bad.shepard:2"):
        shepard.DataSet.read(bad)
    with pytest.raises(ValueError, match="group"):
        shepard.DataSet.from_points(morse_points(1), confidence=0.3, group="some")


GRID = """dataset = "set.h5"
output = "grid.txt"
gradients = true
[[zmatrix]]
element = "O"
[[zmatrix]]
element = "H"
bond = 1
r = [0.95, 0.97, 0.99]
[[zmatrix]]
element = "H"
bond = 1
r = 1.35
angle = 2
theta = 97
[[zmatrix]]
element = "H"
bond = 3
r = { start = 0.78, stop = 0.86, count = 3 }
angle = 1
theta = 175
dihedral = 2
phi = 180
"""


def test_hdf5_data_sets_and_grids_equal_the_commands(dataset, tmp_path):
    dataset.write(tmp_path / "set.shepard")
    dataset.write(tmp_path / "set.h5")
    assert (tmp_path / "set.h5").read_bytes()[:4] == b"\x89HDF"
    assert shepard.DataSet.read(tmp_path / "set.h5") == dataset
    subprocess.run([quasar_command(), "shepard", "convert", str(tmp_path / "set.h5"), str(tmp_path / "back.shepard")],
                   check=True, capture_output=True)
    assert (tmp_path / "back.shepard").read_bytes() == (tmp_path / "set.shepard").read_bytes()
    (tmp_path / "grid.toml").write_text(GRID)
    subprocess.run([quasar_command(), "shepard", "eval", "--grid", str(tmp_path / "grid.toml")], check=True,
                   capture_output=True)
    rows = np.loadtxt(tmp_path / "grid.txt")
    (tmp_path / "grid.txt").unlink()
    g = shepard.grid(tmp_path / "grid.toml")
    assert g["output"] == str(tmp_path / "grid.txt")
    # Not bit for bit: pip builds the extension with its own compiler, which may fuse multiply-adds where
    # the command's did not (the GPU machine's g++ 13 against Debian's g++ 12 here).
    written = np.loadtxt(g["output"])
    assert np.abs(written - rows).max() <= 1e-12 * np.abs(rows).max()
    assert g["axes"] == ["r2", "r3", "theta3", "r4", "theta4", "phi4"]
    assert g["energy"].shape == (3, 1, 1, 3, 1, 1) and g["gradient"].shape == (3, 1, 1, 3, 1, 1, 4, 3)
    assert np.allclose(g["coordinates"]["r4"], [0.78, 0.82, 0.86], rtol=0, atol=1e-15)  # a linspace
    assert np.array_equal(written[:, 6], g["energy"].ravel())  # the text's numbers read back to the bit
    assert np.array_equal(written[:, 7:], g["gradient"].reshape(9, 12))
    with pytest.raises(quasar.QuasarError, match="'zmatrix\\[2\\].r': bond lengths must be > 0"):
        (tmp_path / "bad.toml").write_text(GRID.replace("0.95, 0.97", "-0.95, 0.97"))
        shepard.grid(tmp_path / "bad.toml")


@pytest.mark.gpu
@pytest.mark.skipif(not quasar.cuda_available(), reason="no CUDA GPU")
def test_gpu_equals_cpu(dataset):
    rng = np.random.default_rng(5)
    configs = BASE + 0.05 * rng.standard_normal((300, 4, 3))
    e, g = shepard.Surface(dataset, device="cpu").evaluate(configs)
    gpu = shepard.Surface(dataset, device="cuda")
    assert gpu.device == "cuda"
    eg, gg = gpu.evaluate(configs)
    print(f"GPU - CPU: {np.max(np.abs(eg - e)):.1e} eV, {np.max(np.abs(gg - g)):.1e} eV/Å")
    assert np.max(np.abs(eg - e)) < 1e-10 and np.max(np.abs(gg - g)) < 1e-9


QCT = dict(molecule=["C", "H", "H", "H", "H"],
           positions=[0.0, 0.0, 0.0, 0.629, 0.629, 0.629, -0.629, -0.629, 0.629, -0.629, 0.629, -0.629,
                      0.629, -0.629, -0.629],
           projectile="H", collision_energy=35.0, energy_unit="kcal/mol", b_max=1.5, trajectories=6, seed=9,
           timestep_fs=0.1, initial_separation=6.0, max_steps=4000, batch=6)


def test_qct_equals_the_command(tmp_path):
    if "analytic-surface" not in [f["name"] for f in quasar.families()]:
        pytest.skip("built without the analytic surfaces")
    pot = {"type": "analytic-surface", "surface": "ch5-cbg2009"}
    r = shepard.qct(pot, device="cpu", **QCT)
    assert sum(r["counts"].values()) == 6 and len(r["trajectories"]) == 6
    assert len(r["normal_modes"]["wavenumbers_cm"]) == 9
    toml = tmp_path / "input.toml"
    toml.write_text('device = "cpu"\n' + quasar.to_toml({"potential": pot, "qct": QCT}))
    subprocess.run([quasar_command(), "shepard", "qct", str(toml), "--output", str(tmp_path / "r.json")], check=True,
                   capture_output=True)
    cli = json.loads((tmp_path / "r.json").read_text())
    for key in ("counts", "reactive", "trajectories", "normal_modes", "opacity"):
        assert r[key] == cli[key], key
    assert shepard.qct(toml)["trajectories"] == cli["trajectories"]
    with pytest.raises(quasar.QuasarError, match="trajectories"):
        shepard.qct(pot, device="cpu", **{**QCT, "trajectories": 1})
