"""An ASE calculator on Quasar's potentials.

    from quasar.ase import QuasarCalculator
    atoms.calc = QuasarCalculator("model.dp")            # device="auto", precision="double"
    atoms.calc = QuasarCalculator("H2O_RPBE-D3", options={"units": "bohr,Ha"})   # an n2p2 folder
    atoms.get_potential_energy(); atoms.get_forces(); atoms.get_stress()

Works with ASE's optimisers, dynamics and filters. Stress follows ASE's convention (eV/Å^3,
-virial / volume, Voigt order xx yy zz yz xz xy) and needs a cell with three dimensions.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional

import numpy as np
from ase.calculators.calculator import Calculator, PropertyNotImplementedError, all_changes
from ase.stress import full_3x3_to_voigt_6_stress

from . import Potential

__all__ = ["QuasarCalculator"]


class QuasarCalculator(Calculator):
    """energy, free_energy, forces, stress; per atom: energies and stresses.

    model: a file for quasar.Potential (DeePMD-kit .dp/.yaml, EAM, an n2p2 folder, a TOML
    [potential] file) or a quasar.Potential already loaded (shared, loaded once); options: the model
    file's options, as quasar.Potential takes them ({"units": "bohr,Ha"} for n2p2 files in bohr and
    hartree; ASE still sees Å and eV).
    """

    implemented_properties = ["energy", "free_energy", "energies", "forces", "stress", "stresses"]

    def __init__(self, model: str | os.PathLike | Potential, device: str = "auto", precision: str = "double",
                 options: Optional[Mapping[str, Any]] = None, **kwargs: Any):
        super().__init__(**kwargs)
        if isinstance(model, Potential):
            if options:
                raise ValueError("options apply when the calculator loads the model, not to a loaded Potential")
            self.potential = model
        else:
            self.potential = Potential(model, device, precision, options=options)

    def calculate(self, atoms=None, properties=("energy",), system_changes=all_changes) -> None:
        super().calculate(atoms, properties, system_changes)
        a = self.atoms
        per_atom = "energies" in properties or "stresses" in properties
        periodic = bool(a.pbc.any())
        r = self.potential.compute(a.positions, a.get_chemical_symbols(), a.cell.array if periodic else None,
                                   a.pbc if periodic else None, per_atom=per_atom)
        self.results = {"energy": r.energy, "free_energy": r.energy, "forces": r.forces}
        if a.cell.rank == 3:
            volume = a.get_volume()
            self.results["stress"] = full_3x3_to_voigt_6_stress(r.stress(volume))
            if per_atom:
                self.results["stresses"] = np.array([full_3x3_to_voigt_6_stress(-w / volume) for w in r.atom_virial])
        elif "stress" in properties or "stresses" in properties:
            raise PropertyNotImplementedError("stress needs a cell with three dimensions")
        if per_atom:
            self.results["energies"] = r.atom_energy
