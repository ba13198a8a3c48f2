"""Behler-Parrinello potentials (n2p2's files) from Python: quasar.Potential and the ASE calculator on
n2p2's water (files in bohr and hartree: the model option "units") and Cu2S examples against n2p2's own
predictions (expected.txt), the stress against finite differences of the energy, the option's errors.
Needs ../shared/reference/n2p2."""
import os
from pathlib import Path

import numpy as np
import pytest

import quasar

ROOT = Path(__file__).resolve().parents[2]
N2P2 = Path(os.environ.get("QUASAR_SHARED", ROOT.parent / "shared")) / "reference" / "n2p2" / "predict"
WATER, CU2S = N2P2 / "H2O_RPBE-D3", N2P2 / "Cu2S_PBE"
SILICON = ROOT / "examples" / "silicon" / "model.dp"
# Quasar's conversion factors (src/quasar/core/units.hpp), the ones n2p2's LAMMPS interface is given
# as cflength and cfenergy for this water potential.
BOHR, HARTREE = 0.52917721067, 27.21138602  # Å, eV

pytestmark = pytest.mark.skipif(not WATER.exists(), reason=f"{N2P2} is not here (../shared/reference/n2p2)")


def read_input_data(path, length=1.0):
    """The first structure of an n2p2 input.data: positions and cell in Å (the file's lengths times
    `length`), symbols."""
    pos, symbols, cell = [], [], []
    for line in Path(path).read_text().splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "lattice":
            cell.append([float(x) * length for x in w[1:4]])
        elif w[0] == "atom":
            pos.append([float(x) * length for x in w[1:4]])
            symbols.append(w[4])
        elif w[0] == "end":
            break
    return np.array(pos), symbols, (np.array(cell) if cell else None)


def read_expected(folder):
    """n2p2's energy and forces for the structure of input.data, in the units of the files."""
    energy, forces = None, []
    for line in (folder / "expected.txt").read_text().splitlines():
        w = line.split()
        if w and w[0] == "energy":
            energy = float(w[1])
        elif w and w[0] == "force":
            forces.append([float(x) for x in w[1:4]])
    return energy, np.array(forces)


# Each example: its folder, the units of its files (length in Å, energy in eV) and the model option.
EXAMPLES = {"water": (WATER, BOHR, HARTREE, {"units": "bohr,Ha"}), "cu2s": (CU2S, 1.0, 1.0, None)}


def compare(name, energy, forces, want_energy, want_forces):
    """Energy relative, forces relative to the largest force, printed as measured."""
    e = abs(energy / want_energy - 1)
    f = np.abs(forces - want_forces).max() / np.abs(want_forces).max()
    print(f"measured {name}: energy {e:.2g} relative, forces {f:.2g} of the largest")
    return e, f


@pytest.mark.parametrize("example", ["water", "cu2s"])
def test_potential_against_n2p2(example):
    folder, length, energy_unit, options = EXAMPLES[example]
    pos, symbols, cell = read_input_data(folder / "input.data", length)
    want_energy, want_forces = read_expected(folder)
    pot = quasar.Potential(folder, device="cpu", options=options)
    assert pot.name == "nnp" and pot.cutoff > 0
    r = pot.compute(pos, symbols, cell=cell, per_atom=True)
    # Results in eV and Å, back to the files' units. Measured (water, Cu2S): energies 1.1e-16 and 0
    # relative, forces 8.5e-14 and 1.5e-13 of the largest.
    e, f = compare(example, r.energy / energy_unit, r.forces * length / energy_unit, want_energy, want_forces)
    assert e < 1e-14
    assert f < 1e-11
    # Atomic energies sum to the total (measured 0 relative for both; the sums may round otherwise).
    assert r.atom_energy.sum() == pytest.approx(r.energy, rel=1e-14, abs=0)


def test_units_option_equals_the_toml_keys():
    """The model option and the [potential] table's length_unit and energy_unit load the same potential:
    the same bits."""
    pos, symbols, cell = read_input_data(WATER / "input.data", BOHR)
    a = quasar.Potential(WATER, device="cpu", options={"units": ("bohr", "Ha")}).compute(pos, symbols, cell=cell)
    b = quasar.Potential.from_config({"type": "nnp", "model": str(WATER), "length_unit": "bohr", "energy_unit": "Ha"},
                                     device="cpu").compute(pos, symbols, cell=cell)
    assert a.energy == b.energy
    np.testing.assert_array_equal(a.forces, b.forces)
    np.testing.assert_array_equal(a.virial, b.virial)


@pytest.mark.parametrize("example", ["water", "cu2s"])
def test_ase_calculator_against_n2p2(example):
    pytest.importorskip("ase")
    from ase import Atoms
    from quasar.ase import QuasarCalculator

    folder, length, energy_unit, options = EXAMPLES[example]
    pos, symbols, cell = read_input_data(folder / "input.data", length)
    want_energy, want_forces = read_expected(folder)
    atoms = Atoms(symbols, positions=pos, cell=cell, pbc=True)
    atoms.calc = QuasarCalculator(folder, device="cpu", options=options)
    energy, forces = atoms.get_potential_energy(), atoms.get_forces()
    # The same numbers as quasar.Potential (measured as there).
    e, f = compare(f"{example} through ASE", energy / energy_unit, forces * length / energy_unit, want_energy,
                   want_forces)
    assert e < 1e-14
    assert f < 1e-11
    assert atoms.get_potential_energies().sum() == pytest.approx(energy, rel=1e-14, abs=0)


def test_ase_stress_is_the_derivative_of_the_energy():
    """Cu2S in its narrow monoclinic cell: the stress against ASE's central differences of the energy
    under strain (numerical stress, strain step 1e-5)."""
    pytest.importorskip("ase")
    from ase import Atoms
    from ase.calculators.fd import calculate_numerical_stress
    from quasar.ase import QuasarCalculator

    pos, symbols, cell = read_input_data(CU2S / "input.data")
    atoms = Atoms(symbols, positions=pos, cell=cell, pbc=True)
    atoms.calc = QuasarCalculator(CU2S, device="cpu")
    stress = atoms.get_stress()
    numerical = calculate_numerical_stress(atoms, eps=1e-5)
    err = np.abs(stress - numerical).max() / np.abs(numerical).max()
    print(f"measured stress - numerical stress: {err:.2g} of the largest component")
    assert np.abs(numerical).max() > 1e-4  # eV/Å^3: the structure is under stress
    assert err < 1e-6  # central differences of a -574 eV energy with a 1e-5 strain; measured 2.8e-8


def test_model_options_and_their_errors(tmp_path):
    fam = {f["name"]: f for f in quasar.families()}
    assert fam["nnp"]["model_options"] == ["units"]
    assert all(f["model_options"] == [] for n, f in fam.items() if n != "nnp")
    with pytest.raises(quasar.QuasarError, match=r"deepmd models take no option 'units' \(they take none\)"):
        quasar.Potential(SILICON, device="cpu", options={"units": "bohr,Ha"})
    with pytest.raises(quasar.QuasarError, match=r"nnp models take no option 'colour' \(valid: units\)"):
        quasar.Potential(WATER, device="cpu", options={"colour": "red"})
    with pytest.raises(quasar.QuasarError, match=r"H2O_RPBE-D3: option 'units': unknown length unit 'parsec'"):
        quasar.Potential(WATER, device="cpu", options={"units": "parsec,Ha"})
    toml = tmp_path / "lj.toml"
    toml.write_text('[potential]\ntype = "lj"\ncutoff = 5.0\nspecies.Ar = { epsilon = 0.01, sigma = 3.4 }\n')
    with pytest.raises(quasar.QuasarError, match=r"TOML models take no option 'units' \(set it in the \[potential\]"):
        quasar.Potential(toml, device="cpu", options={"units": "bohr,Ha"})
    with pytest.raises(TypeError, match="option 'units'"):
        quasar.Potential(WATER, device="cpu", options={"units": 1.0})
    pytest.importorskip("ase")
    from quasar.ase import QuasarCalculator
    with pytest.raises(ValueError, match="loaded Potential"):
        QuasarCalculator(quasar.Potential(CU2S, device="cpu"), options={"units": "bohr,Ha"})


@pytest.mark.gpu
@pytest.mark.parametrize("example", ["water", "cu2s"])
def test_gpu_against_n2p2(example):
    if not quasar.cuda_available():
        pytest.skip("no usable GPU")
    folder, length, energy_unit, options = EXAMPLES[example]
    pos, symbols, cell = read_input_data(folder / "input.data", length)
    want_energy, want_forces = read_expected(folder)
    r = quasar.Potential(folder, device="cuda", options=options).compute(pos, symbols, cell=cell)
    # The C++ predict test's GPU bounds (H100: energies 4.4e-16 relative, forces 6.5e-14 and 1.7e-13).
    e, f = compare(f"{example} on the GPU", r.energy / energy_unit, r.forces * length / energy_unit, want_energy,
                   want_forces)
    assert e < 1e-14
    assert f < 1e-11
