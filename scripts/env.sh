# Sourced by the scripts: puts a CMake >= 3.30 first on PATH (Debian 12's 3.25 does not know nvcc's
# C++20 dialect), installing it from PyPI when missing, and the CUDA toolkit's bin when present.
cmake_ok() {
  "$1" --version 2>/dev/null | awk 'NR==1{split($3,v,"."); exit !(v[1]>3 || (v[1]==3 && v[2]>=30))}'
}
if ! cmake_ok cmake; then
  pip_cmake_dir() { python3 -c 'import cmake, os; print(cmake.CMAKE_BIN_DIR)' 2>/dev/null; }
  dir=$(pip_cmake_dir || true)
  if [ -z "$dir" ] || ! cmake_ok "$dir/cmake"; then
    python3 -m pip install -q "cmake>=3.30" 2>/dev/null || python3 -m pip install -q --break-system-packages "cmake>=3.30"
    dir=$(pip_cmake_dir || true)
  fi
  export PATH="$dir:$PATH"
fi
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/quasar-ccache}
