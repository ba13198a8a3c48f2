#!/usr/bin/env python3
"""DeePMD-kit (PyTorch backend) on the same GPU, model and systems as bench_md_bench.

usage: deepmd_kit_bench.py MODEL.yaml DATA_DIR [--cells 4 8 ...] [--evals N] [--min-dist 0.5] [--fcc A]

MODEL.yaml is a model written by `quasar dp convert`; it is converted to the PyTorch backend as
`dp convert-backend` does, then built in float64 and float32 (DeePMD-kit's `precision` setting) and
compressed as `dp --pt compress` does (stride 0.01, extrapolation 5). The systems are frame 0 of
DATA_DIR (deepmd/npy) repeated cells^3 times, as bench_md_bench's "water" (or, with --fcc A, an fcc
crystal of cells^3 unit cells of edge A, as its "copper").

Timed: the TorchScript model's `forward_lower` (energy, forces on local and ghost atoms, virial) with
the forces of ghost atoms added back to their owners, which is what DeePMD-kit's C++ interface and
its LAMMPS pair style run each step. The ghost atoms and the neighbour list are built once, outside
the timing (LAMMPS builds them in its own code). TorchScript's fusion strategy is the one DeePMD-kit's
C++ interface sets. Prints atom-evaluations per second and the peak GPU memory per atom.
"""
import argparse
import itertools
import os
import time
import traceback

import numpy as np
import torch


def water(data_dir, c):
    box = np.load(f"{data_dir}/set.000/box.npy")[0].reshape(3, 3).astype(np.float64)
    coord = np.load(f"{data_dir}/set.000/coord.npy")[0].reshape(-1, 3).astype(np.float64)
    types = np.loadtxt(f"{data_dir}/type.raw", dtype=int).reshape(-1)
    # The same order as Quasar's replicate(): image (a, b, c) outermost, atoms inside.
    shifts = [a * box[0] + b * box[1] + k * box[2] for a, b, k in itertools.product(range(c), repeat=3)]
    coords = np.concatenate([coord + s for s in shifts])
    return coords, (c * box).reshape(9), np.tile(types, c**3)


def fcc(a, c):
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]]) * a
    cells = np.array(list(itertools.product(range(c), repeat=3))) * a
    coords = (cells[:, None, :] + basis[None, :, :]).reshape(-1, 3)
    return coords, (np.eye(3) * a * c).reshape(9), np.zeros(len(coords), dtype=int)


def set_precision(obj, precision):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "precision" and isinstance(v, str):
                obj[k] = precision
            else:
                set_precision(v, precision)
    elif isinstance(obj, list):
        for v in obj:
            set_precision(v, precision)


def load_deepmd_pt():
    """Imports deepmd.pt from the PyPI wheel on a machine without MPICH: its PyTorch operators
    link libmpi.so.12, which bench/mpi_stub.c stands in for (path in $DPKIT_MPI_STUB)."""
    import ctypes
    import sys
    import types

    import deepmd.env

    try:  # the device lacks it; training asks it for atomic numbers (to sort the type map) only
        import mendeleev  # noqa: F401
    except ImportError:
        symbols = (
            "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr "
            "Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb "
            "Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr "
            "Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og"
        ).split()
        stub = types.ModuleType("mendeleev")
        stub.element = lambda symbol: types.SimpleNamespace(atomic_number=symbols.index(symbol) + 1)
        sys.modules["mendeleev"] = stub

    mpi = os.environ.get("DPKIT_MPI_STUB")
    if mpi:
        ctypes.CDLL(mpi, mode=ctypes.RTLD_GLOBAL)
        # The stub's MPI symbols would shadow the machine's Open MPI under mpi4py (DeePMD-kit's
        # loggers import it when present): one process needs neither.
        sys.modules["mpi4py"] = None
        deepmd.env.GLOBAL_CONFIG["cibuildwheel"] = "0"
    import deepmd.pt  # noqa: F401


def convert(yaml_path, out):
    from deepmd.backend.backend import Backend

    load_deepmd_pt()
    data = Backend.detect_backend_by_model(yaml_path)().serialize_hook(yaml_path)
    Backend.detect_backend_by_model(out)().deserialize_hook(out, data)


def build(pth, precision, min_dist=None):
    """The scripted model in the given precision; compressed as `dp --pt compress` when min_dist is set."""
    import json

    from deepmd.pt.model.model import get_model
    from deepmd.pt.utils import env

    saved = torch.jit.load(pth, map_location="cpu")
    script = json.loads(saved.model_def_script)
    set_precision(script, precision)
    script["descriptor"]["precision"] = script["fitting_net"]["precision"] = precision
    model = get_model(script)
    model.load_state_dict(saved.state_dict())  # copy_ casts to each parameter's precision
    if min_dist is not None:
        model.min_nbor_dist = torch.tensor(min_dist, dtype=env.GLOBAL_PT_FLOAT_PRECISION, device=env.DEVICE)
        model.enable_compression(5, 0.01, 0.1, -1)
    return torch.jit.script(model).to(env.DEVICE).eval()


def extend(coords, box, rc):
    """Local atoms first, then their periodic images within rc of the cell; mapping to owners."""
    cell = box.reshape(3, 3)
    frac = coords @ np.linalg.inv(cell)
    frac -= np.floor(frac)
    volume = abs(np.linalg.det(cell))
    margin = np.array([rc * np.linalg.norm(np.cross(cell[(i + 1) % 3], cell[(i + 2) % 3])) / volume
                       for i in range(3)])
    n = np.ceil(margin).astype(int)
    shifts = sorted(itertools.product(*[range(-k, k + 1) for k in n]), key=lambda s: s != (0, 0, 0))
    ext, owner = [], []
    for shift in shifts:
        f = frac + np.array(shift)
        keep = np.all((f > -margin) & (f < 1 + margin), axis=1)
        ext.append(f[keep] @ cell)
        owner.append(np.nonzero(keep)[0])
    return np.concatenate(ext), np.concatenate(owner)


def neighbour_list(ext, nloc, rc, device, chunk=2048):
    """Indices (into ext) of every neighbour within rc, nearest first, padded with -1."""
    x = torch.tensor(ext, device=device)
    rows = []
    for i0 in range(0, nloc, chunk):
        idx = torch.arange(i0, min(i0 + chunk, nloc), device=device)
        d2 = torch.cdist(x[idx], x) ** 2
        d2[idx - i0, idx] = float("inf")
        rows.append(d2)
    width = max(int((d2 < rc * rc).sum(1).max()) for d2 in rows)
    out = []
    for d2 in rows:
        val, ind = torch.topk(d2, width, dim=1, largest=False)
        out.append(torch.where(val < rc * rc, ind, -1))
    return torch.cat(out)


def time_model(name, model, systems, evals):
    device = next(model.parameters()).device
    for n, (coords, box, types) in systems:
        try:
            rc = model.get_rcut()
            ext, owner = extend(coords, box, rc)
            nlist = neighbour_list(ext, n, rc, device)[None]
            ext_coord = torch.tensor(ext, device=device)[None]
            ext_type = torch.tensor(types[owner], device=device)[None]
            mapping = torch.tensor(owner, device=device)

            def evaluate():
                out = model.forward_lower(ext_coord, ext_type, nlist, mapping[None])
                force = torch.zeros((n, 3), dtype=out["extended_force"].dtype, device=device)
                force.index_add_(0, mapping, out["extended_force"][0])
                return out["energy"], force, out["virial"]

            torch.cuda.reset_peak_memory_stats()
            for _ in range(3):  # warm-up: TorchScript profiles and optimises the first calls
                evaluate()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(evals):
                e, f, v = evaluate()
            torch.cuda.synchronize()
            dt = (time.perf_counter() - t0) / evals
            mem = torch.cuda.max_memory_allocated()
            print(f"  {name:24s} {n:10d} atoms  {n / dt:12.4g} atom-evals/s  {1e3 * dt:9.2f} ms/eval  "
                  f"{mem / n:10.0f} B/atom  E {float(e.reshape(-1)[0]):.6f}", flush=True)
            del nlist, ext_coord, ext_type, mapping, e, f, v
        except Exception as e:  # torch's OutOfMemoryError
            if "OutOfMemory" not in type(e).__name__:
                raise
            print(f"  {name:24s} {n:10d} atoms  out of GPU memory", flush=True)
            torch.cuda.empty_cache()
            break
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("data")
    ap.add_argument("--cells", type=int, nargs="+", default=[4])
    ap.add_argument("--evals", type=int, default=10)
    ap.add_argument("--min-dist", type=float, default=0.5)
    ap.add_argument("--fcc", type=float, default=0.0)
    a = ap.parse_args()
    import deepmd

    # What DeePMD-kit's C++ interface (DeepPotPT::init) sets before it runs a model.
    torch.jit.set_fusion_strategy([("DYNAMIC", 10)])
    print(f"DeePMD-kit {deepmd.__version__}, PyTorch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    pth = f"/tmp/dpkit-{os.path.basename(a.model).split('.')[0]}.pth"
    convert(a.model, pth)
    systems = []
    for c in a.cells:
        coords, box, types = fcc(a.fcc, c) if a.fcc else water(a.data, c)
        systems.append((len(types), (coords, box, types)))
    for precision in ("float64", "float32"):
        for min_dist in (None, a.min_dist):
            name = f"{precision}{' compressed' if min_dist else ''}"
            try:
                model = build(pth, precision, min_dist)
            except Exception:
                print(f"{name}: could not be built:\n{traceback.format_exc()}", flush=True)
                continue
            try:
                time_model(name, model, systems, a.evals)
            except Exception:
                print(f"{name}: failed:\n{traceback.format_exc()}", flush=True)
            del model
            torch.cuda.empty_cache()

if __name__ == "__main__":
    main()
