"""Our silicon Deep Potential from Python: relax a crystal (positions and cell) with ASE, run ASE
MD on it, then Quasar's own MD loop with an observer. Run from anywhere after `pip install .`."""
import warnings
from pathlib import Path

import numpy as np
from ase.build import bulk
from ase.filters import FrechetCellFilter
from ase.md.verlet import VelocityVerlet
from ase.optimize import BFGS
from ase import units

import quasar
from quasar.ase import QuasarCalculator

warnings.filterwarnings("ignore", message="logm result may be inaccurate")  # from ASE's cell filter
model = Path(__file__).resolve().parents[1] / "silicon" / "model.dp"
potential = quasar.Potential(model)  # on the GPU when one is usable
print(f"{potential.name} model, cutoff {potential.cutoff} Å, on {potential.device}")

atoms = bulk("Si", "diamond", a=5.43, cubic=True).repeat(2)
atoms.rattle(0.05, seed=1)
atoms.calc = QuasarCalculator(potential)
BFGS(FrechetCellFilter(atoms), logfile=None).run(fmax=1e-3)
print(f"relaxed: a = {atoms.cell.lengths()[0] / 2:.4f} Å, E = {atoms.get_potential_energy() / len(atoms):.5f} eV/atom")

atoms.set_momenta(np.random.default_rng(2).normal(size=(len(atoms), 3)) * np.sqrt(atoms.get_masses() * 600 * units.kB)[:, None])
dyn = VelocityVerlet(atoms, timestep=1.0 * units.fs)
e0 = atoms.get_total_energy()
dyn.run(100)
print(f"ASE NVE, 100 fs: T = {atoms.get_temperature():.0f} K, energy drift {atoms.get_total_energy() - e0:+.2e} eV")

sim = quasar.Simulation(potential, atoms.positions, atoms.get_chemical_symbols(), atoms.cell.array,
                        integrator="bussi", timestep_fs=1.0, temperature_K=300, tau_t_fs=100, seed=3)
temps = []
sim.run(1000, observer=lambda s: temps.append(s.thermo()["temperature"]), every=100)
print(f"Quasar Bussi NVT, 1 ps: mean T over the second half {np.mean(temps[5:]):.0f} K")
