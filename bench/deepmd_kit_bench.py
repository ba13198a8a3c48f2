#!/usr/bin/env python3
"""DeePMD-kit (PyTorch backend) on the same GPU, model and water boxes as bench_md_bench.

usage: deepmd_kit_bench.py MODEL.yaml DATA_DIR [--cells 4 8 ...] [--evals N] [--min-dist 0.5] [--fcc A]

MODEL.yaml is a model written by `quasar dp convert`; it is converted to the PyTorch backend as
`dp convert-backend` does (float64 as stored, and a float32 copy), and, where DeePMD-kit's custom
operators load, compressed as `dp --pt compress` does. The systems are frame 0 of DATA_DIR
(deepmd/npy) repeated cells^3 times, as bench_md_bench's "water" (or, with --fcc A, an fcc crystal
of cells^3 unit cells of edge A, as its "copper"). Times DeepPot.eval (energy,
forces, virial) after a warm-up and prints atom-evaluations per second and peak GPU memory.
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
    import os

    import deepmd.env

    stub = os.environ.get("DPKIT_MPI_STUB")
    if stub:
        ctypes.CDLL(stub, mode=ctypes.RTLD_GLOBAL)
        deepmd.env.GLOBAL_CONFIG["cibuildwheel"] = "0"
    import deepmd.pt  # noqa: F401


def convert(yaml_path, out, precision):
    from deepmd.backend.backend import Backend

    load_deepmd_pt()
    data = Backend.detect_backend_by_model(yaml_path)().serialize_hook(yaml_path)
    set_precision(data["model"], precision)
    set_precision(data.get("model_def_script", {}), precision)
    Backend.detect_backend_by_model(out)().deserialize_hook(out, data)


def compress(inp, out, min_dist):
    """As `dp --pt compress`, with the closest neighbour distance given instead of training data."""
    import json

    load_deepmd_pt()
    from deepmd.pt.model.model import get_model
    from deepmd.pt.utils import env

    saved = torch.jit.load(inp, map_location="cpu")
    model = get_model(json.loads(saved.model_def_script))
    model.load_state_dict(saved.state_dict())
    model.min_nbor_dist = torch.tensor(min_dist, dtype=env.GLOBAL_PT_FLOAT_PRECISION, device=env.DEVICE)
    model.enable_compression(5, 0.01, 0.1, -1)
    torch.jit.save(torch.jit.script(model), out)


def time_model(path, data_dir, cells, evals, lattice):
    import sys
    import types

    try:  # imported by DeepEval for other descriptors only; its own dependencies may be missing
        import mendeleev  # noqa: F401
    except ImportError:
        stub = types.ModuleType("mendeleev")
        stub.element = None
        sys.modules["mendeleev"] = stub
    from deepmd.infer import DeepPot

    dp = DeepPot(path)
    for c in cells:
        coords, box, types = fcc(lattice, c) if lattice else water(data_dir, c)
        n = len(types)
        try:
            torch.cuda.reset_peak_memory_stats()
            dp.eval(coords[None], box[None], types)  # warm-up
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(evals):
                e, f, v = dp.eval(coords[None], box[None], types)
            torch.cuda.synchronize()
            dt = (time.perf_counter() - t0) / evals
            mem = torch.cuda.max_memory_allocated()
            print(f"  {path:28s} {n:10d} atoms  {n / dt:12.4g} atom-evals/s  {1e3 * dt:9.2f} ms/eval  "
                  f"{mem / n:10.0f} B/atom  E {float(np.ravel(e)[0]):.6f}", flush=True)
        except Exception as e:  # torch's or DeePMD-kit's OutOfMemoryError
            if "OutOfMemory" not in type(e).__name__:
                raise
            print(f"  {path:28s} {n:10d} atoms  out of GPU memory", flush=True)
            torch.cuda.empty_cache()
            break


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

    print(f"DeePMD-kit {deepmd.__version__}, PyTorch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    models = []
    for precision in ("float64", "float32"):
        out = f"/tmp/dpkit-{os.path.basename(a.model).split('.')[0]}-{precision}.pth"
        try:
            convert(a.model, out, precision)
            models.append(out)
        except Exception:
            print(f"conversion to {precision} failed:\n{traceback.format_exc()}", flush=True)
    for src in list(models):
        out = src.replace(".pth", "-compressed.pth")
        try:
            compress(src, out, a.min_dist)
            models.append(out)
        except Exception as e:
            print(f"compression of {src} failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  flush=True)
    for m in models:
        time_model(m, a.data, a.cells, a.evals, a.fcc)


if __name__ == "__main__":
    main()
