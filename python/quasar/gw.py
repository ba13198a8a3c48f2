"""GW in numpy: the EPM mean field, BerkeleyGW-style Epsilon and Sigma on it (docs/user-guide.md, GW).

    from quasar import gw
    m = gw.epm("WFN.in")                                    # as `quasar gw epm`: writes wfng_file (WFN)
    m.eigenvalues                                           # Ry, (k-points, bands), as the command prints
    w = gw.read_wavefunctions("WFN")                        # the file (docs/formats/gw-wavefunctions.md)
    w.coefficients[0]                                       # (spins, bands, n_k) at the first k-point
    eps = gw.epsilon("epsilon.inp", output="epsilon.h5")    # as `quasar gw epsilon`, in-process
    eps = gw.read_epsilon("epsilon.h5")                     # the file (docs/formats/gw-epsilon.md)
    eps.heads                                               # eps^-1(G=0, G'=0) per q-point
    s = gw.sigma("sig_GPP.inp", wfn="WFN_co.in", epsilon="epsilon.h5")   # as `quasar gw sigma`
    s = gw.read_sigma("sigma.json")                         # the summary (docs/formats/gw-sigma.md)
    s.kpoints[0].eqp1                                       # eV, per band of the input's range

Paths not given are the commands' defaults beside the input (WFN.in, WFNq.in, WFN_co.in, epsilon.h5); epm
writes the file the input's wfng_file names relative to the current folder, as the command does.
Errors from the engine are `quasar.QuasarError` with its message (file, line, keyword).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from . import _quasar

__all__ = ["Wavefunctions", "Epm", "read_wavefunctions", "epm", "Sigma", "SigmaKpoint", "Epsilon", "EpsilonQpoint",
           "read_sigma", "read_epsilon", "sigma", "epsilon", "RYDBERG_EV"]

# The columns of each Sigma element (eV but n, m, l and znk), as sigma.json names them.
ELEMENT_COLUMNS = ("n", "m", "l", "emf", "x", "sx_minus_x", "ch", "ch_without_remainder", "sig",
                   "sig_without_remainder", "vxc", "eqp0", "eqp1", "znk")


def _engine():
    engine = getattr(_quasar, "gw", None)
    if engine is None:
        raise _quasar.QuasarError("this build of quasar has no GW module (configured with QUASAR_WITH_GW=OFF)")
    return engine


def _rydberg_ev() -> float:
    engine = getattr(_quasar, "gw", None)
    return float(engine.rydberg_ev) if engine is not None else 13.60569253


# BerkeleyGW's Rydberg in eV, the one the engine's Sigma uses.
RYDBERG_EV = _rydberg_ev()


@dataclass
class Wavefunctions:
    """A mean field as its file holds it (docs/formats/gw-wavefunctions.md). Lengths in bohr, energies in Ry,
    k-points and G-vectors in reciprocal-lattice coordinates. K k-points, S spins, B bands:
    lattice, reciprocal (3, 3) rows a_i and b_i; atom_positions (N, 3) fractional, atomic_numbers (N,);
    kpoints (K, 3) and weights (K,) (sum 1); kgrid, kshift: the grid they come from (0 0 0: unknown);
    gvectors (M, 3) int, the density sphere (|G|^2 < density_cutoff); per k-point k, wavefunction_gvectors[k]
    (n_k, 3) int and coefficients[k] (S, B, n_k), float64 (real flavour) or complex128, each state
    normalised (sum_G |c|^2 = 1); energies and occupations (S, K, B)."""
    real: bool
    spins: int
    bands: int
    cutoff: float
    density_cutoff: float
    lattice: np.ndarray
    reciprocal: np.ndarray
    atom_positions: np.ndarray
    atomic_numbers: np.ndarray
    fft_grid: np.ndarray
    kgrid: np.ndarray
    kshift: np.ndarray
    kpoints: np.ndarray
    weights: np.ndarray
    gvectors: np.ndarray
    wavefunction_gvectors: List[np.ndarray]
    coefficients: List[np.ndarray]
    energies: np.ndarray
    occupations: np.ndarray

    @property
    def gvector_counts(self) -> np.ndarray:
        """n_k, the number of G-vectors of each k-point."""
        return np.array([len(g) for g in self.wavefunction_gvectors], dtype=np.int64)

    @property
    def energies_ev(self) -> np.ndarray:
        """energies in eV (BerkeleyGW's Rydberg, RYDBERG_EV)."""
        return self.energies * RYDBERG_EV


def _wavefunctions_from_dict(d: dict) -> Wavefunctions:
    counts = np.asarray(d["gvector_counts"], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    spins, bands, total = int(d["spins"]), int(d["bands"]), int(offsets[-1])
    # The file's order: spin, then k-point, then band, then that k-point's G-vectors.
    per_spin = np.asarray(d["coefficients"]).reshape(spins, bands * total)
    gs, cs = [], []
    for k, n in enumerate(counts):
        gs.append(d["kgvectors"][offsets[k]:offsets[k + 1]])
        cs.append(per_spin[:, bands * offsets[k]:bands * offsets[k + 1]].reshape(spins, bands, int(n)))
    return Wavefunctions(bool(d["real"]), spins, bands, float(d["cutoff"]), float(d["density_cutoff"]),
                         d["lattice"], d["reciprocal"], d["atom_positions"], d["atomic_numbers"], d["fft_grid"],
                         d["kgrid"], d["kshift"], d["kpoints"], d["weights"], d["gvectors"], gs, cs,
                         d["energies"], d["occupations"])


def read_wavefunctions(path: str | os.PathLike) -> Wavefunctions:
    """The wavefunction file of `quasar gw epm` (HDF5, docs/formats/gw-wavefunctions.md), by the engine's
    reader: every shape and value checked, errors naming the file and the object."""
    return _wavefunctions_from_dict(_engine().read_wavefunctions(os.fspath(path)))


@dataclass
class Epm:
    """What `quasar gw epm` gives: eigenvalues (K, B) in Ry, the values it prints (spin 1; with nspin 2 the
    second spin is a copy), at kpoints (K, 3) with weights (K,); file: the wavefunction file written (None
    when wfng_flag is F and no output was named); wavefunctions: the whole mean field, as that file holds it."""
    eigenvalues: np.ndarray
    kpoints: np.ndarray
    weights: np.ndarray
    file: Optional[str]
    wavefunctions: Wavefunctions

    @property
    def eigenvalues_ev(self) -> np.ndarray:
        """eigenvalues in eV (BerkeleyGW's Rydberg, RYDBERG_EV)."""
        return self.eigenvalues * RYDBERG_EV


def epm(input: str | os.PathLike, output: Optional[str | os.PathLike] = None, device: str = "cpu",
        progress: Optional[Callable[[str], None]] = None) -> Epm:
    """The empirical-pseudopotential mean field of a BerkeleyGW EPM input (WFN.in) in-process, as
    `quasar gw epm INPUT [--output OUTPUT]` computes it, writing the same wavefunction file: to output, or
    (wfng_flag T) to the input's wfng_file relative to the current folder. progress: called with each line
    the command prints (the eigenvalue lines, notes, "wrote ...")."""
    d = _engine().epm(os.fspath(input), os.fspath(output) if output else "", device, progress)
    w = _wavefunctions_from_dict(d["wavefunctions"])
    return Epm(w.energies[0], w.kpoints, w.weights, d["written"] or None, w)


@dataclass
class SigmaKpoint:
    """Sigma at one k-point. Each column (ELEMENT_COLUMNS) is an attribute: a numpy array with one
    value per band from band_index_min to band_index_max (n, m, l: 1-based bands, int); `offdiagonal`
    maps the same names to arrays with one value per line of the input's offdiag block (<n|Sigma(E_l)|m>)."""
    k: np.ndarray
    columns: Dict[str, np.ndarray]
    offdiagonal: Dict[str, np.ndarray]

    def __getattr__(self, name: str) -> np.ndarray:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(name)


@dataclass
class Sigma:
    """The self energy as `quasar gw sigma` summarises it: model ("gpp", "cohsex", "hartree-fock"), the
    q-points summed over, v(q=0) (Ry bohr^3), omega_p^2 (Ry^2) and one SigmaKpoint per input k-point."""
    model: str
    qpoints: Any
    coulomb_head_ry_bohr3: float
    plasma_frequency_squared_ry2: float
    kpoints: List[SigmaKpoint] = field(default_factory=list)


def _columns(elements: list) -> Dict[str, np.ndarray]:
    out = {}
    for name in ELEMENT_COLUMNS:
        dtype = np.int64 if name in ("n", "m", "l") else np.float64
        out[name] = np.array([e[name] for e in elements], dtype=dtype)
    return out


def _sigma_from_summary(d: dict, origin: str) -> Sigma:
    if d.get("format") != "quasar-gw-sigma":
        raise _quasar.QuasarError(f"{origin}: not a Sigma summary (format {d.get('format')!r}, "
                                  "wanted 'quasar-gw-sigma')")
    try:
        ks = [SigmaKpoint(np.array(k["k"], dtype=np.float64), _columns(k["diagonal"]), _columns(k["offdiagonal"]))
              for k in d["kpoints"]]
        return Sigma(d["model"], d["qpoints"], d["coulomb_head_ry_bohr3"], d["plasma_frequency_squared_ry2"], ks)
    except KeyError as e:
        raise _quasar.QuasarError(f"{origin}: missing key {e}") from None


def read_sigma(path: str | os.PathLike) -> Sigma:
    """sigma.json, the summary `quasar gw sigma` writes (docs/formats/gw-sigma.md)."""
    with open(path) as f:
        try:
            d = json.load(f)
        except json.JSONDecodeError as e:
            raise _quasar.QuasarError(f"{os.fspath(path)}:{e.lineno}: not JSON ({e.msg})") from None
    return _sigma_from_summary(d, os.fspath(path))


def sigma(input: str | os.PathLike, wfn: Optional[str | os.PathLike] = None,
          epsilon: Optional[str | os.PathLike] = None, device: str = "cpu",
          progress: Optional[Callable[[str], None]] = None) -> Sigma:
    """Sigma of a BerkeleyGW sigma.inp in-process, as `quasar gw sigma INPUT --wfn WFN --epsilon EPSILON`
    computes it (no files written); the result is what read_sigma gives for that command's sigma.json.
    progress: called with each progress line the command prints."""
    text = _engine().sigma(os.fspath(input), os.fspath(wfn) if wfn else "", os.fspath(epsilon) if epsilon else "",
                           device, progress)
    return _sigma_from_summary(json.loads(text), "<sigma>")


@dataclass
class EpsilonQpoint:
    """One q-point: q (reciprocal-lattice coordinates), q0 (the q -> 0 point), gvectors (n, 3) int in
    Epsilon's order, epsilon_inverse (n, n) complex, element [i, j] = eps^-1(G_i, G_j); coulomb (n,)
    v(q+G) in Ry bohr^3, epsilon and chi (n, n) only where computed in-process (not in the file)."""
    q: np.ndarray
    q0: bool
    gvectors: np.ndarray
    epsilon_inverse: np.ndarray
    coulomb: Optional[np.ndarray] = None
    epsilon: Optional[np.ndarray] = None
    chi: Optional[np.ndarray] = None

    @property
    def head(self) -> complex:
        """eps^-1(G=0, G'=0), BerkeleyGW's "Head of Epsilon Inverse"."""
        return complex(self.epsilon_inverse[0, 0])


@dataclass
class Epsilon:
    """The inverse dielectric matrices of every q-point; real: the mean field's flavour; volume: bohr^3."""
    real: bool
    valence_bands: int
    volume: float
    qpoints: List[EpsilonQpoint]

    @property
    def heads(self) -> np.ndarray:
        """eps^-1(0, 0) of each q-point (complex)."""
        return np.array([q.head for q in self.qpoints])


def _epsilon_from_dict(d: dict) -> Epsilon:
    qs = [EpsilonQpoint(q["q"], bool(q["q0"]), q["gvectors"], q["epsilon_inverse"], q.get("coulomb"),
                        q.get("epsilon"), q.get("chi")) for q in d["qpoints"]]
    return Epsilon(bool(d["real"]), int(d["valence_bands"]), float(d["volume"]), qs)


def read_epsilon(path: str | os.PathLike) -> Epsilon:
    """The eps^-1 file of `quasar gw epsilon` (HDF5, docs/formats/gw-epsilon.md), by the engine's reader."""
    return _epsilon_from_dict(_engine().read_epsilon(os.fspath(path)))


def epsilon(input: str | os.PathLike, wfn: Optional[str | os.PathLike] = None,
            wfnq: Optional[str | os.PathLike] = None, output: Optional[str | os.PathLike] = None,
            device: str = "cpu", progress: Optional[Callable[[str], None]] = None) -> Epsilon:
    """The dielectric matrices of a BerkeleyGW epsilon.inp in-process, as `quasar gw epsilon` computes them;
    output: also write the eps^-1 file there (what sigma's `epsilon` reads). No other file is written."""
    d = _engine().epsilon(os.fspath(input), os.fspath(wfn) if wfn else "", os.fspath(wfnq) if wfnq else "",
                          os.fspath(output) if output else "", device, progress)
    return _epsilon_from_dict(d)
