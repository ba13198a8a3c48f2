#!/usr/bin/env python3
"""TorchANI, the GPU peer for Behler-Parrinello potentials: energy and forces per second of an ANI model of the size
of the H2O_RPBE-D3 n2p2 potential, on water boxes replicated from the 1,080-atom structure of predict/H2O_RPBE-D3.

The model (random weights, seed 0), beside n2p2's H2O_RPBE-D3:
- descriptor: ANI's AEV with 8 radial shifts per neighbour element (16 values; n2p2: 8 G2 per neighbour element)
  and 2 radial shifts x 2 angular sections per element pair (3 pairs, 12 values; n2p2: 11 G3 for H, 14 for O), so 28
  values for either element (n2p2: H 27, O 30). The radial and the angular cutoff are both 6.350 Å (the angular one
  1e-4 Å less, as TorchANI requires; n2p2: 12 bohr = 6.350 Å for every function), so each atom sums over the same ~100 neighbours and ~5,000 neighbour pairs as n2p2;
  per pair of neighbours ANI forms 4 angular terms, n2p2 4 to 7 (the G3 matching the pair's elements). Cosine cutoff
  (cuAEV supports cosine; n2p2's potential uses tanh^3, a difference of a few operations per pair).
- networks: one per element via torchani.nn.ANINetworks (ANIModel's successor), 28-25-25-1, tanh, biases, as n2p2's
  25-25 `t t l`.
- periodic box, TorchANI's Verlet cell list with a 1 Å skin (Quasar's MD step uses a 1 Å skin too). The coordinates
  do not move between evaluations, so the list is built once and then only narrowed to the cutoff each call, as in
  MD between rebuilds; `--neighborlist cell_list` builds it every call instead.
- one evaluation: AEV (cuAEV when available on the GPU, else TorchANI's PyTorch AEV), networks, energy, forces by
  autograd (no virial). Timed between CUDA synchronisations after warm-up; atoms/s = atoms x evaluations / s.
  bytes/atom: the peak of PyTorch's CUDA allocator over the atoms.

Before timing, the largest force deviation of the smallest box from central finite differences (float64, a few
coordinates) is printed, and on the GPU the cuAEV result is compared with TorchANI's PyTorch AEV.

Here (CPU): python bench/torchani_bench.py --device cpu --cells 1 --seconds 3
On the GPU machine (carry .peers; its torchani-wheels/ holds the torchani wheel and ninja, which the image's PyTorch
lacks; --build-cuaev compiles TorchANI's CUDA AEV for the GPU with the machine's nvcc, about two minutes, once):
  python3 -m pip install -q --no-index --no-deps --target /tmp/ta-site .peers/torchani-wheels/*.whl
  PYTHONPATH=/tmp/ta-site PATH=/tmp/ta-site/bin:/usr/local/cuda/bin:$PATH python3 bench/torchani_bench.py \
      --device cuda --build-cuaev --cells 1 2 4 6 8
"""
import argparse
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

BOHR_PER_ANGSTROM = 1.8897261328  # the factor of pair_style hdnnp's cflength in bench/n2p2-lammps-bench.sh
CUTOFF = 12.0 / BOHR_PER_ANGSTROM  # Å


def read_water(folder):
    """The first structure of an n2p2 input.data (bohr): element symbols, positions and box edges in Å."""
    symbols, positions, lattice = [], [], []
    with open(Path(folder) / "input.data") as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "lattice":
                lattice.append([float(v) / BOHR_PER_ANGSTROM for v in words[1:4]])
            elif words[0] == "atom":
                positions.append([float(v) / BOHR_PER_ANGSTROM for v in words[1:4]])
                symbols.append(words[4])
            elif words[0] == "end":
                break
    if len(lattice) != 3 or any(lattice[i][j] != 0 for i in range(3) for j in range(3) if i != j):
        sys.exit(f"torchani_bench: {folder}/input.data: an orthogonal lattice is expected")
    return symbols, positions, [lattice[i][i] for i in range(3)]


def build_cuaev():
    """TorchANI's CUDA AEV extension, compiled as `ani build-extensions` does, placed in the torchani package."""
    import torch
    from torch.utils.cpp_extension import include_paths, load

    package = Path(importlib.util.find_spec("torchani").origin).parent
    if (package / "cuaev.so").exists():
        return
    if "TORCH_CUDA_ARCH_LIST" not in os.environ:  # this GPU's, unless given
        os.environ["TORCH_CUDA_ARCH_LIST"] = "{}.{}".format(*torch.cuda.get_device_capability())
    build = Path(os.environ.get("TORCHANI_CUAEV_BUILD", "/tmp/torchani-cuaev"))
    build.mkdir(parents=True, exist_ok=True)
    nvcc_args = ["--expt-extended-lambda", "-DCUB_NS_QUALIFIER=::cuaev::cub", "-DCUB_NS_PREFIX='namespace cuaev {'",
                 "-DCUB_NS_POSTFIX=}", "-DTORCHANI_OPT", "-use_fast_math"]
    print(f"building cuAEV for {os.environ['TORCH_CUDA_ARCH_LIST']} in {build}", flush=True)
    start = time.perf_counter()
    load(name="cuaev", sources=[str(package / "csrc/cuaev.cpp"), str(package / "csrc/aev.cu")],
         extra_include_paths=include_paths(device_type="cuda") + [str(package / "csrc")], build_directory=str(build),
         extra_cuda_cflags=nvcc_args, extra_cflags=["-std=c++17"], with_cuda=True, is_python_module=False)
    shutil.copy(build / "cuaev.so", package / "cuaev.so")
    print(f"cuAEV built in {time.perf_counter() - start:.0f} s", flush=True)


def make_model(torch, torchani, strategy, neighborlist):
    from torchani.aev import AEVComputer, ANIAngular, ANIRadial
    from torchani.nn import ANINetworks, AtomicNetwork

    torch.manual_seed(0)
    radial = ANIRadial.cover_linearly(start=0.8, cutoff=CUTOFF, eta=2.0, num_shifts=8, cutoff_fn="cosine")
    # TorchANI requires the angular cutoff below the radial one: 1e-4 Å below, where the cutoff function is ~1e-9.
    angular = ANIAngular.cover_linearly(start=0.8, cutoff=CUTOFF - 1e-4, eta=2.0, zeta=4.0, num_shifts=2, num_sections=2,
                                        cutoff_fn="cosine")
    aev = AEVComputer(radial, angular, num_species=2, strategy=strategy, neighborlist=neighborlist)
    if neighborlist == "verlet_cell_list":  # the 1 Å skin
        aev.neighborlist.skin = 1.0
    nets = ANINetworks({e: AtomicNetwork((aev.out_dim, 25, 25, 1), activation=torch.nn.Tanh(), bias=True)
                        for e in ("H", "O")})
    return aev, nets


def system(torch, water, cells, dtype, device):
    symbols, positions, edges = water
    index = {"H": 0, "O": 1}
    base = torch.tensor(positions, dtype=torch.float64)
    shifts = torch.tensor([[i, j, k] for i in range(cells) for j in range(cells) for k in range(cells)],
                          dtype=torch.float64) * torch.tensor(edges, dtype=torch.float64)
    coords = (shifts[:, None, :] + base[None, :, :]).reshape(1, -1, 3)
    species = torch.tensor([index[s] for s in symbols] * len(shifts), dtype=torch.long).reshape(1, -1)
    cell = torch.diag(torch.tensor(edges, dtype=torch.float64) * cells)
    pbc = torch.tensor([True, True, True], device=device)
    return species.to(device), coords.to(device=device, dtype=dtype), cell.to(device=device, dtype=dtype), pbc


def energy_forces(torch, aev, nets, species, coords, cell, pbc):
    coords = coords.detach().requires_grad_(True)
    energy = nets(species, aev(species, coords, cell, pbc)).sum()
    (grad,) = torch.autograd.grad(energy, coords)
    return energy.detach(), -grad


def checks(torch, torchani, args, water, device):
    """Forces against central differences (float64), and cuAEV against the PyTorch AEV on the GPU."""
    aev, nets = make_model(torch, torchani, "pyaev", "cell_list")
    aev, nets = aev.to(device, torch.float64), nets.to(device, torch.float64)
    species, coords, cell, pbc = system(torch, water, 1, torch.float64, device)
    _, forces = energy_forces(torch, aev, nets, species, coords, cell, pbc)
    h, worst = 1e-4, 0.0
    for atom, axis in ((0, 0), (1, 1), (2, 2), (500, 0), (1079, 2)):
        e = []
        for sign in (1, -1):
            moved = coords.clone()
            moved[0, atom, axis] += sign * h
            e.append(energy_forces(torch, aev, nets, species, moved, cell, pbc)[0].item())
        worst = max(worst, abs(-(e[0] - e[1]) / (2 * h) - forces[0, atom, axis].item()))
    print(f"check: forces vs central differences (h 1e-4 Å, 5 coordinates): max |dF| {worst:.2e} eV/Å", flush=True)
    if args.strategy == "cuaev":
        cu_aev, cu_nets = make_model(torch, torchani, "cuaev", "cell_list")
        cu_aev, cu_nets = cu_aev.to(device, torch.float64), cu_nets.to(device, torch.float64)
        e_ref, f_ref = energy_forces(torch, aev, nets, species, coords, cell, pbc)
        e_cu, f_cu = energy_forces(torch, cu_aev, cu_nets, species, coords, cell, pbc)
        print(f"check: cuAEV vs PyTorch AEV (float64): |dE| {abs(e_cu - e_ref).item():.2e}, "
              f"max |dF| {(f_cu - f_ref).abs().max().item():.2e}", flush=True)


def measure(torch, torchani, args, water, cells, dtype, device):
    aev, nets = make_model(torch, torchani, args.strategy, args.neighborlist)
    aev, nets = aev.to(device, dtype), nets.to(device, dtype)
    species, coords, cell, pbc = system(torch, water, cells, dtype, device)
    atoms = species.shape[1]
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    if device == "cuda":
        torch.cuda.empty_cache()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
    for _ in range(args.warmup):
        energy_forces(torch, aev, nets, species, coords, cell, pbc)
    sync()
    # Batches of evaluations between synchronisations, each about 0.5 s once the first has given the rate.
    evals, batch, start = 0, 1, time.perf_counter()
    while True:
        for _ in range(batch):
            energy_forces(torch, aev, nets, species, coords, cell, pbc)
        evals += batch
        sync()
        elapsed = time.perf_counter() - start
        if elapsed >= args.seconds and evals >= args.min_evals:
            break
        batch = max(1, int(0.5 * evals / elapsed))
    row = {"device": device, "dtype": str(dtype).replace("torch.", ""), "atoms": atoms, "evals": evals,
           "seconds": round(elapsed, 4), "ms_per_eval": round(1e3 * elapsed / evals, 4),
           "atoms_per_s": atoms * evals / elapsed, "strategy": aev.strategy, "neighborlist": args.neighborlist}
    if device == "cuda":
        row["bytes_per_atom"] = round((torch.cuda.max_memory_allocated() - base) / atoms)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--cells", type=int, nargs="+", default=[1, 2, 4], help="replications per axis")
    parser.add_argument("--dtypes", nargs="+", default=["float64", "float32"], choices=["float64", "float32"])
    repo = Path(__file__).resolve().parents[1]
    water = repo.parent / "shared/reference/n2p2/predict/H2O_RPBE-D3"
    parser.add_argument("--water", default=str(water if water.is_dir() else repo / ".peers/H2O_RPBE-D3"),
                        help="folder with the n2p2 input.data of the water box (default ../shared/reference/n2p2/"
                             "predict/H2O_RPBE-D3, else .peers/H2O_RPBE-D3)")
    parser.add_argument("--strategy", default="auto", choices=["auto", "cuaev", "pyaev"])
    parser.add_argument("--neighborlist", default="verlet_cell_list", choices=["verlet_cell_list", "cell_list"])
    parser.add_argument("--seconds", type=float, default=5.0, help="timed seconds per run (at least)")
    parser.add_argument("--min-evals", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--build-cuaev", action="store_true", help="compile cuAEV for this GPU if missing")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()

    os.environ.setdefault("TORCHANI_NO_WARN_EXTENSIONS", "1")
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torchani_bench: no CUDA device (use --device cpu)")
    if args.build_cuaev and args.device == "cuda":
        # In a child process: the build loads the library, and torchani would register its operators again.
        subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
                        "import torchani_bench; torchani_bench.build_cuaev()"], check=True)
    import torchani
    from torchani.csrc import CUAEV_IS_INSTALLED

    if args.strategy == "auto":
        args.strategy = "cuaev" if CUAEV_IS_INSTALLED and args.device == "cuda" else "pyaev"
    water = read_water(args.water)
    gpu = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    print(f"torchani {torchani.__version__}, torch {torch.__version__}, {gpu}, AEV {args.strategy}, "
          f"neighbour list {args.neighborlist}, cutoff {CUTOFF:.4f} Å", flush=True)
    checks(torch, torchani, args, water, args.device)
    rows = []
    for name in args.dtypes:
        for cells in args.cells:
            try:
                row = measure(torch, torchani, args, water, cells, getattr(torch, name), args.device)
            except torch.OutOfMemoryError:
                print(f"{name} {cells}^3: out of memory", flush=True)
                torch.cuda.empty_cache()
                break
            rows.append(row)
            extra = f", {row['bytes_per_atom']} bytes/atom" if "bytes_per_atom" in row else ""
            print(f"{row['dtype']} {row['atoms']} atoms: {row['evals']} evaluations in {row['seconds']:.2f} s, "
                  f"{row['ms_per_eval']:.3f} ms each, {row['atoms_per_s']:.4g} atoms/s{extra}", flush=True)
    print("summary: " + json.dumps(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
