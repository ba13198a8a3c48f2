#pragma once
// Per-atom kernels of Behler-Parrinello potentials on the GPU (gpu_evaluator.hpp): the symmetry
// functions of each centre, its energy from the network's output, and the forces. One block per
// centre (nnp_pairs.cuh): its neighbours within the cutoff staged in shared memory with their radial
// factors, then the radial terms per neighbour and the angular terms per pair from the compacted
// pair buffer, with the terms of symmetry_functions.hpp.
#include <type_traits>

#include "quasar/device/reduce.cuh"
#include "quasar/nn/layers.cuh"
#include "quasar/potential/nnp/nnp_pairs.cuh"

namespace quasar::nnp {

// Blocks of the per-centre kernels that should fit on a multiprocessor: caps their registers at 64
// in float, 128 in double. They wait on shared memory, so occupancy pays (on the H100: a lower cap,
// 10 blocks and 48 registers in float, spills and was slower, as was loading the next entry ahead;
// double forces took 144 registers uncapped and were 13% slower).
template <class T>
constexpr int kCentreBlocksPerSm = sizeof(T) == sizeof(float) ? 8 : 4;

constexpr std::size_t kQueueBytes = kPairQueue * (kCentreBlock / 32) * sizeof(unsigned);

// The angular factor of entry e and its derivative in cos, for the entries of range kKind
// (AngularEntry): small integer zetas with the power unrolled (the CPU's products, in its order),
// other exponential ones, the compact windows.
template <int kKind, class T>
__device__ inline Fdf<T> entry_angle(const AngularEntry<T>& e, T cos, const ElementTables<T>& tab,
                                     const PairAngle<T>& angle) {
  if constexpr (kKind == 0) {
    Fdf<T> o;
    const T p = T(1) + e.lambda * cos;
    T pz1 = T(1), x = p;  // p^(zeta - 1) as sf_detail::pow_int forms it
    const int n = e.zeta_int - 1;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      if (n & (1 << b)) pz1 *= x;
      x *= x;
    }
    if (p > T(0)) {
      o.f = e.prefactor * pz1 * p;
      o.df = e.prefactor * e.zeta * e.lambda * pz1;
    }
    return o;
  } else if constexpr (kKind == 1) {
    return exponential_angle(e.lambda, e.zeta, e.zeta_int, e.prefactor, cos);
  } else {
    return window_angle(tab.params[e.function], angle);
  }
}

// The factor at r_jk of the entries of a run (their envelope at r_jk kept while it is the same).
template <class T>
struct FactorAtJk {
  int index = -1;
  Fdf<T> env;
  __device__ Fdf<T> operator()(const AngularEntry<T>& e, const ElementTables<T>& tab, T rjk) {
    if (e.jk_envelope != index) {
      index = e.jk_envelope;
      env = envelope(tab.envelopes[index], rjk);
    }
    const T d = rjk - e.rs, x = sf_math::exp(-e.eta * d * d);
    return Fdf<T>{x * env.f, x * (env.df - T(2) * e.eta * d * env.f)};
  }
};

// Calls terms(kind, from, to) for the three ranges of pair list p's entries.
template <class T, class Terms>
__device__ inline void for_each_range(const ElementTables<T>& tab, int p, Terms&& terms) {
  const int q1 = tab.pair_split[2 * p], q2 = tab.pair_split[2 * p + 1];
  terms(std::integral_constant<int, 0>{}, tab.pair_start[p], q1);
  terms(std::integral_constant<int, 1>{}, q1, q2);
  terms(std::integral_constant<int, 2>{}, q2, tab.pair_start[p + 1]);
}

// Shared memory of functions_kernel: neighbours, their radial factors (values), the pair queues, a
// column of partial sums per thread for each function of the pass, and the pair-list entries.
template <class T>
__host__ __device__ inline std::size_t functions_shared_bytes(int capacity, int factors, int functions,
                                                              std::size_t entries) {
  return aligned16(staged_bytes<T>(capacity)) + aligned16(static_cast<std::size_t>(capacity) * factors * sizeof(T)) +
         kQueueBytes + aligned16(static_cast<std::size_t>(functions) * kCentreBlock * sizeof(T)) + entries;
}

// The symmetry functions [first, first + count) of the centres order[0..): x = scale G + shift into
// row c of x (width values per row, type S). Each thread keeps its partial sums in its own column of
// shared memory (radial terms of the neighbours it takes, angular terms of the pairs for_each_pair
// gives it), summed over threads in a fixed order at the end.
template <class T, class S>
__global__ void __launch_bounds__(kCentreBlock, kCentreBlocksPerSm<T>)
    functions_kernel(AtomsRef a, NeighborRef list, const int* element_of, const int* order, ElementTables<T> tab,
                     const double* scale, const double* shift, S* x, int width) {
  extern __shared__ double shm[];
  const int c = blockIdx.x, i = order[c];
  const int nf = tab.count, first = tab.first, cap = list.capacity, nfac = tab.factor_count;
  char* base = static_cast<char*>(static_cast<void*>(shm));
  T* factor = reinterpret_cast<T*>(base + aligned16(staged_bytes<T>(cap)));
  unsigned* queue = reinterpret_cast<unsigned*>(reinterpret_cast<char*>(factor) +
                                                aligned16(static_cast<std::size_t>(cap) * nfac * sizeof(T)));
  T* acc = reinterpret_cast<T*>(queue + kQueueBytes / sizeof(unsigned));
  const AngularEntry<T>* entries = place_entries(
      tab, reinterpret_cast<char*>(acc) + aligned16(static_cast<std::size_t>(nf) * blockDim.x * sizeof(T)));
  T* mine = acc + threadIdx.x;  // column of this thread: function s at mine[(s - first) * blockDim.x]
  for (int s = 0; s < nf; ++s) mine[s * blockDim.x] = T(0);
  const Staged<T> nb = stage_neighbours<T>(a, list, element_of, i, tab.cutoff, tab.elements, shm);
  const int n = nb.count;
  auto in_pass = [&](int s) { return s >= first && s < first + nf; };
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const int ej = nb.element[j];
    const T rj = nb.r[j];
    int env_index = -1;
    Fdf<T> env;
    for (int q = tab.radial_start[ej]; q < tab.radial_start[ej + 1]; ++q) {
      const int s = tab.radial_fn[q];
      if (!in_pass(s)) continue;
      const SfParams<T>& f = tab.params[s];
      if (tab.envelope_of[s] != env_index) {
        env_index = tab.envelope_of[s];
        env = envelope(tab.envelopes[env_index], rj);
      }
      mine[(s - first) * blockDim.x] += weight(tab, f, ej) * radial_term(f, rj, env).f;
    }
    for (int u = 0; u < nfac; ++u) {
      const SfParams<T>& f = tab.factors[u];
      factor[j * nfac + u] = radial_term(f, rj, envelope(tab.envelopes[tab.factor_envelope[u]], rj)).f;
    }
  }
  __syncthreads();
  const PairRows walk(nb, tab);
  if (nfac > 0)
    for_each_pair(nb, tab, walk, queue, [&](int j, int k, bool valid) {
      if (!valid) return;
      const int ej = nb.element[j], ek = nb.element[k], p = pair_list(tab, ej, ek);
      const PairGeometry<T> g = pair_geometry(nb.d + 3 * j, nb.r[j], nb.d + 3 * k, nb.r[k]);
      const PairAngle<T> angle = (tab.pair_flags[p] & kPairNeedsAngle) ? pair_angle(g) : PairAngle<T>{};
      const T zz = tab.atomic_number[ej] * tab.atomic_number[ek];
      const T* fj = factor + j * nfac;
      const T* fk = factor + k * nfac;
      FactorAtJk<T> at_jk;
      for_each_range(tab, p, [&](auto kind, int from, int to) {
        T run = 0;  // fj fk, times the factor at r_jk, of the current run
        for (int q = from; q < to; ++q) {
          const AngularEntry<T> e = entries[q];
          if (e.new_jk) {
            run = fj[e.factor] * fk[e.factor];
            if (e.jk_envelope >= 0) run *= at_jk(e, tab, g.rjk).f;
          }
          const int column = e.function - first;
          if (static_cast<unsigned>(column) >= static_cast<unsigned>(nf)) continue;  // not in this pass
          const T w = e.weighted ? zz : T(1);
          mine[column * blockDim.x] += w * entry_angle<decltype(kind)::value>(e, g.cos, tab, angle).f * run;
        }
      });
    });
  __syncthreads();
  for (int s = threadIdx.x; s < nf; s += blockDim.x) {
    T sum = 0;
    for (int t = 0; t < static_cast<int>(blockDim.x); ++t) sum += acc[s * blockDim.x + t];
    const int f = first + s;
    x[static_cast<long>(c) * width + f] = nn::to<S>(scale[f] * static_cast<double>(sum) + shift[f]);
  }
}

// The neighbours of the centres order[0..) within rc as stage_neighbours leaves them, into global
// memory for the kernels compiled at run time (generated_kernels.hpp): centre c's neighbour k at
// staged[4 (c capacity + k) ..] as d_x, d_y, d_z, r; where its element's neighbours start at
// staged_start[c (kMaxElements + 1) + e], the neighbour's atom at staged_atom[c capacity + k].
template <class T>
__global__ void __launch_bounds__(kCentreBlock)
    stage_kernel(AtomsRef a, NeighborRef list, const int* element_of, const int* order, T rc, int elements,
                 T* staged, int* staged_start, int* staged_atom) {
  extern __shared__ double shm[];
  const int c = blockIdx.x;
  const Staged<T> nb = stage_neighbours<T>(a, list, element_of, order[c], rc, elements, shm);
  T* mine = staged + 4l * c * list.capacity;
  for (int j = threadIdx.x; j < nb.count; j += blockDim.x) {
    for (int m = 0; m < 3; ++m) mine[4 * j + m] = nb.d[3 * j + m];
    mine[4 * j + 3] = nb.r[j];
    staged_atom[static_cast<long>(c) * list.capacity + j] = nb.atom[j];
  }
  if (threadIdx.x <= elements) staged_start[c * (kMaxElements + 1) + threadIdx.x] = nb.start[threadIdx.x];
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

// Shared memory of forces_kernel: neighbours, their radial factors with derivatives, dE/dG, the
// neighbours' gradient sums, the pair queues and the pair-list entries.
template <class T, bool kFixed>
__host__ __device__ inline std::size_t forces_shared_bytes(int capacity, int factors, int functions,
                                                           std::size_t entries) {
  return aligned16(staged_bytes<T>(capacity)) +
         aligned16(static_cast<std::size_t>(capacity) * factors * sizeof(Fdf<T>)) +
         aligned16(static_cast<std::size_t>(functions) * sizeof(T)) +
         aligned16(NeighbourSums<T, kFixed>::bytes(capacity)) + kQueueBytes + entries;
}

// Forces and virials of the centres order[0..count) from dE/dx (count x functions). The gradient of
// the energy with respect to each neighbour's displacement d_j is summed in shared memory: its radial
// terms by the thread that takes the neighbour, the angular terms of each pair by the lane that takes
// the pair (for_each_pair), for both of its neighbours. Then the neighbour gets -dE/dd_j, the centre
// the sum over its neighbours, the neighbour's per-atom virial -(dE/dd_j)_p d_q.
template <class T, class A, class Sum>
__global__ void __launch_bounds__(kCentreBlock, kCentreBlocksPerSm<T>)
    forces_kernel(AtomsRef a, NeighborRef list, const int* element_of, const int* order, ElementTables<T> tab,
                  const double* scale, double energy_scale, const A* dedx, double* totals, double* atom_virial,
                  Sum add) {
  extern __shared__ double shm[];
  const int c = blockIdx.x, i = order[c];
  const int nf = tab.count, cap = list.capacity, nfac = tab.factor_count;
  char* base = static_cast<char*>(static_cast<void*>(shm));
  Fdf<T>* factor = reinterpret_cast<Fdf<T>*>(base + aligned16(staged_bytes<T>(cap)));
  T* g = reinterpret_cast<T*>(reinterpret_cast<char*>(factor) +
                              aligned16(static_cast<std::size_t>(cap) * nfac * sizeof(Fdf<T>)));
  NeighbourSums<T, Sum::fixed> grad;
  grad.v = reinterpret_cast<typename NeighbourSums<T, Sum::fixed>::Slot*>(
      reinterpret_cast<char*>(g) + aligned16(static_cast<std::size_t>(nf) * sizeof(T)));
  grad.status = add.status;
  unsigned* queue = reinterpret_cast<unsigned*>(reinterpret_cast<char*>(grad.v) +
                                                aligned16(NeighbourSums<T, Sum::fixed>::bytes(cap)));
  const AngularEntry<T>* entries = place_entries(tab, queue + kQueueBytes / sizeof(unsigned));
  for (int s = threadIdx.x; s < nf; s += blockDim.x)
    g[s] = static_cast<T>(energy_scale * scale[s] * static_cast<double>(dedx[static_cast<long>(c) * nf + s]));
  const Staged<T> nb = stage_neighbours<T>(a, list, element_of, i, tab.cutoff, tab.elements, shm);
  const int n = nb.count;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const int ej = nb.element[j];
    const T rj = nb.r[j];
    int env_index = -1;
    Fdf<T> env;
    T radial = 0;
    for (int q = tab.radial_start[ej]; q < tab.radial_start[ej + 1]; ++q) {
      const int s = tab.radial_fn[q];
      const SfParams<T>& f = tab.params[s];
      if (tab.envelope_of[s] != env_index) {
        env_index = tab.envelope_of[s];
        env = envelope(tab.envelopes[env_index], rj);
      }
      radial += g[s] * weight(tab, f, ej) * radial_term(f, rj, env).df;
    }
    const T* dj = nb.d + 3 * j;
    const double own[3] = {static_cast<double>(radial / rj * dj[0]), static_cast<double>(radial / rj * dj[1]),
                           static_cast<double>(radial / rj * dj[2])};
    grad.set(j, own);
    for (int u = 0; u < nfac; ++u) {
      const SfParams<T>& f = tab.factors[u];
      factor[j * nfac + u] = radial_term(f, rj, envelope(tab.envelopes[tab.factor_envelope[u]], rj));
    }
  }
  __syncthreads();
  const PairRows walk(nb, tab);
  if (nfac > 0)
    for_each_pair(nb, tab, walk, queue, [&](int j, int k, bool valid) {
      T vj[3] = {0, 0, 0};
      if (valid) {
        const int ej = nb.element[j], ek = nb.element[k], p = pair_list(tab, ej, ek);
        const T* dj = nb.d + 3 * j;
        const T* dk = nb.d + 3 * k;
        const PairGeometry<T> geo = pair_geometry(dj, nb.r[j], dk, nb.r[k]);
        const PairAngle<T> angle = (tab.pair_flags[p] & kPairNeedsAngle) ? pair_angle(geo) : PairAngle<T>{};
        const T zz = tab.atomic_number[ej] * tab.atomic_number[ek];
        const Fdf<T>* fj = factor + j * nfac;
        const Fdf<T>* fk = factor + k * nfac;
        FactorAtJk<T> at_jk;
        AngularPartials<T> sum;  // of g_s w_s times each function's partials
        for_each_range(tab, p, [&](auto kind, int from, int to) {
          // Per run of one factor: sum g_s w_s C_s and its derivative, then times the factors.
          Fdf<T> rj, rk, rjk, c;
          for (int q = from; q < to; ++q) {
            const AngularEntry<T> e = entries[q];
            if (e.new_jk) {
              if (q > from) sum.add(T(1), angular_partials(c, rj, rk, rjk));
              rj = fj[e.factor];
              rk = fk[e.factor];
              rjk = e.jk_envelope >= 0 ? at_jk(e, tab, geo.rjk) : Fdf<T>{T(1), T(0)};
              c = Fdf<T>{};
            }
            const Fdf<T> ang = entry_angle<decltype(kind)::value>(e, geo.cos, tab, angle);
            const T gw = g[e.function] * (e.weighted ? zz : T(1));
            c.f += gw * ang.f;
            c.df += gw * ang.df;
          }
          if (to > from) sum.add(T(1), angular_partials(c, rj, rk, rjk));
        });
        const AngularTerm<T> t = angular_gradient(geo, sum);
        for (int m = 0; m < 3; ++m) vj[m] = t.jj * dj[m] + t.jk * dk[m];
        grad.add(k, t.jk * dj[0] + t.kk * dk[0], t.jk * dj[1] + t.kk * dk[1], t.jk * dj[2] + t.kk * dk[2]);
      }
      add_per_run(grad, valid ? j : -1, vj);
    });
  __syncthreads();
  add_forces(
      a, i, n, [&](int j, int m) { return grad.get(j, m); }, [&](int j) { return nb.atom[j]; },
      [&](int j, int q) { return static_cast<double>(nb.d[3 * j + q]); }, totals, atom_virial, add);
}

}  // namespace quasar::nnp
