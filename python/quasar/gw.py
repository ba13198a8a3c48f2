"""GW results in numpy: BerkeleyGW-style Epsilon and Sigma on an EPM mean field (docs/user-guide.md, GW).

    from quasar import gw
    eps = gw.epsilon("epsilon.inp", output="epsilon.h5")    # as `quasar gw epsilon`, in-process
    eps = gw.read_epsilon("epsilon.h5")                     # the file (docs/formats/gw-epsilon.md)
    eps.heads                                               # eps^-1(G=0, G'=0) per q-point
    s = gw.sigma("sig_GPP.inp", wfn="WFN_co.in", epsilon="epsilon.h5")   # as `quasar gw sigma`
    s = gw.read_sigma("sigma.json")                         # the summary (docs/formats/gw-sigma.md)
    s.kpoints[0].eqp1                                       # eV, per band of the input's range

Paths not given are the commands' defaults beside the input (WFN.in, WFNq.in, WFN_co.in, epsilon.h5).
Errors from the engine are `quasar.QuasarError` with its message (file, line, keyword).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from . import _quasar

__all__ = ["Sigma", "SigmaKpoint", "Epsilon", "EpsilonQpoint", "read_sigma", "read_epsilon", "sigma", "epsilon"]

# The columns of each Sigma element (eV but n, m, l and znk), as sigma.json names them.
ELEMENT_COLUMNS = ("n", "m", "l", "emf", "x", "sx_minus_x", "ch", "ch_without_remainder", "sig",
                   "sig_without_remainder", "vxc", "eqp0", "eqp1", "znk")


def _engine():
    engine = getattr(_quasar, "gw", None)
    if engine is None:
        raise _quasar.QuasarError("this build of quasar has no GW module (configured with QUASAR_WITH_GW=OFF)")
    return engine


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
