"""Modified Shepard interpolated surfaces and quasi-classical trajectories from Python.

    from quasar import shepard
    pts = shepard.read_points("points.txt")                   # Cartesian points (docs/formats/shepard.md)
    ds = shepard.DataSet.from_points(pts, confidence=0.15)     # or shepard.DataSet.read("oh3.shepard")
    ds.write("oh3.shepard")
    surf = shepard.Surface(ds, device="auto")                  # the CPU's threads or one GPU
    e, g = surf.evaluate(positions)                            # (M, N, 3) Å -> (M,) eV, (M, N, 3) eV/Å
    g = shepard.grid("grid.toml")                              # a grid of Z-matrix coordinates: g["energy"]
    result = shepard.qct({"type": "shepard", "file": "oh3.shepard"}, molecule=[...], ...)

Ab initio points come from `quasar.shepard.pyscf_reference` (PySCF). Units: Å, eV, amu.
"""
from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from .. import _quasar, to_toml
from .pyscf_reference import Points

__all__ = ["DataSet", "Surface", "Points", "read_points", "write_points", "grid", "qct"]


def _need_shepard():
    if not _quasar.shepard_built:
        raise RuntimeError("this Quasar was built without Shepard interpolation (QUASAR_WITH_SHEPARD=OFF)")


def _points_arrays(points: Points):
    n = len(points.elements)
    pos = np.ascontiguousarray(points.positions, dtype=np.float64)
    m = pos.shape[0] if pos.ndim == 3 else -1
    e = np.ascontiguousarray(points.energies, dtype=np.float64).reshape(-1)
    g = np.ascontiguousarray(points.gradients, dtype=np.float64)
    h = np.ascontiguousarray(points.hessians, dtype=np.float64)
    if pos.shape != (m, n, 3) or e.shape != (m,) or g.shape != (m, n, 3) or h.shape != (m, 3 * n, 3 * n):
        raise ValueError(f"points: positions (M, {n}, 3), energies (M,), gradients (M, {n}, 3) and hessians "
                         f"(M, {3 * n}, {3 * n}) expected; got {pos.shape}, {e.shape}, {g.shape}, {h.shape}")
    return pos.reshape(m, 3 * n), e, g.reshape(m, 3 * n), h.reshape(m, 9 * n * n)


def read_points(path: str | os.PathLike) -> Points:
    """The Cartesian-points file `quasar shepard build` reads, by the engine's reader (errors name the
    file, line and key; the Hessians come back symmetrised)."""
    _need_shepard()
    d = _quasar.shepard_read_points(os.fspath(path))
    return Points(list(d["elements"]), d["positions"], d["energies"], d["gradients"], d["hessians"])


def write_points(path: str | os.PathLike, points: Points) -> None:
    """Writes Cartesian points with the engine's writer (17 significant digits, atomically)."""
    _need_shepard()
    _quasar.shepard_write_points(os.fspath(path), list(points.elements), *_points_arrays(points))


class DataSet:
    """A modified Shepard data set (docs/formats/shepard.md): elements, masses, the permutation group,
    the weight's parameters and the data points (Taylor expansions in local internal coordinates)."""

    def __init__(self, handle):
        self._d = handle

    @classmethod
    def read(cls, path: str | os.PathLike) -> "DataSet":
        _need_shepard()
        return cls(_quasar.ShepardDataSet.read(os.fspath(path)))

    @classmethod
    def from_points(cls, points: Points | str | os.PathLike, confidence: float, group="full",
                    weight: str = "two-part", p: float = 2, q: float = 12, wtol: float = 1e-8) -> "DataSet":
        """The data set of Cartesian points (a Points, or a Cartesian-points file), as `quasar shepard
        build` makes it: every confidence length `confidence` (1/Å); group "full" (every permutation of
        identical atoms), "identity", or a list of permutations; the weight and its parameters."""
        _need_shepard()
        if isinstance(points, (str, os.PathLike)):
            points = read_points(points)
        n = len(points.elements)
        if isinstance(group, str):
            if group not in ("full", "identity"):
                raise ValueError(f"group: 'full', 'identity' or a list of permutations, not {group!r}")
            perms = [] if group == "full" else [list(range(n))]
        else:
            perms = [[int(a) for a in perm] for perm in group]
        return cls(_quasar.ShepardDataSet.build(list(points.elements), *_points_arrays(points), float(confidence),
                                                perms, weight, float(p), float(q), float(wtol)))

    def write(self, path: str | os.PathLike) -> None:
        """Writes the data set: HDF5 for names ending in .h5 or .hdf5, text otherwise (docs/formats/shepard.md)."""
        self._d.write(os.fspath(path))

    @property
    def elements(self) -> list[str]:
        return list(self._d.elements)

    @property
    def masses(self) -> np.ndarray:
        return np.array(self._d.masses)

    @property
    def permutations(self) -> list[list[int]]:
        return [list(p) for p in self._d.permutations]

    @property
    def parameters(self) -> dict[str, Any]:
        """weight ("two-part" or "one-part"), p, q, wtol."""
        return dict(self._d.parameters)

    @property
    def internal(self) -> int:
        """3N - 6."""
        return self._d.internal

    def __len__(self) -> int:
        return self._d.num_points

    def point(self, i: int) -> dict[str, Any]:
        """Data point i (from 0): positions (N, 3), energy, confidence (pairs), u (pairs, 3N-6), gradient
        dV/dzeta (3N-6) and hessian (3N-6, 3N-6)."""
        return dict(self._d.point(int(i)))

    @property
    def positions(self) -> np.ndarray:
        """(M, N, 3): every data point's geometry."""
        return np.array([self._d.point(i)["positions"] for i in range(len(self))]).reshape(len(self), -1, 3)

    @property
    def energies(self) -> np.ndarray:
        return np.array([self._d.point(i)["energy"] for i in range(len(self))])

    def __eq__(self, other) -> bool:
        return isinstance(other, DataSet) and self._d.difference(other._d) == ""

    def difference(self, other: "DataSet") -> str:
        """The first difference from another data set ("" when equal to the last bit)."""
        return self._d.difference(other._d)


class Surface:
    """The interpolated surface of a data set on a device: "cpu" (the reference, on the CPU's threads),
    "cuda" (one GPU; the data set is uploaded once) or "auto"."""

    def __init__(self, dataset: DataSet | str | os.PathLike, device: str = "cpu"):
        _need_shepard()
        if not isinstance(dataset, DataSet):
            dataset = DataSet.read(dataset)
        self.dataset = dataset
        self._n = len(dataset.elements)
        self._s = _quasar.ShepardSurface(dataset._d, device)

    @property
    def device(self) -> str:
        return self._s.device

    def _configs(self, positions):
        x = np.ascontiguousarray(positions, dtype=np.float64)
        single = x.ndim == 2
        if single:
            x = x[None]
        if x.ndim != 3 or x.shape[1:] != (self._n, 3):
            raise ValueError(f"positions must be (N, 3) or (M, N, 3) with N = {self._n}, not {np.shape(positions)}")
        return np.ascontiguousarray(x.reshape(x.shape[0], 3 * self._n)), single

    def evaluate(self, positions, gradients: bool = True):
        """Energies (eV) and gradients dV/dx (eV/Å; None unless asked) of configurations (M, N, 3) Å in the
        data set's atom order, by the exact method, all together: (M,) and (M, N, 3) arrays; a single
        (N, 3) configuration gives a float and an (N, 3) array."""
        x, single = self._configs(positions)
        e, g = self._s.evaluate(x, bool(gradients))
        if g is not None:
            g = g.reshape(-1, self._n, 3)
        return (float(e[0]), None if g is None else g[0]) if single else (e, g)

    def evaluate_groups(self, positions, offsets: Sequence[int], centres: Sequence[int], gradients: bool = True):
        """The approximate method for grids: configurations (M, N, 3) in groups [offsets[k], offsets[k+1])
        (offsets has one more entry than there are groups and ends at M); group k uses the neighbour set
        found at configuration centres[k] (an index into the batch, inside the group)."""
        x, _ = self._configs(positions)
        e, g = self._s.evaluate_groups(x, [int(o) for o in offsets], [int(c) for c in centres], bool(gradients))
        return e, (None if g is None else g.reshape(-1, self._n, 3))


def grid(path: str | os.PathLike, device: Optional[str] = None, progress: bool = False) -> dict[str, Any]:
    """The surface on a direct-product grid of Z-matrix coordinates, as `quasar shepard eval --grid PATH` evaluates
    it (the input's keys: docs/formats/shepard.md, "Grids"; the output file is written too when the input names one):
    "energy" (eV) shaped like the grid (one axis per coordinate, in "axes" order, the last varying fastest),
    "gradient" (shape + (N, 3), eV/Å; None unless the input asks), "axes" (["r2", "r3", "theta3", ...]),
    "coordinates" (name -> values, Å and degrees) and "output" (the file written, or None). device: "cpu", "cuda" or
    "auto" (default: the input's `device`, else the CPU). progress: the command's lines on standard output."""
    _need_shepard()
    d = _quasar.shepard_grid(os.fspath(path), device or "", bool(progress))
    shape = tuple(int(n) for n in d["shape"])
    atoms = len(shape) // 3 + 2  # 3N - 6 coordinates
    return {"energy": np.asarray(d["energy"]).reshape(shape),
            "gradient": None if d["gradient"] is None else np.asarray(d["gradient"]).reshape(shape + (atoms, 3)),
            "axes": list(d["axes"]), "coordinates": {k: np.asarray(v) for k, v in d["coordinates"].items()},
            "output": d["output"] or None}


def qct(potential: Mapping[str, Any] | str | os.PathLike, device: Optional[str] = None, progress: bool = False,
        base_dir: str | os.PathLike = ".", **settings: Any) -> dict[str, Any]:
    """A quasi-classical trajectory study, as `quasar shepard qct` runs it: potential is the [potential]
    table (a mapping: {"type": "shepard", "file": "oh3.shepard"}, {"type": "analytic-surface", "surface":
    "ch5-cbg2009"}, ...; files relative to base_dir) and settings the keys of the [qct] table
    (docs/user-guide.md: molecule, positions, projectile, collision_energy, b_max, trajectories, seed,
    ...); or potential is the path of an input file with both tables (then no settings). device: "cpu",
    "cuda" or "auto" (default: the input file's `device`, else "auto"). Returns what
    the command writes as JSON: settings, normal_modes, counts, reactive, channels, opacity,
    largest_energy_drift_eV, seconds, trajectory_steps, trajectories. progress: the command's lines on
    standard output."""
    if isinstance(potential, (str, os.PathLike)):
        if settings:
            raise ValueError("qct: give an input file or settings, not both")
        path = os.fspath(potential)
        with open(path) as f:
            text = f.read()
        base = os.path.dirname(os.path.abspath(path))
    else:
        tables: dict[str, Any] = {"potential": dict(potential), "qct": dict(settings)}
        tables["qct"].pop("output", None)
        text, base = to_toml(tables), os.fspath(base_dir)
    return json.loads(_quasar.qct_run(text, base, device or "", bool(progress)))
