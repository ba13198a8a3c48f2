// GPU neighbour list: cells with fixed slots filled by atomics, each cell then ordered by atom index
// (so the list, and every sum over it, is deterministic), then one thread per atom writes its
// neighbours transposed. Every build kernel returns at once unless flags[kRebuild] is set.
#include <cub/device/device_radix_sort.cuh>

#include "quasar/device/array.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/neighbor/neighbor_list_gpu.hpp"

namespace quasar::neighbor_gpu {
namespace {

constexpr int kBlock = 128;

// Where atom i's system keeps its cell, grid and first cell: with one system (kBatch false) the
// kernel arguments as always; in a batch, the system's entries.
template <bool kBatch>
struct SystemOf {
  const Box& box;
  const CellGrid& grid;
  int base;    // index of the system's first cell
  int system;
  __device__ SystemOf(const BuildArgs& a, int i)
      : box(kBatch ? a.atoms.boxes[a.atoms.system[i]] : a.atoms.box),
        grid(kBatch ? a.grids[a.atoms.system[i]] : a.grid),
        base(kBatch ? a.cell_begin[a.atoms.system[i]] : 0),
        system(kBatch ? a.atoms.system[i] : 0) {}
};

template <bool kBatch>
__global__ void flag_moved_kernel(BuildArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.atoms.n) return;
  const SystemOf<kBatch> at(a, i);
  const double* h0 = a.h0 + 9 * at.system;
  double dh = 0;
  for (int k = 0; k < 3; ++k) {
    if (!at.box.periodic[k]) continue;
    const Vec3 d = at.box.h.r[k] - Vec3{h0[3 * k], h0[3 * k + 1], h0[3 * k + 2]};
    dh += (at.grid.reach[k] + 1) * sqrt(norm2(d));
  }
  const double t = 0.5 * (a.skin - dh);
  const double dx = a.atoms.x[i] - a.x0[i], dy = a.atoms.y[i] - a.y0[i], dz = a.atoms.z[i] - a.z0[i];
  if (t <= 0 || dx * dx + dy * dy + dz * dz > t * t) {
    a.flags[kRebuild] = 1;
    if constexpr (kBatch) a.rebuild_system[at.system] = 1;
  }
}

__global__ void set_flag_kernel(int* flags) { flags[kRebuild] = 1; }

__global__ void set_system_flags_kernel(BuildArgs a) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.systems) a.rebuild_system[s] = 1;
}

// Whether a build rebuilds atom i's system (always with one system).
template <bool kBatch>
__device__ bool rebuilds(const BuildArgs& a, int system) {
  return !kBatch || a.rebuild_system[system] != 0;
}

__global__ void clear_cells_kernel(BuildArgs a) {
  if (!a.flags[kRebuild]) return;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < a.cells) a.cell_count[c] = 0;
}

template <bool kBatch>
__global__ void bin_kernel(BuildArgs a) {
  if (!a.flags[kRebuild]) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.atoms.n) return;
  const SystemOf<kBatch> at(a, i);
  if (!rebuilds<kBatch>(a, at.system)) return;
  const Box& box = at.box;
  int img[3] = {a.atoms.ix[i], a.atoms.iy[i], a.atoms.iz[i]};
  const Vec3 r = box.wrap({a.atoms.x[i], a.atoms.y[i], a.atoms.z[i]}, img);
  a.atoms.x[i] = a.x0[i] = r.x;
  a.atoms.y[i] = a.y0[i] = r.y;
  a.atoms.z[i] = a.z0[i] = r.z;
  a.atoms.ix[i] = img[0];
  a.atoms.iy[i] = img[1];
  a.atoms.iz[i] = img[2];
  const int c = at.base + at.grid.cell_of(box, r);
  const int slot = atomicAdd(&a.cell_count[c], 1);
  if (slot < a.cell_capacity) a.cell_atoms[static_cast<long>(c) * a.cell_capacity + slot] = i;
  else atomicMax(&a.flags[kMaxCellAtoms], slot + 1);
}

// Insertion sort of each cell's atoms: cells hold a few tens of atoms.
__global__ void order_cells_kernel(BuildArgs a) {
  if (!a.flags[kRebuild]) return;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= a.cells) return;
  const int n = min(a.cell_count[c], a.cell_capacity);
  int* m = a.cell_atoms + static_cast<long>(c) * a.cell_capacity;
  atomicMax(&a.flags[kMaxCellAtoms], a.cell_count[c]);
  for (int p = 1; p < n; ++p) {
    const int v = m[p];
    int q = p - 1;
    while (q >= 0 && m[q] > v) {
      m[q + 1] = m[q];
      --q;
    }
    m[q + 1] = v;
  }
}

template <bool kBatch>
__global__ void build_kernel(BuildArgs a) {
  if (!a.flags[kRebuild]) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.atoms.n) return;
  const SystemOf<kBatch> at(a, i);
  if (!rebuilds<kBatch>(a, at.system)) return;
  const Box& box = at.box;
  const CellGrid& g = at.grid;
  const double* __restrict__ x = a.atoms.x;
  const double* __restrict__ y = a.atoms.y;
  const double* __restrict__ z = a.atoms.z;
  const Vec3 ri{x[i], y[i], z[i]};
  const Vec3 s = box.to_frac(ri);
  const int c0 = g.coord(s.x, 0), c1 = g.coord(s.y, 1), c2 = g.coord(s.z, 2);
  const int n = a.atoms.n;
  int found = 0;
  for (int o2 = -g.reach[2]; o2 <= g.reach[2]; ++o2) {
    int w2, m2;
    if (!g.neighbor_coord(c2, o2, 2, w2, m2)) continue;
    for (int o1 = -g.reach[1]; o1 <= g.reach[1]; ++o1) {
      int w1, m1;
      if (!g.neighbor_coord(c1, o1, 1, w1, m1)) continue;
      for (int o0 = -g.reach[0]; o0 <= g.reach[0]; ++o0) {
        int w0, m0;
        if (!g.neighbor_coord(c0, o0, 0, w0, m0)) continue;
        const Vec3 shift = box.shift(m0, m1, m2) - ri;
        const int code = pack_image(m0, m1, m2);
        const int cc = at.base + g.index(w0, w1, w2);
        const int members = min(a.cell_count[cc], a.cell_capacity);
        const int* cell = a.cell_atoms + static_cast<long>(cc) * a.cell_capacity;
        for (int p = 0; p < members; ++p) {
          const int j = cell[p];
          if (j == i && code == 0) continue;
          if (a.half && !half_list_keeps(i, j, m0, m1, m2)) continue;
          const double dx = x[j] + shift.x, dy = y[j] + shift.y, dz = z[j] + shift.z;
          if (dx * dx + dy * dy + dz * dz < a.r_list2) {
            if (found < a.capacity) {
              a.index[static_cast<long>(found) * n + i] = j;
              a.image[static_cast<long>(found) * n + i] = code;
            }
            ++found;
          }
        }
      }
    }
  }
  a.count[i] = min(found, a.capacity);
  if (found > a.capacity) atomicMax(&a.flags[kMaxNeighbors], found);
  else if (found > 0) atomicMax(&a.flags[kMaxNeighbors], found);
}

// Each system's cell at this build (one system: finish_kernel does it).
__global__ void store_cells_kernel(BuildArgs a) {
  if (!a.flags[kRebuild]) return;
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.systems || !a.rebuild_system[s]) return;
  const Box& box = a.atoms.boxes[s];
  for (int k = 0; k < 3; ++k) {
    a.h0[9 * s + 3 * k] = box.h.r[k].x;
    a.h0[9 * s + 3 * k + 1] = box.h.r[k].y;
    a.h0[9 * s + 3 * k + 2] = box.h.r[k].z;
  }
  a.rebuild_system[s] = 0;  // after the build kernel, which read it
}

__global__ void finish_kernel(BuildArgs a) {
  if (!a.flags[kRebuild]) return;
  if (!a.atoms.system)
    for (int k = 0; k < 3; ++k) {
      a.h0[3 * k] = a.atoms.box.h.r[k].x;
      a.h0[3 * k + 1] = a.atoms.box.h.r[k].y;
      a.h0[3 * k + 2] = a.atoms.box.h.r[k].z;
    }
  ++a.flags[kBuilds];
  a.flags[kRebuild] = 0;
}

template <bool kBatch>
__global__ void cell_keys_kernel(BuildArgs a, int* keys, int* order) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.atoms.n) return;
  const SystemOf<kBatch> at(a, i);
  keys[i] = at.base + at.grid.cell_of(at.box, at.box.wrap({a.atoms.x[i], a.atoms.y[i], a.atoms.z[i]}));
  order[i] = i;
}

}  // namespace

void flag_moved_atoms(const BuildArgs& a) {
  if (a.atoms.system) flag_moved_kernel<true><<<grid_for(a.atoms.n, kBlock), kBlock>>>(a);
  else flag_moved_kernel<false><<<grid_for(a.atoms.n, kBlock), kBlock>>>(a);
  QUASAR_LAUNCH_CHECK("flag_moved_kernel");
}

void set_rebuild_flag(const BuildArgs& a) {
  set_flag_kernel<<<1, 1>>>(a.flags);
  QUASAR_LAUNCH_CHECK("set_flag_kernel");
  if (!a.atoms.system) return;
  set_system_flags_kernel<<<grid_for(a.systems, kBlock), kBlock>>>(a);
  QUASAR_LAUNCH_CHECK("set_system_flags_kernel");
}

void build_if_flagged(const BuildArgs& a) {
  const int cells = a.cells;
  const bool batch = a.atoms.system != nullptr;
  clear_cells_kernel<<<grid_for(cells, kBlock), kBlock>>>(a);
  QUASAR_LAUNCH_CHECK("clear_cells_kernel");
  if (batch) bin_kernel<true><<<grid_for(a.atoms.n, kBlock), kBlock>>>(a);
  else bin_kernel<false><<<grid_for(a.atoms.n, kBlock), kBlock>>>(a);
  QUASAR_LAUNCH_CHECK("bin_kernel");
  order_cells_kernel<<<grid_for(cells, kBlock), kBlock>>>(a);
  QUASAR_LAUNCH_CHECK("order_cells_kernel");
  if (batch) build_kernel<true><<<grid_for(a.atoms.n, kBlock), kBlock>>>(a);
  else build_kernel<false><<<grid_for(a.atoms.n, kBlock), kBlock>>>(a);
  QUASAR_LAUNCH_CHECK("build_kernel");
  if (batch) {
    store_cells_kernel<<<grid_for(a.systems, kBlock), kBlock>>>(a);
    QUASAR_LAUNCH_CHECK("store_cells_kernel");
  }
  finish_kernel<<<1, 1>>>(a);
  QUASAR_LAUNCH_CHECK("finish_kernel");
}

void cell_order(const BuildArgs& a, int* perm) {
  const int n = a.atoms.n;
  Array<int> keys(Backend::Cuda, n), keys_out(Backend::Cuda, n), order(Backend::Cuda, n);
  if (a.atoms.system) cell_keys_kernel<true><<<grid_for(n, kBlock), kBlock>>>(a, keys.data(), order.data());
  else cell_keys_kernel<false><<<grid_for(n, kBlock), kBlock>>>(a, keys.data(), order.data());
  QUASAR_LAUNCH_CHECK("cell_keys_kernel");
  std::size_t bytes = 0;
  QUASAR_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), keys_out.data(), order.data(), perm, n));
  Array<char> temp(Backend::Cuda, bytes);
  QUASAR_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys.data(), keys_out.data(), order.data(), perm, n));
}

}  // namespace quasar::neighbor_gpu
