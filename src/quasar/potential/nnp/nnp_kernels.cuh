#pragma once
// Per-atom kernels of Behler-Parrinello potentials on the GPU (gpu_evaluator.hpp): the symmetry
// functions of each centre, its energy from the network's output, and the forces. One block per
// centre; its neighbours within the cutoff are staged in shared memory (in list order, so that
// every sum runs in the same order each time), with the terms of symmetry_functions.hpp.
#include <cub/block/block_reduce.cuh>

#include "quasar/device/fixed_point.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/nn/layers.cuh"
#include "quasar/potential/nnp/symmetry_functions.hpp"

namespace quasar::nnp {

constexpr int kCentreBlock = 128;

// The functions of one centre element on the device.
template <class T>
struct ElementTables {
  int count = 0;                 // functions (functions_kernel: of this pass, from `first` on)
  int first = 0;
  const SfParams<T>* params;     // every function, in the network's input order
  const int* radial;             // indices of the radial functions
  const int* angular;            // indices of the angular functions
  int radial_count = 0, angular_count = 0;
  const T* atomic_number;        // per element (weighted types)
  T cutoff = 0;                  // Å, the largest rc of this element's functions
};

// A centre's neighbours within the cutoff, staged in shared memory.
template <class T>
struct Staged {
  T* d;      // 3 per neighbour
  T* r;
  int* element;
  int* atom;
  int count;
};

template <class T>
__host__ __device__ inline std::size_t staged_bytes(int capacity) {
  return static_cast<std::size_t>(capacity) * (4 * sizeof(T) + 2 * sizeof(int));
}

// Stages the neighbours of atom i within rc, in list order: each round of blockDim entries is
// compacted with warp ballots. Ends with __syncthreads.
template <class T>
__device__ Staged<T> stage_neighbours(const AtomsRef& a, const NeighborRef& list, const int* element_of, int i, T rc,
                                      void* shm) {
  Staged<T> s;
  const int cap = list.capacity;
  s.d = static_cast<T*>(shm);
  s.r = s.d + 3 * cap;
  s.element = reinterpret_cast<int*>(s.r + cap);
  s.atom = s.element + cap;
  __shared__ int warp_counts[kCentreBlock / 32];
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const Box box = a.box_of(i);
  const int n = list.count[i];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int base = 0; base < n; base += blockDim.x) {
    const int k = base + threadIdx.x;
    int j = -1;
    Vec3 d{};
    double r = 0;
    bool keep = false;
    if (k < n) {
      d = list.delta(box, a.x, a.y, a.z, i, k, j);
      r = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
      keep = r < static_cast<double>(rc);
    }
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (lane == 0) warp_counts[warp] = __popc(ballot);
    __syncthreads();
    int at = total;
    for (int w = 0; w < warp; ++w) at += warp_counts[w];
    at += __popc(ballot & ((1u << lane) - 1u));
    if (keep) {
      s.d[3 * at] = static_cast<T>(d.x);
      s.d[3 * at + 1] = static_cast<T>(d.y);
      s.d[3 * at + 2] = static_cast<T>(d.z);
      s.r[at] = static_cast<T>(r);
      s.element[at] = element_of[a.type[j]];
      s.atom[at] = j;
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += warp_counts[w];
    __syncthreads();
  }
  s.count = total;
  return s;
}

// The weight of a neighbour (pair) in a function: Z_j (Z_j Z_k) for the weighted types, else 1.
template <class T>
__device__ inline T weight(const ElementTables<T>& t, const SfParams<T>& p, int ej) {
  return sf_weighted(p.type) ? t.atomic_number[ej] : T(1);
}
template <class T>
__device__ inline T weight(const ElementTables<T>& t, const SfParams<T>& p, int ej, int ek) {
  return sf_weighted(p.type) ? t.atomic_number[ej] * t.atomic_number[ek] : T(1);
}

// The symmetry functions [first, first + count) of the centres order[0..): x = scale G + shift into
// row c of x (width values per row, type S). Threads take rows j and nb-1-j of the pair triangle
// together, so that each has about the same number of pairs; each keeps its partial sums in its own
// column of shared memory, summed over threads in a fixed order at the end.
template <class T, class S>
__global__ void functions_kernel(AtomsRef a, NeighborRef list, const int* element_of, const int* order,
                                 ElementTables<T> tab, const double* scale, const double* shift, S* x, int width) {
  extern __shared__ double shm[];
  const int c = blockIdx.x, i = order[c];
  const int nf = tab.count, first = tab.first;
  T* acc = reinterpret_cast<T*>(static_cast<char*>(static_cast<void*>(shm)) + staged_bytes<T>(list.capacity));
  for (int s = 0; s < nf; ++s) acc[s * blockDim.x + threadIdx.x] = T(0);
  const Staged<T> nb = stage_neighbours<T>(a, list, element_of, i, tab.cutoff, shm);
  const int n = nb.count;
  for (int p = threadIdx.x; p < (n + 1) / 2; p += blockDim.x) {
    for (int half = 0; half < 2; ++half) {
      const int j = half == 0 ? p : n - 1 - p;
      if (half == 1 && j == p) break;
      const int ej = nb.element[j];
      const T rj = nb.r[j];
      for (int q = 0; q < tab.radial_count; ++q) {
        const int s = tab.radial[q];
        const SfParams<T>& f = tab.params[s];
        if (s < first || s >= first + nf || !sf_accepts(f, ej)) continue;
        acc[(s - first) * blockDim.x + threadIdx.x] += weight(tab, f, ej) * radial_term(f, rj).f;
      }
      if (tab.angular_count == 0) continue;
      for (int k = j + 1; k < n; ++k) {
        const int ek = nb.element[k];
        const PairGeometry<T> g = pair_geometry(nb.d + 3 * j, rj, nb.d + 3 * k, nb.r[k]);
        for (int q = 0; q < tab.angular_count; ++q) {
          const int s = tab.angular[q];
          const SfParams<T>& f = tab.params[s];
          if (s < first || s >= first + nf || !sf_accepts(f, ej, ek)) continue;
          acc[(s - first) * blockDim.x + threadIdx.x] += weight(tab, f, ej, ek) * angular_term(f, g).value;
        }
      }
    }
  }
  __syncthreads();
  for (int s = threadIdx.x; s < nf; s += blockDim.x) {
    T g = 0;
    for (int t = 0; t < static_cast<int>(blockDim.x); ++t) g += acc[s * blockDim.x + t];
    const int f = first + s;
    x[static_cast<long>(c) * width + f] = nn::to<S>(scale[f] * static_cast<double>(g) + shift[f]);
  }
}

// Energies of the centres from the network's output y (count values): E = scale y + offset, into
// the per-atom energies (added) and the total.
template <class A, class Sum>
__global__ void energy_kernel(int count, const int* order, const A* y, double energy_scale, double offset,
                              double* atom_energy, double* totals, Sum add) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  double e[1] = {0.0};
  if (c < count) {
    e[0] = energy_scale * static_cast<double>(y[c]) + offset;
    if (atom_energy) atom_energy[order[c]] += e[0];
  }
  device::block_sum_into<kCentreBlock, 1>(e, totals, add);
}

// Forces and virials of the centres order[0..count) from dE/dx (count x functions): each thread
// owns neighbours j and sums dE/dd_j over every function and every other neighbour k (each pair
// is visited from both ends, so that no two threads add to one neighbour's sum); the neighbour
// gets -dE/dd_j, the centre the sum over its neighbours, the neighbour's per-atom virial
// -(dE/dd_j)_p d_q.
template <class T, class A, class Sum>
__global__ void forces_kernel(AtomsRef a, NeighborRef list, const int* element_of, const int* order,
                              ElementTables<T> tab, const double* scale, double energy_scale, const A* dedx,
                              double* totals, double* atom_virial, Sum add) {
  extern __shared__ double shm[];
  const int c = blockIdx.x, i = order[c];
  const int nf = tab.count;
  T* g = reinterpret_cast<T*>(static_cast<char*>(static_cast<void*>(shm)) + staged_bytes<T>(list.capacity));
  for (int s = threadIdx.x; s < nf; s += blockDim.x)
    g[s] = static_cast<T>(energy_scale * scale[s] * static_cast<double>(dedx[static_cast<long>(c) * nf + s]));
  const Staged<T> nb = stage_neighbours<T>(a, list, element_of, i, tab.cutoff, shm);
  const int n = nb.count;
  double fi[3] = {0, 0, 0}, w[9] = {};
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const int ej = nb.element[j];
    const T rj = nb.r[j];
    const T* dj = nb.d + 3 * j;
    T radial = 0, cjj = 0;
    T cjk_d[3] = {0, 0, 0};
    for (int q = 0; q < tab.radial_count; ++q) {
      const int s = tab.radial[q];
      const SfParams<T>& f = tab.params[s];
      if (!sf_accepts(f, ej)) continue;
      radial += g[s] * weight(tab, f, ej) * radial_term(f, rj).df;
    }
    for (int k = 0; k < n && tab.angular_count > 0; ++k) {
      if (k == j) continue;
      const int ek = nb.element[k];
      const T* dk = nb.d + 3 * k;
      const PairGeometry<T> geo = pair_geometry(dj, rj, dk, nb.r[k]);
      T jj = 0, jk = 0;
      for (int q = 0; q < tab.angular_count; ++q) {
        const int s = tab.angular[q];
        const SfParams<T>& f = tab.params[s];
        if (!sf_accepts(f, ej, ek)) continue;
        const AngularTerm<T> t = angular_term(f, geo);
        const T gw = g[s] * weight(tab, f, ej, ek);
        jj += gw * t.jj;
        jk += gw * t.jk;
      }
      cjj += jj;
      for (int m = 0; m < 3; ++m) cjk_d[m] += jk * dk[m];
    }
    double grad[3];
    for (int m = 0; m < 3; ++m)
      grad[m] = static_cast<double>((radial / rj + cjj) * dj[m] + cjk_d[m]);
    const int atom = nb.atom[j];
    add(a.fx + atom, -grad[0], device::fixed_scale::kForce);
    add(a.fy + atom, -grad[1], device::fixed_scale::kForce);
    add(a.fz + atom, -grad[2], device::fixed_scale::kForce);
    const double d[3] = {static_cast<double>(dj[0]), static_cast<double>(dj[1]), static_cast<double>(dj[2])};
    for (int p = 0; p < 3; ++p) {
      fi[p] += grad[p];
      for (int q = 0; q < 3; ++q) {
        const double v = -grad[p] * d[q];
        w[3 * p + q] += v;
        if (atom_virial) add(atom_virial + static_cast<long>(3 * p + q) * a.n + atom, v, device::fixed_scale::kAtomVirial);
      }
    }
  }
  using Reduce = cub::BlockReduce<double, kCentreBlock>;
  __shared__ typename Reduce::TempStorage temp;
  double* const own[3] = {a.fx, a.fy, a.fz};
  for (int m = 0; m < 3; ++m) {
    const double s = Reduce(temp).Sum(fi[m]);
    if (threadIdx.x == 0) add(own[m] + i, s, device::fixed_scale::kForce);
    __syncthreads();
  }
  device::block_sum_into<kCentreBlock, 9>(w, totals + 1, add);
}

}  // namespace quasar::nnp
