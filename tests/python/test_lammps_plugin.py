"""The quasar/dp LAMMPS plugin under LAMMPS's MPI domain decomposition (1, 2 and 4 ranks) against
Quasar's own evaluation: energies, forces, virial, per-atom energies and virials, and a short NVE
run that must not depend on the number of ranks; and the same style compiled into LAMMPS. Needs the
LAMMPS of scripts/lammps.sh and the plugin (QUASAR_LAMMPS_PREFIX, QUASAR_LAMMPS_PLUGIN), and for the
compiled-in style the lmp of `scripts/lammps.sh --builtin` (QUASAR_LAMMPS_BUILTIN); scripts/python.sh
sets all three."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import quasar

ROOT = Path(__file__).resolve().parents[2]
SILICON = ROOT / "examples" / "silicon" / "model.dp"
PREFIX = os.environ.get("QUASAR_LAMMPS_PREFIX", "")
PLUGIN = os.environ.get("QUASAR_LAMMPS_PLUGIN", "")
BUILTIN = os.environ.get("QUASAR_LAMMPS_BUILTIN", "")
NKTV2P = 1.6021765e6  # bar Å^3 per eV (LAMMPS metal units)

pytestmark = pytest.mark.skipif(
    not (PREFIX and Path(PREFIX, "bin", "lmp").exists() and PLUGIN and Path(PLUGIN).exists()),
    reason="LAMMPS with PLUGIN (scripts/lammps.sh) or the plugin is not built")

INPUT = """units metal
atom_style atomic
boundary p p p
read_data {data}
{plugin_load}
pair_style quasar/dp {model} device {device}
pair_coeff * * Si
mass 1 28.0855
compute pe all pe/atom
compute st all stress/atom NULL virial
compute w all pressure NULL virial
dump d all custom 1 {dir}/forces.dump id fx fy fz c_pe c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6]
dump_modify d sort id format float %.17g
thermo_style custom step pe c_w[1] c_w[2] c_w[3] c_w[4] c_w[5] c_w[6] vol etotal
run 0
print "RESULT $(pe:%.17g) $(c_w[1]:%.17g) $(c_w[2]:%.17g) $(c_w[3]:%.17g) $(c_w[4]:%.17g) $(c_w[5]:%.17g) $(c_w[6]:%.17g) $(vol:%.17g)"
undump d
velocity all create 900 4 dist gaussian
fix nve all nve
neigh_modify every 4 delay 0 check no
thermo 10
run 30
write_dump all custom {dir}/final.dump id x y z vx vy vz fx fy fz modify sort id format float %.17g
"""


def structure(n=4, a=5.38, shake=0.1, seed=5):
    base = np.array([[0, 0, 0], [0, 2, 2], [2, 0, 2], [2, 2, 0], [1, 1, 1], [1, 3, 3], [3, 1, 3], [3, 3, 1]]) * a / 4
    cells = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)]) * a
    pos = (cells[:, None, :] + base[None, :, :]).reshape(-1, 3)
    pos += np.random.default_rng(seed).uniform(-shake, shake, pos.shape)
    return pos, np.diag([a * n] * 3)


def write_data(path, pos, cell):
    with open(path, "w") as f:
        f.write(f"silicon\n\n{len(pos)} atoms\n1 atom types\n\n")
        for k, name in enumerate("xyz"):
            f.write(f"0 {cell[k, k]:.17g} {name}lo {name}hi\n")
        f.write("\nAtoms # atomic\n\n")
        for i, p in enumerate(pos):
            f.write(f"{i + 1} 1 {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}\n")


def run_lammps(ranks, tmp, device="cpu", lmp=None):
    """Runs INPUT with the plugin, or with the style compiled into `lmp` where given."""
    pos, cell = structure()
    d = tmp / f"np{ranks}"
    d.mkdir()
    write_data(d / "si.data", pos, cell)
    plugin_load = "" if lmp else f"plugin load {PLUGIN}"
    (d / "in.lmp").write_text(INPUT.format(data=d / "si.data", plugin_load=plugin_load, model=SILICON, device=device,
                                           dir=d))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = ["mpirun", "-np", str(ranks), lmp or str(Path(PREFIX, "bin", "lmp")), "-in", "in.lmp", "-log", "log.lammps",
           "-screen", "none"]
    r = subprocess.run(cmd, cwd=d, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr + (d / "log.lammps").read_text()
    result = [line for line in (d / "log.lammps").read_text().splitlines() if line.startswith("RESULT")][-1]
    values = [float(x) for x in result.split()[1:]]
    forces = np.loadtxt(d / "forces.dump", skiprows=9)
    final = np.loadtxt(d / "final.dump", skiprows=9)
    return pos, cell, values, forces, final


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lammps")
    return {ranks: run_lammps(ranks, tmp) for ranks in (1, 2, 4)}


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_same_as_quasar(runs, ranks):
    pos, cell, values, forces, _ = runs[ranks]
    ref = quasar.Potential(SILICON, device="cpu").compute(pos, ["Si"] * len(pos), cell=cell, per_atom=True)
    energy, w, volume = values[0], np.array(values[1:7]), values[7]
    # Measured (1, 2 and 4 ranks) 2.2e-11 eV (energy: -2800 eV, summed over ranks), 3.3e-13 eV (virial,
    # through LAMMPS's pressure in bar), 8e-15 eV/Å (forces), 1.4e-14 and 9e-15 eV (atomic energies
    # and virials).
    assert energy == pytest.approx(ref.energy, abs=1e-9)
    virial = w * volume / NKTV2P  # xx yy zz xy xz yz
    voigt = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]
    np.testing.assert_allclose(virial, [ref.virial[a, b] for a, b in voigt], atol=3e-11)
    np.testing.assert_allclose(forces[:, 1:4], ref.forces, atol=1e-12)
    np.testing.assert_allclose(forces[:, 4], ref.atom_energy, atol=1e-12)
    atom_virial = -forces[:, 5:11] / NKTV2P
    np.testing.assert_allclose(atom_virial, [[wi[a, b] for a, b in voigt] for wi in ref.atom_virial], atol=1e-12)


def test_md_does_not_depend_on_the_decomposition(runs):
    one = runs[1][4]
    assert np.abs(one[:, 4:7]).max() > 1.0  # the atoms moved
    for ranks in (2, 4):
        np.testing.assert_allclose(runs[ranks][4], one, atol=3e-11)  # measured 3.8e-13 after 30 steps


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_forces_after_re_neighbouring(runs, ranks):
    # The run re-neighbours every 4 steps (the plugin reloads its atoms into the same buffers);
    # the forces of the last step, 2 steps after the last reload, are Quasar's at those positions.
    _, cell, _, _, final = runs[ranks]
    ref = quasar.Potential(SILICON, device="cpu").compute(final[:, 1:4], ["Si"] * len(final), cell=cell)
    np.testing.assert_allclose(final[:, 7:10], ref.forces, atol=1e-12)  # measured 2.4e-14 eV/Å


@pytest.mark.skipif(not (BUILTIN and Path(BUILTIN).exists()),
                    reason="no LAMMPS with the style compiled in (scripts/lammps.sh --builtin)")
@pytest.mark.parametrize("ranks", [1, 2])
def test_style_compiled_into_lammps(runs, tmp_path, ranks):
    # The same code as the plugin, registered by LAMMPS's own style table: the same digits.
    _, _, values, forces, final = run_lammps(ranks, tmp_path, lmp=BUILTIN)
    _, _, plugin_values, plugin_forces, plugin_final = runs[ranks]
    assert values == plugin_values
    np.testing.assert_array_equal(forces, plugin_forces)
    np.testing.assert_array_equal(final, plugin_final)


BAD_INPUT = """units {units}
newton {newton}
atom_style atomic
lattice diamond 5.38
region box block 0 2 0 2 0 2
create_box 1 box
create_atoms 1 box
mass 1 28.0855
plugin load {plugin}
pair_style quasar/dp {style}
pair_coeff * * {names}
run 0
"""


@pytest.mark.parametrize("change, message", [
    ({"style": "/nonexistent.dp"}, "pair_style quasar/dp: /nonexistent.dp: model file not found"),
    ({"style": "{bad}"}, "bad.dp: not an HDF5 file"),
    ({"style": "{model} colour red"}, "Unknown pair_style quasar/dp keyword: colour"),
    ({"style": "{model} device"}, "Illegal pair_style quasar/dp command"),
    ({"style": "{model} device tpu"}, "unknown device 'tpu' (valid: auto, cpu, cuda)"),
    ({"style": "{model} precision half"}, "unknown precision 'half' (valid: double, mixed32, mixed16)"),
    ({"names": "Xx"}, "atom type 'Xx' is not in the model's type_map"),
    ({"names": "Si Si"}, "one model type name for each of the 1 atom types"),
    ({"units": "real"}, "Pair style quasar/dp requires metal units"),
    ({"newton": "off"}, "Pair style quasar/dp requires newton pair on"),
])
def test_bad_input_stops_lammps_with_the_reason(tmp_path, change, message):
    (tmp_path / "bad.dp").write_text("not a model\n")
    fields = dict(units="metal", newton="on", plugin=PLUGIN, style="{model}", names="Si") | change
    fields["style"] = fields["style"].format(model=SILICON, bad=tmp_path / "bad.dp")
    (tmp_path / "in.lmp").write_text(BAD_INPUT.format(**fields))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run([str(Path(PREFIX, "bin", "lmp")), "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    errors = [line for line in (tmp_path / "log.lammps").read_text().splitlines() if line.startswith("ERROR")]
    assert r.returncode != 0 and errors and message in errors[0], r.stdout + r.stderr + "\n".join(errors)


def test_the_lammps_example_runs(tmp_path):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = ["mpirun", "-np", "2", str(Path(PREFIX, "bin", "lmp")), "-in", "in.silicon", "-var", "plugin", PLUGIN,
           "-var", "steps", "100", "-log", str(tmp_path / "log.lammps"), "-screen", "none"]
    r = subprocess.run(cmd, cwd=ROOT / "examples" / "lammps", env=env, capture_output=True, text=True, timeout=600)
    log = (tmp_path / "log.lammps").read_text()
    assert r.returncode == 0, r.stdout + r.stderr + log
    assert "Loop time" in log and "quasar/dp" in log
