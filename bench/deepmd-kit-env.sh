# Sourced by the device scripts that run DeePMD-kit: installs the PyPI wheels carried in .whl
# (deepmd-kit 3.2.0 and what it needs beyond the machine's PyTorch: `pip download --no-deps -d .whl
# deepmd-kit==3.2.0 dargs wcmatch bracex array_api_compat lmdb typeguard einops msgpack h5py
# nvidia-cuda-runtime-cu12`).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=$PWD/bench:/tmp/site
# The wheel's PyTorch operators link MPICH's libmpi.so.12, which the machine lacks (bench/mpi_stub.c
# stands in), and its CUDA operators load libcudart.so.12 (the machine has CUDA 13).
gcc -shared -fPIC -Wl,-soname,libmpi.so.12 bench/mpi_stub.c -o /tmp/libmpi.so.12
export DPKIT_MPI_STUB=/tmp/libmpi.so.12
export LD_LIBRARY_PATH=/tmp/site/nvidia/cuda_runtime/lib:$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
