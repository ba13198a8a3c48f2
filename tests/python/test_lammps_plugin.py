"""The LAMMPS pair style quasar (and its alias quasar/dp) under LAMMPS's MPI domain decomposition (1, 2
and 4 ranks): a Deep Potential against Quasar's own evaluation (energies, forces, virial, per-atom
energies and virials, and a short NVE run that must not depend on the number of ranks), EAM files
and a TOML force field of two terms against LAMMPS's own pair styles (Debian's lmp), errors that
stop LAMMPS with the reason, and the same style compiled into LAMMPS. Needs the LAMMPS of
scripts/lammps.sh and the plugin (QUASAR_LAMMPS_PREFIX, QUASAR_LAMMPS_PLUGIN), and for the
compiled-in style the lmp of `scripts/lammps.sh --builtin` (QUASAR_LAMMPS_BUILTIN); scripts/python.sh
sets all three. The EAM comparisons need Debian's lmp and lammps-data."""
import os
import shutil
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
POTENTIALS = Path(os.environ.get("QUASAR_LAMMPS_POTENTIALS", "/usr/share/lammps/potentials"))
DEBIAN_LMP = shutil.which("lmp") or "/usr/bin/lmp"
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

pytestmark = pytest.mark.skipif(
    not (PREFIX and Path(PREFIX, "bin", "lmp").exists() and PLUGIN and Path(PLUGIN).exists()),
    reason="LAMMPS with PLUGIN (scripts/lammps.sh) or the plugin is not built")

INPUT = """units metal
atom_style atomic
boundary p p p
read_data {data}
{plugin_load}
pair_style {style} {model} device {device}
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


def run_lammps(ranks, tmp, device="cpu", lmp=None, style="quasar/dp"):
    """Runs INPUT with the plugin, or with the style compiled into `lmp` where given."""
    pos, cell = structure()
    d = tmp / f"np{ranks}-{style.replace('/', '-')}"
    d.mkdir()
    write_data(d / "si.data", pos, cell)
    plugin_load = "" if lmp else f"plugin load {PLUGIN}"
    (d / "in.lmp").write_text(INPUT.format(data=d / "si.data", plugin_load=plugin_load, style=style, model=SILICON,
                                           device=device, dir=d))
    cmd = ["mpirun", "-np", str(ranks), lmp or str(Path(PREFIX, "bin", "lmp")), "-in", "in.lmp", "-log", "log.lammps",
           "-screen", "none"]
    r = subprocess.run(cmd, cwd=d, env=MPI_ENV, capture_output=True, text=True, timeout=600)
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


@pytest.mark.parametrize("ranks", [1, 2])
def test_quasar_is_quasar_dp(runs, tmp_path, ranks):
    # The style under its own name and under the alias: the same code, the same digits.
    _, _, values, forces, final = run_lammps(ranks, tmp_path, style="quasar")
    _, _, alias_values, alias_forces, alias_final = runs[ranks]
    assert values == alias_values
    np.testing.assert_array_equal(forces, alias_forces)
    np.testing.assert_array_equal(final, alias_final)


@pytest.mark.skipif(not (BUILTIN and Path(BUILTIN).exists()),
                    reason="no LAMMPS with the style compiled in (scripts/lammps.sh --builtin)")
@pytest.mark.parametrize("ranks, style", [(1, "quasar"), (2, "quasar/dp")])
def test_style_compiled_into_lammps(runs, tmp_path, ranks, style):
    # The same code as the plugin, registered by LAMMPS's own style table: the same digits.
    _, _, values, forces, final = run_lammps(ranks, tmp_path, lmp=BUILTIN, style=style)
    _, _, plugin_values, plugin_forces, plugin_final = runs[ranks]
    assert values == plugin_values
    np.testing.assert_array_equal(forces, plugin_forces)
    np.testing.assert_array_equal(final, plugin_final)


# EAM files and a TOML force field of two terms through pair_style quasar (the plugin LAMMPS, 1 and 2
# ranks) against LAMMPS's own pair styles (Debian's lmp) on the same distorted fcc crystal.
EAM_INPUT = """units metal
atom_style atomic
boundary p p p
read_data {data}
{load}
{pair}
compute pe all pe/atom
compute w all pressure NULL virial
dump d all custom 1 {dir}/forces.dump id fx fy fz c_pe
dump_modify d sort id format float %.17g
thermo_style custom step pe c_w[1] c_w[2] c_w[3] c_w[4] c_w[5] c_w[6] vol
run 0
print "RESULT $(pe:%.17g) $(c_w[1]:%.17g) $(c_w[2]:%.17g) $(c_w[3]:%.17g) $(c_w[4]:%.17g) $(c_w[5]:%.17g) $(c_w[6]:%.17g) $(vol:%.17g)"
"""

EAM_LJ_TOML = """[[potential]]
type = "eam"
file = "{file}"
[[potential]]
type = "lj"
name = "tail"
cutoff = 6.0
[potential.species.Cu]
epsilon = 0.05
sigma = 2.3
"""


def eam_case(name, tmp):
    """(types, LAMMPS's own pair commands, pair_style quasar's model, its type names) of a case."""
    cu, cuni = POTENTIALS / "Cu_u3.eam", POTENTIALS / "CuNi.eam.alloy"
    if not (cu.exists() and cuni.exists()):
        pytest.skip(f"{cu} or {cuni} not found (Debian's lammps-data)")
    if name == "eam":
        return 1, f"pair_style eam\npair_coeff * * {cu}", cu, "Cu"
    if name == "eam/alloy":
        return 2, f"pair_style eam/alloy\npair_coeff * * {cuni} Cu Ni", cuni, "Cu Ni"
    toml = tmp / "eam_lj.toml"
    toml.write_text(EAM_LJ_TOML.format(file=cu))
    return 1, f"pair_style hybrid/overlay eam lj/cut 6.0\npair_coeff 1 1 eam {cu}\npair_coeff 1 1 lj/cut 0.05 2.3", toml, "Cu"


def write_fcc(path, ntypes, n=4, a=3.6, shake=0.1, seed=7):
    base = np.array([[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]) * a
    cells = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)]) * a
    pos = (cells[:, None, :] + base[None, :, :]).reshape(-1, 3)
    pos += np.random.default_rng(seed).uniform(-shake, shake, pos.shape)
    with open(path, "w") as f:
        f.write(f"fcc\n\n{len(pos)} atoms\n{ntypes} atom types\n\n")
        for name in "xyz":
            f.write(f"0 {a * n:.17g} {name}lo {name}hi\n")
        f.write("\nMasses\n\n" + "".join(f"{t + 1} {m}\n" for t, m in zip(range(ntypes), (63.546, 58.693))))
        f.write("\nAtoms # atomic\n\n")
        for i, p in enumerate(pos):
            f.write(f"{i + 1} {1 + i % ntypes} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}\n")


def run_eam(d, lmp, ranks, load, pair, ntypes):
    d.mkdir()
    write_fcc(d / "cu.data", ntypes)
    (d / "in.lmp").write_text(EAM_INPUT.format(data=d / "cu.data", load=load, pair=pair, dir=d))
    cmd = ["mpirun", "-np", str(ranks), lmp] if ranks > 1 else [lmp]
    r = subprocess.run(cmd + ["-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=d, env=MPI_ENV,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr + (d / "log.lammps").read_text()
    result = [line for line in (d / "log.lammps").read_text().splitlines() if line.startswith("RESULT")][-1]
    values = np.array([float(x) for x in result.split()[1:]])
    return values[0], values[1:7] * values[7] / NKTV2P, np.loadtxt(d / "forces.dump", skiprows=9)


@pytest.mark.skipif(not Path(DEBIAN_LMP).exists(), reason="Debian's lmp is not installed")
@pytest.mark.parametrize("case", ["eam", "eam/alloy", "eam + lj"])
@pytest.mark.parametrize("ranks", [1, 2])
def test_eam_and_force_fields_as_lammps(tmp_path, case, ranks):
    ntypes, own, model, names = eam_case(case, tmp_path)
    e0, w0, a0 = run_eam(tmp_path / "lammps", DEBIAN_LMP, 1, "", own, ntypes)
    e1, w1, a1 = run_eam(tmp_path / "quasar", str(Path(PREFIX, "bin", "lmp")), ranks, f"plugin load {PLUGIN}",
                         f"pair_style quasar {model} device cpu\npair_coeff * * {names}", ntypes)
    rel = {"energy": abs(e1 - e0) / abs(e0), "virial": np.abs(w1 - w0).max() / np.abs(w0).max(),
           "forces": np.abs(a1[:, 1:4] - a0[:, 1:4]).max() / np.abs(a0[:, 1:4]).max(),
           "atom energies": np.abs(a1[:, 4] - a0[:, 4]).max() / np.abs(a0[:, 4]).max()}
    print(f"measured {case}, {ranks} ranks, relative to the largest value: " +
          ", ".join(f"{k} {v:.2g}" for k, v in rel.items()))
    # Measured, the largest over 1 and 2 ranks (eam, eam/alloy, eam + lj): energy 2.4e-15, 1.3e-14,
    # 9.1e-16; virial 2.6e-15, 6.4e-15, 1.8e-15; forces 2.3e-15, 2.5e-15, 2.2e-15; per-atom energies
    # 1.2e-15, 3.9e-15, 1.3e-15 (relative to the largest value of each).
    for what, value in rel.items():
        assert value < 1e-12, what


BAD_INPUT = """units {units}
newton {newton}
atom_style atomic
lattice diamond 5.38
region box block 0 2 0 2 0 2
create_box 1 box
create_atoms 1 box
mass 1 28.0855
plugin load {plugin}
pair_style {name} {style}
pair_coeff * * {names}
run 0
"""


@pytest.mark.parametrize("name", ["quasar", "quasar/dp"])
@pytest.mark.parametrize("change, message", [
    ({"style": "/nonexistent.dp"}, "pair_style {name}: /nonexistent.dp: model file not found"),
    ({"style": "{bad}"}, "bad.dp: not an HDF5 file"),
    ({"style": "{dir}/model.bin"}, "model.bin: unknown model format (expected .eam, .eam.alloy, .setfl (eam); "
                                   ".dp, .yaml, .yml (deepmd); input.nn, a folder with input.nn (nnp); "
                                   ".shepard, .shepard.h5, .shepard.hdf5 (shepard); .key (amoeba), or a .toml file "
                                   "with [potential])"),
    ({"style": "{dir}/morse.toml"}, "morse.toml:2: 'potential.type': unknown potential type \"morse\"; "
                                    "valid types: lj, eam, bond/harmonic, angle/harmonic, deepmd, nnp, shepard, "
                                    "analytic-surface, amoeba"),
    ({"style": "{dir}/bonds.toml"}, "bonds.toml: the term 'bond' (bond/harmonic) does not support ghost atoms, which a "
                                    "domain-decomposed code needs (families that do: lj, eam, deepmd, nnp)"),
    ({"style": "{model} colour red"}, "Unknown pair_style {name} keyword: colour (valid: device, precision, units)"),
    ({"style": "{model} units bohr,Ha"}, "model.dp: deepmd models take no option 'units' (they take none)"),
    ({"style": "{model} device"}, "Illegal pair_style {name} command"),
    ({"style": "{model} device tpu"}, "unknown device 'tpu' (valid: auto, cpu, cuda)"),
    ({"style": "{model} precision half"}, "unknown precision 'half' (valid: double, mixed32, mixed16)"),
    ({"style": "{dir}/lj.toml precision mixed32"}, "precision mixed32 applies to deepmd, nnp, amoeba models only"),
    ({"names": "Xx"}, "atom type 'Xx' is not in the model's type_map"),
    ({"names": "Si Si"}, "one model type name for each of the 1 atom types"),
    ({"units": "real"}, "Pair style {name} requires metal units"),
    ({"newton": "off"}, "Pair style {name} requires newton pair on"),
])
def test_bad_input_stops_lammps_with_the_reason(tmp_path, name, change, message):
    (tmp_path / "bad.dp").write_text("not a model\n")
    (tmp_path / "model.bin").write_text("not a model\n")
    (tmp_path / "morse.toml").write_text("[potential]\ntype = \"morse\"\n")
    (tmp_path / "bonds.toml").write_text("[potential]\ntype = \"bond/harmonic\"\n")
    (tmp_path / "lj.toml").write_text("[potential]\ntype = \"lj\"\ncutoff = 5.0\n"
                                      "species.Si = { epsilon = 0.01, sigma = 2.0 }\n")
    fields = dict(units="metal", newton="on", plugin=PLUGIN, name=name, style="{model}", names="Si") | change
    fields["style"] = fields["style"].format(model=SILICON, bad=tmp_path / "bad.dp", dir=tmp_path)
    (tmp_path / "in.lmp").write_text(BAD_INPUT.format(**fields))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run([str(Path(PREFIX, "bin", "lmp")), "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    errors = [line for line in (tmp_path / "log.lammps").read_text().splitlines() if line.startswith("ERROR")]
    message = message.replace("{name}", name)
    assert r.returncode != 0 and errors and message in errors[0], r.stdout + r.stderr + "\n".join(errors)


def test_the_lammps_example_runs(tmp_path):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = ["mpirun", "-np", "2", str(Path(PREFIX, "bin", "lmp")), "-in", "in.silicon", "-var", "plugin", PLUGIN,
           "-var", "steps", "100", "-log", str(tmp_path / "log.lammps"), "-screen", "none"]
    r = subprocess.run(cmd, cwd=ROOT / "examples" / "lammps", env=env, capture_output=True, text=True, timeout=600)
    log = (tmp_path / "log.lammps").read_text()
    assert r.returncode == 0, r.stdout + r.stderr + log
    assert "Loop time" in log and "pair_style quasar " in log
