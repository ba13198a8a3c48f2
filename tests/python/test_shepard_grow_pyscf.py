"""The growth loop on PySCF (`quasar shepard grow` with a [reference] table) and the PySCF reference's
SCF fallbacks: H + H2 at UHF/STO-3G (seconds). The fallbacks are forced by a mean field that stops
that cannot meet its tolerances; a rescued point must equal the plain SCF's to the tolerances, and one no fallback
rescues is listed in the failures file instead of failing the run. The module is loaded from its
file, as the growth loop runs it, so these tests need PySCF and numpy but not the compiled package."""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyscf", reason="PySCF is not installed (pip install pyscf; scripts/python.sh installs it)")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "python" / "quasar" / "shepard" / "pyscf_reference.py"
_spec = importlib.util.spec_from_file_location("pyscf_reference_file", SCRIPT)
ref = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ref  # dataclasses look their module up
_spec.loader.exec_module(ref)

H3 = ["H", "H", "H"]
BENT = np.array([[0.0, 0.0, 0.0], [0.74, 0.0, 0.0], [0.3, 1.6, 0.1]])
LEVEL = dict(method="hf", basis="sto-3g", spin=1)


# H + H2 collisions, a few short trajectories.
QCT = """[qct]
molecule = ["H", "H"]
positions = [0.0, 0.0, 0.0, 0.71, 0.0, 0.0]
projectile = "H"
collision_energy = 1.0
b_max = 1.0
trajectories = 4
seed = 3
timestep_fs = 0.2
initial_separation = 4.0
stop_distance = 4.5
max_steps = 300
"""


def quasar_command():
    exe = os.environ.get("QUASAR_EXE") or shutil.which("quasar") or str(ROOT / "build" / "quasar")
    if not Path(exe).exists():
        pytest.skip("the quasar command is not built")
    return exe


def stalling(monkeypatch, attempts_that_stall):
    """_mean_field whose first `attempts_that_stall` SCFs stop after one cycle, whatever a fallback sets
    (their second-order solver inherits the limit)."""
    made = {"count": 0}
    plain = ref._mean_field

    def patched(*args, **kwargs):
        mf = plain(*args, **kwargs)
        made["count"] += 1
        if made["count"] <= attempts_that_stall:
            mf.__class__ = type("Stalled" + type(mf).__name__, (type(mf),),
                                {"max_cycle": property(lambda self: 1, lambda self, value: None)})
        return mf

    monkeypatch.setattr(ref, "_mean_field", patched)
    return made


def test_a_stalled_scf_is_rescued_by_a_fallback_with_the_plain_result(monkeypatch):
    plain = ref.compute(H3, BENT, **LEVEL)
    stalling(monkeypatch, 1)
    rescued = ref.compute(H3, BENT, **LEVEL)
    assert rescued.rescued == {0: "level shift"}
    assert abs(rescued.energies[0] - plain.energies[0]) < 1e-7  # conv_tol 1e-10 hartree: measured ~1e-9 eV
    assert np.max(np.abs(rescued.gradients - plain.gradients)) < 1e-4
    assert np.max(np.abs(rescued.hessians - plain.hessians)) < 1e-3


def test_a_point_no_fallback_rescues_is_listed_not_fatal(monkeypatch, tmp_path):
    xyz = tmp_path / "g.xyz"
    xyz.write_text("".join("3\nH3\n" + "".join(f"H {r[0]} {r[1]} {r[2]}\n" for r in f) for f in (BENT, BENT + 0.05)))
    stalling(monkeypatch, len(ref.FALLBACKS))  # every attempt at the first frame
    failures = tmp_path / "failed.txt"
    points = tmp_path / "points.txt"
    assert ref.main([str(xyz), str(points), "--basis", "sto-3g", "--failures", str(failures), "--quiet"]) == 0
    lines = failures.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("1 the SCF did not converge (UHF/STO-3G; tried default, "), lines
    text = points.read_text()
    assert "points 1" in text and "point 2" not in text
    monkeypatch.undo()
    stalling(monkeypatch, len(ref.FALLBACKS))
    assert ref.main([str(xyz), str(points), "--basis", "sto-3g", "--quiet"]) == 1  # without --failures: an error


def test_grow_runs_pyscf_and_its_data_points_are_pyscf_values(tmp_path):
    exe = quasar_command()
    (tmp_path / "input.toml").write_text(f"""
[reference]
type = "pyscf"
method = "hf"
basis = "sto-3g"
spin = 1
threads = 1
python = "{sys.executable}"
script = "{SCRIPT}"
{QCT}[grow]
start = [0, 0, 0, 0.71, 0, 0, 0.3, 3.0, 0,  0, 0, 0, 0.71, 0, 0, 0.4, 0, 8.0,  0, 0, 0, 0.9, 0, 0, 0.5, 1.1, 0]
iterations = 1
max_points = 10
h_weight_points = 2
variance_points = 2
output = "h3.shepard"
""")
    run = subprocess.run([exe, "shepard", "grow", "input.toml"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "reference PySCF UHF/STO-3G" in run.stdout, run.stdout
    assert "grow: iteration 1: " in run.stdout, run.stdout
    # The data set's points are PySCF's at their positions (the text format's 17 digits).
    text = (tmp_path / "h3.shepard").read_text().split()
    energies = [float(text[i + 1]) for i, w in enumerate(text) if w == "energy"]
    assert len(energies) > 3
    start = np.array([0, 0, 0, 0.71, 0, 0, 0.3, 3.0, 0]).reshape(3, 3)
    direct = ref.compute(H3, start, **LEVEL)
    assert abs(energies[0] - direct.energies[0]) < 1e-8


def test_grow_names_a_failing_reference_command(tmp_path):
    exe = quasar_command()
    (tmp_path / "input.toml").write_text(f"""
[reference]
basis = "no-such-basis"
python = "{sys.executable}"
script = "{SCRIPT}"
{QCT}[grow]
start = [0, 0, 0, 0.71, 0, 0, 0.3, 3.0, 0]
""")
    run = subprocess.run([exe, "shepard", "grow", "input.toml"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode != 0
    assert "pyscf_reference.py" in run.stderr and "--basis no-such-basis" in run.stderr, run.stderr
    assert "exit status 1" in run.stderr, run.stderr
