"""Quasar from Python: potentials (Deep Potential, Behler-Parrinello, EAM, Lennard-Jones, ...) and MD on
the CPU or GPU.

    import quasar
    pot = quasar.Potential("model.dp")                     # or .yaml, .eam, .eam.alloy, a TOML file
    pot = quasar.Potential("H2O_RPBE-D3", options={"units": "bohr,Ha"})   # n2p2's files in bohr, Ha
    r = pot.compute(positions, symbols, cell=cell)         # energy (eV), terms, forces (eV/Å), virial (eV)
    sim = quasar.Simulation(pot, positions, symbols, cell, integrator="langevin", temperature_K=300)
    sim.run(1000, observer=lambda s: print(s.thermo()["temperature"]), every=100)
    ens = quasar.Ensemble(pot, positions_sn3, symbols, integrator="langevin", temperatures=temps)
    ens.run(1000); ens.thermo()["potential_energy"]                  # thousands of small systems at once

Modified Shepard surfaces, ab initio points from PySCF and quasi-classical trajectories: `quasar.shepard`.
GW in numpy (the EPM mean field and its wavefunction file, Epsilon, Sigma): `quasar.gw`.

Units are Quasar's (LAMMPS metal): Å, eV, ps, amu, K, bar. Errors from the engine are raised as
`QuasarError` (a RuntimeError) with the engine's message. For ASE, see `quasar.ase`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from . import _quasar
from ._quasar import QuasarError, built_with_cuda, cuda_available

__all__ = ["Potential", "Result", "Simulation", "Ensemble", "QuasarError", "cuda_available", "built_with_cuda",
           "families"]
__version__ = "0.1.0"


@dataclass
class Result:
    """One evaluation, in the structure's atom order.

    energy: eV, the total; terms: the energy of each term of the force field by name (one term for
    a single model, named by its type: {"eam": ...}), summing to energy; forces: (N, 3) eV/Å; virial:
    (3, 3) eV, sum of r (x) f (LAMMPS's sign: positive when the system pushes outwards); atom_energy
    (N,) and atom_virial (N, 3, 3) when asked for.
    """

    energy: float
    forces: np.ndarray
    virial: np.ndarray
    atom_energy: Optional[np.ndarray] = None
    atom_virial: Optional[np.ndarray] = None
    terms: dict[str, float] = field(default_factory=dict)

    def stress(self, volume: float) -> np.ndarray:
        """Stress in eV/Å^3 with ASE's sign convention, -virial / volume (positive under tension)."""
        return -self.virial / volume


def _structure(positions, symbols, cell, pbc):
    pos = np.ascontiguousarray(positions, dtype=np.float64)
    if pos.ndim != 2 or pos.shape[1] != 3:
        raise ValueError(f"positions must have shape (N, 3), not {pos.shape}")
    syms = [str(s) for s in symbols]
    if len(syms) != len(pos):
        raise ValueError(f"{len(syms)} symbols for {len(pos)} atoms")
    if cell is None:
        if pbc is not None and any(pbc):
            raise ValueError("a periodic structure needs a cell")
        c, p = np.zeros((3, 3)), (False, False, False)
    else:
        c = np.ascontiguousarray(cell, dtype=np.float64)
        if c.shape == (3,):
            c = np.diag(c)
        if c.shape != (3, 3):
            raise ValueError(f"cell must be (3, 3) (rows are the cell vectors) or (3,), not {c.shape}")
        p = (True, True, True) if pbc is None else tuple(bool(b) for b in np.broadcast_to(pbc, 3))
    return pos, c, p, syms


def families() -> list[dict]:
    """The potential families this Quasar knows, in the order it lists them: for each its TOML type
    (name, aliases), description, capabilities (gpu, precisions, ghost_atoms, per_atom, training),
    model_files (the endings of the model files it reads, or files that mark a model folder) and
    model_options (the options its model files take: Potential(..., options=))."""
    return [dict(f) for f in _quasar.families()]


def _model_options(options: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """Model options as the engine takes them: names to text; a sequence value is joined with commas."""
    out = {}
    for name, v in (options or {}).items():
        if isinstance(v, (list, tuple)):
            v = ",".join(str(x) for x in v)
        elif not isinstance(v, str):
            raise TypeError(f"option {name!r}: expected a string or a sequence of strings, not {type(v).__name__}")
        out[str(name)] = v
    return out


class Potential:
    """A potential loaded once and evaluated for any number of structures.

    model: a model file (or folder) of any registered family (`families()`: a DeePMD-kit model .dp or
    .yaml, an EAM file .eam funcfl or .eam.alloy setfl, an n2p2 folder holding input.nn, ...) or a
    TOML file with a [potential] table or several [[potential]] tables (a force field whose terms add;
    Result.terms gives each one's energy). device: "auto" (the GPU when one is usable), "cpu" or
    "cuda". precision (GPU): "double", "mixed32" or "mixed16", for the terms whose family offers it.
    deterministic: GPU sums in 64-bit fixed point, so that evaluations and the simulations run with
    this potential are bit-identical from run to run (the input file's `deterministic = true`; the
    CPU always is). options: the model file's options, those of `quasar eval` (`families()` lists
    each family's model_options), e.g. {"units": "bohr,Ha"} for n2p2 files in bohr and hartree (a
    pair of names may be given as a tuple); results are in Å and eV all the same.
    """

    def __init__(self, model: str | os.PathLike, device: str = "auto", precision: str = "double",
                 deterministic: bool = False, options: Optional[Mapping[str, Any]] = None):
        self._p = _quasar.Potential.load(os.fspath(model), device, precision, bool(deterministic),
                                         _model_options(options))

    @classmethod
    def from_config(cls, table: Mapping[str, Any], base_dir: str | os.PathLike = ".", device: str = "auto",
                    precision: str = "double", deterministic: bool = False) -> "Potential":
        """A potential from the keys of a [potential] table, e.g.
        {"type": "lj", "epsilon": 0.0104, "sigma": 3.4, "cutoff": 8.5}; file names are relative to base_dir."""
        self = cls.__new__(cls)
        self._p = _quasar.Potential.from_toml(to_toml({"potential": dict(table)}), os.fspath(base_dir), device,
                                              precision, bool(deterministic))
        return self

    @property
    def name(self) -> str:
        return self._p.name

    @property
    def terms(self) -> list[str]:
        """Names of the force field's terms (one for a single model)."""
        return list(self._p.terms)

    @property
    def cutoff(self) -> float:
        """Interaction cutoff in Å."""
        return self._p.cutoff

    @property
    def device(self) -> str:
        """"cpu" or "cuda": where this potential is evaluated."""
        return self._p.device

    @property
    def deterministic(self) -> bool:
        """Whether GPU sums are taken in fixed point (bit-identical runs)."""
        return self._p.deterministic

    def compute(self, positions, symbols: Sequence[str], cell=None, pbc=None, per_atom: bool = False) -> Result:
        """Energy, forces and virial of one structure.

        positions (N, 3) in Å; symbols: N element or type names (matched against the model's types by
        name); cell: (3, 3) with the cell vectors as rows, (3,) for an orthorhombic box, or None for
        a molecule or cluster; pbc: three booleans (default periodic when a cell is given).
        """
        pos, c, p, syms = _structure(positions, symbols, cell, pbc)
        d = self._p.compute(pos, c, p, syms, per_atom)
        return Result(**d)

    def compute_many(self, structures, per_atom: bool = False) -> list[Result]:
        """compute() for each item of structures: (positions, symbols[, cell[, pbc]]) tuples, evaluated
        together as batches of independent systems (one set of GPU launches for thousands of small
        structures). The structures may differ in size, cell and periodicity; results are in their order
        and equal one compute() each (to rounding)."""
        items = []
        for k, s in enumerate(structures):
            if not 2 <= len(s) <= 4:
                raise ValueError(f"structure {k}: expected (positions, symbols[, cell[, pbc]]), got {len(s)} items")
            positions, symbols, cell, pbc = (tuple(s) + (None, None))[:4]
            try:
                pos, c, p, syms = _structure(positions, symbols, cell, pbc)
            except ValueError as e:
                raise ValueError(f"structure {k}: {e}") from None
            items.append((pos, c, p, syms))
        return [Result(**d) for d in self._p.compute_many(items, per_atom)]


class Simulation:
    """MD (or FIRE minimisation) with Quasar's own loop, on the potential's device (deterministic when
    the potential is). potential may also be a list of potentials, whose terms then add (all on one
    device); thermo()["terms"] gives each term's energy.

    settings are the keys of the [md] table of an input file (integrator, timestep_fs,
    temperature_K, seed, thermostat settings, ...; see docs/user-guide.md); output= and neighbor=
    take the keys of [output] and [neighbor] (thermo lines on the screen only with
    output={"thermo_screen": True}). Velocities are drawn at temperature_K unless given (Å/ps).
    """

    def __init__(self, potential: Potential | Sequence[Potential], positions, symbols: Sequence[str], cell=None, pbc=None,
                 velocities=None, masses=None, output: Optional[Mapping[str, Any]] = None,
                 neighbor: Optional[Mapping[str, Any]] = None, base_dir: str | os.PathLike = ".", **settings: Any):
        pos, c, p, syms = _structure(positions, symbols, cell, pbc)
        vel = np.zeros((0, 3)) if velocities is None else np.ascontiguousarray(velocities, dtype=np.float64)
        m = [] if masses is None else [float(x) for x in masses]
        tables: dict[str, Any] = {"md": dict(settings),
                                  "output": {"progress": False, "thermo_screen": False, **(output or {})}}
        if neighbor:
            tables["neighbor"] = dict(neighbor)
        models = [potential] if isinstance(potential, Potential) else list(potential)
        self._sim = _quasar.Simulation([x._p for x in models], pos, c, p, syms, m, vel, to_toml(tables),
                                       os.fspath(base_dir))
        self._minimize = settings.get("integrator") == "minimize"

    @property
    def step(self) -> int:
        return self._sim.step

    def run(self, steps: int, observer: Optional[Callable[["Simulation"], Any]] = None, every: int = 1) -> None:
        """Advances `steps` steps; observer(self) is called every `every` steps (and at the end)."""
        if self._minimize:
            raise ValueError("this simulation was set up with integrator='minimize': call minimize()")
        if observer is None:
            self._sim.run_to(self.step + steps)
            return
        last = self.step + steps
        while self.step < last:
            self._sim.run_to(min(last, self.step + every))
            observer(self)

    def minimize(self) -> None:
        """FIRE minimisation as set up (integrator="minimize", fmax, max_move, relax_cell, pressure_bar, steps)."""
        if not self._minimize:
            raise ValueError("minimize() needs integrator='minimize' in the settings")
        self._sim.run_settings()

    def thermo(self) -> dict[str, Any]:
        """step, time (ps), temperature (K), kinetic/potential/total/conserved_energy (eV), terms (the
        potential energy of each term by name, eV), pressure (bar), pressure_tensor (3, 3), volume (Å^3)."""
        return self._sim.thermo()

    @property
    def positions(self) -> np.ndarray:
        return self._sim.state()["positions"]

    @property
    def velocities(self) -> np.ndarray:
        return self._sim.state()["velocities"]

    @property
    def cell(self) -> np.ndarray:
        return self._sim.state()["cell"]


class Ensemble:
    """Many small independent systems (molecules, clusters, small cells) integrated together, with one
    set of GPU launches per step for all of them: nve, langevin or bussi, each system with its own
    temperature and seed (system k follows the trajectory a Simulation of it alone with that seed
    follows), its own energies, and a flag that says whether it still moves.

    positions: an (S, N, 3) array (S systems of N atoms, sharing symbols, cell and pbc) or a sequence
    of S (n_k, 3) arrays; symbols: N names shared by all systems, or one list per system; cell: None
    (molecules: no cell), a (3, 3) or (3,) cell shared by all, or an (S, 3, 3) array; velocities
    (Å/ps) like positions (else drawn per system at its temperature with its seed); masses (amu, per
    atom) like symbols. temperatures: one per system (K; default temperature_K of the settings);
    seeds: one per system (default seed + k). stop_distance (Å): a system whose two atoms are farther
    apart is finished, tested every stop_every steps. on_fault: "stop" (a fault stops the run, as in
    Simulation) or "finish" (it finishes its system only; faults lists them). trajectory_systems and
    final_structures: what output={"trajectory": ...} writes, and where run() leaves every system's
    last state. The other keywords are those of Simulation (the [md] table's keys, output=,
    neighbor=).
    """

    def __init__(self, potential: Potential | Sequence[Potential], positions, symbols, cell=None, pbc=None,
                 velocities=None, masses=None, temperatures=None, seeds=None, stop_distance: float = 0.0,
                 stop_every: int = 100, on_fault: str = "stop", trajectory_systems=None,
                 final_structures: Optional[str | os.PathLike] = None, output: Optional[Mapping[str, Any]] = None,
                 neighbor: Optional[Mapping[str, Any]] = None, base_dir: str | os.PathLike = ".", **settings: Any):
        if isinstance(positions, np.ndarray) and positions.ndim == 3:
            per_system = [positions[k] for k in range(positions.shape[0])]
        else:
            per_system = list(positions)
        count = len(per_system)

        def each(value, name, scalar):
            """value per system: one flat sequence (of `scalar` items) shared by all, or one per system."""
            if value is None:
                return [None] * count
            seq = list(value)
            if not seq or isinstance(seq[0], scalar):
                return [seq] * count
            if len(seq) != count:
                raise ValueError(f"{name}: {len(seq)} entries for {count} systems")
            return seq

        symbols_k = each(symbols, "symbols", (str, np.str_))
        masses_k = each(masses, "masses", (int, float, np.number))
        if cell is not None and np.ndim(cell) == 3:
            cells = list(np.asarray(cell, dtype=np.float64))
            if len(cells) != count:
                raise ValueError(f"cell: {len(cells)} cells for {count} systems")
        else:
            cells = [cell] * count
        items, vel = [], []
        for k in range(count):
            try:
                pos, c, p, syms = _structure(per_system[k], symbols_k[k], cells[k], pbc)
            except ValueError as e:
                raise ValueError(f"system {k}: {e}") from None
            items.append((pos, c, p, syms))
        if velocities is not None:
            vs = [velocities[k] for k in range(velocities.shape[0])] if isinstance(velocities, np.ndarray) and \
                velocities.ndim == 3 else list(velocities)
            if len(vs) != count:
                raise ValueError(f"velocities: {len(vs)} entries for {count} systems")
            vel = [np.ascontiguousarray(v, dtype=np.float64).reshape(-1, 3) for v in vs]
        m = [] if masses is None else [[float(x) for x in masses_k[k]] for k in range(count)]
        ens: dict[str, Any] = {"stop_distance": float(stop_distance), "stop_every": int(stop_every), "on_fault": on_fault}
        if temperatures is not None:
            t = np.asarray(temperatures, dtype=float)
            ens["temperatures_K"] = float(t) if t.ndim == 0 else [float(x) for x in t.ravel()]
        if seeds is not None:
            ens["seeds"] = [int(x) for x in seeds]
        if trajectory_systems is not None:
            ens["trajectory_systems"] = [int(x) for x in trajectory_systems]
        if final_structures is not None:
            ens["final_structures"] = os.fspath(final_structures)
        md = dict(settings)
        if velocities is not None:
            md.setdefault("init_velocities", False)  # the given velocities, not ones drawn
        tables: dict[str, Any] = {"md": md, "ensemble": ens,
                                  "output": {"progress": False, "thermo_screen": False, **(output or {})}}
        if neighbor:
            tables["neighbor"] = dict(neighbor)
        models = [potential] if isinstance(potential, Potential) else list(potential)
        self._e = _quasar.Ensemble([x._p for x in models], items, m, vel, to_toml(tables), os.fspath(base_dir))

    @property
    def step(self) -> int:
        return self._e.step

    @property
    def num_systems(self) -> int:
        return self._e.num_systems

    @property
    def active(self) -> np.ndarray:
        """(S,) booleans: which systems still move."""
        return np.array(self._e.active(), dtype=bool)

    def finish(self, systems) -> None:
        """Finishes systems (indices, or a boolean mask of S entries): they keep their state and stop moving."""
        arr = np.asarray(systems)
        if arr.dtype == bool:
            if arr.shape != (self.num_systems,):
                raise ValueError(f"a mask of {self.num_systems} booleans expected, not shape {arr.shape}")
            arr = np.flatnonzero(arr)
        self._e.finish([int(x) for x in np.atleast_1d(arr)])

    def run(self, steps: int, observer: Optional[Callable[["Ensemble"], Any]] = None, every: int = 1) -> None:
        """Advances `steps` steps, or until no system moves; observer(self) is called every `every` steps
        (and at the end) and may finish systems."""
        last = self.step + steps
        if observer is None:
            self._e.run_to(last)
            return
        while self.step < last and self.active.any():
            self._e.run_to(min(last, self.step + every))
            observer(self)

    def thermo(self) -> dict[str, Any]:
        """step, time (ps), and per system (arrays of S): temperature (K), degrees_of_freedom, kinetic_energy,
        potential_energy, total_energy, conserved_energy (eV), pressure (bar), volume (Å^3), active; terms:
        each term's potential energy per system."""
        d = self._e.thermo()
        d["active"] = np.array(d["active"], dtype=bool)
        return d

    def _arrays(self, key: str):
        parts = [d[key] for d in self._e.states()]
        if len({len(p) for p in parts}) == 1:
            return np.stack(parts)
        return parts

    @property
    def positions(self):
        """(S, N, 3) when every system has N atoms, else a list of (n_k, 3) arrays (Å; periodic systems wrapped)."""
        return self._arrays("positions")

    @property
    def velocities(self):
        return self._arrays("velocities")

    @property
    def forces(self):
        return self._arrays("forces")

    @property
    def faults(self) -> list[dict]:
        """The systems a fault finished (on_fault="finish"): system, step, message."""
        return [dict(f) for f in self._e.faults()]

    def write_structures(self, path: str | os.PathLike) -> None:
        """Every system's state as extended XYZ frames (system, step, active and energy in each comment)."""
        self._e.write_structures(os.fspath(path))

    def write_checkpoint(self, path: str | os.PathLike) -> None:
        """A checkpoint of the whole ensemble; Ensemble(..., restart=path) continues from it."""
        self._e.write_checkpoint(os.fspath(path))


def to_toml(tables: Mapping[str, Mapping[str, Any]]) -> str:
    """TOML text of one level of tables of scalars, strings and lists (nested dicts become sub-tables)."""
    lines: list[str] = []

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float, np.integer, np.floating)):
            return repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))
        if isinstance(v, (str, os.PathLike)):
            s = os.fspath(v)
            return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, (list, tuple, np.ndarray)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise TypeError(f"cannot write {type(v).__name__} {v!r} as a setting")

    def table(name: str, t: Mapping[str, Any]) -> None:
        lines.append(f"[{name}]")
        subs = {k: v for k, v in t.items() if isinstance(v, Mapping)}
        for k, v in t.items():
            if k not in subs:
                lines.append(f"{k} = {value(v)}")
        for k, v in subs.items():
            table(f"{name}.{k}", v)

    for name, t in tables.items():
        table(name, t)
    return "\n".join(lines) + "\n"
