#pragma once
// Per-atom kernels of the Deep Potential on the GPU (see deep_potential_gpu.hpp): environment,
// descriptor, last fitting layer, and forces. The rows of a chunk of nc atoms are grouped by
// neighbour type: row(t, a, s) = nc sec[t] + a sel[t] + s for local atom a and slot s of type t.
#include "quasar/device/fixed_point.cuh"
#include "quasar/potential/dp/deep_potential_gpu.hpp"
#include "quasar/potential/dp/dp_layers.cuh"
#include "quasar/potential/dp/env_row.hpp"

namespace quasar::dp {

constexpr int kAtomBlock = 128;

struct ChunkRef {
  int nc;            // atoms in the chunk
  int ti;            // their (model) centre type
  const int* atoms;  // nc atom indices
};

__device__ inline long chunk_row(const GpuModel& m, int nc, int t, int a, int s) {
  return static_cast<long>(nc) * m.sec[t] + static_cast<long>(a) * m.sel[t] + s;
}
__device__ inline int slot_type(const GpuModel& m, int slot) {
  int t = 0;
  while (slot >= m.sec[t + 1]) ++t;
  return t;
}

// One block per atom. Neighbours within rcut are ranked among those of their type by (distance,
// list position) -- the CPU reference's stable sort -- and the nearest sel[t] fill the slots;
// the rest of each type's slots are padding (R = 0). Pair-excluded neighbours keep their rank and
// become padding; type-excluded rows are zero (nbr -2: no force).
template <class A>
__global__ void environment_kernel(GpuModel m, AtomsRef a, NeighborRef list, const int* model_type, ChunkRef c,
                                   const double* davg, const double* dstd, int* nbr, double* disp, A* rhat,
                                   int* filled) {
  extern __shared__ double env_shm[];
  double* dist = env_shm;
  int* type = reinterpret_cast<int*>(dist + list.capacity);
  __shared__ int count[kGpuMaxTypes];
  const int local = blockIdx.x, i = c.atoms[local], nk = list.count[i], nt = m.ntypes;
  if (threadIdx.x < nt) count[threadIdx.x] = 0;
  for (int k = threadIdx.x; k < nk; k += blockDim.x) {
    int j;
    const double r = sqrt(norm2(list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j)));
    dist[k] = r;
    type[k] = r < m.rcut ? model_type[a.type[j]] : -1;
  }
  __syncthreads();
  const int ti = c.ti;
  auto write = [&](int t, int s, int j, const Vec3& d) {
    const int slot = m.sec[t] + s;
    const long row = chunk_row(m, c.nc, t, local, s);
    const double* avg = davg + (static_cast<long>(ti) * m.nnei + slot) * 4;
    const double* sd = dstd + (static_cast<long>(ti) * m.nnei + slot) * 4;
    double R[4] = {0, 0, 0, 0}, dR[4][3];
    if (j >= 0) env_row(d, m.env_protection, m.rcut_smth, m.rcut, R, dR);
    const bool zeroed = j >= 0 && m.excluded[ti * nt + t];
    nbr[row] = zeroed ? -2 : j;
    for (int q = 0; q < 4; ++q) rhat[4 * row + q] = to<A>(zeroed ? 0.0 : (R[q] - avg[q]) / sd[q]);
    disp[3 * row] = d.x;
    disp[3 * row + 1] = d.y;
    disp[3 * row + 2] = d.z;
  };
  for (int k = threadIdx.x; k < nk; k += blockDim.x) {
    const int t = type[k];
    if (t < 0) continue;
    const double r = dist[k];
    int rank = 0;
    for (int q = 0; q < nk; ++q) rank += type[q] == t && (dist[q] < r || (dist[q] == r && q < k));
    atomicAdd(&count[t], 1);
    if (rank >= m.sel[t]) continue;
    int j;
    const Vec3 d = list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j);
    write(t, rank, m.pair_excluded[ti * nt + t] ? -1 : j, d);
  }
  __syncthreads();
  for (int slot = threadIdx.x; slot < m.nnei; slot += blockDim.x) {
    const int t = slot_type(m, slot), s = slot - m.sec[t];
    if (s >= count[t]) write(t, s, -1, Vec3{});
  }
  if (threadIdx.x < nt) filled[local * nt + threadIdx.x] = min(count[threadIdx.x], m.sel[threadIdx.x]);
}

// Where G and dG/ds of a row come from: the embedding GEMMs' output, or the tables.
template <class A>
struct GemmSource {
  const A* gf;  // per neighbour type t at 2 nc sec[t] M: G rows, then dG rows
  int m;
  struct Cursor {
    const A *g, *dg;
  };
  __device__ Cursor at(const GpuModel& gm, int nc, int, int t, long row, A) const {
    const long base = 2L * nc * gm.sec[t], r = row - static_cast<long>(nc) * gm.sec[t];
    return {gf + (base + r) * m, gf + (base + static_cast<long>(nc) * gm.sel[t] + r) * m};
  }
  __device__ void get(const Cursor& c, int q, A& y, A& dy) const {
    y = c.g[q];
    dy = c.dg[q];
  }
};

template <class A>
struct TableSource {
  const A* coef;  // [net][interval][6][m]
  int m, n0, n1;
  A lower, upper, max, stride0, stride1;
  struct Cursor {
    const A* c;
    A t, slope;  // slope 0 outside the table (flat, as the CPU tables)
  };
  __device__ Cursor at(const GpuModel& gm, int, int ti, int t, long, A x) const {
    const int net = gm.type_one_side ? t : ti + t * gm.ntypes;
    const A slope = x < lower || x > max ? A(0) : A(1);
    x = x < lower ? lower : (x > max ? max : x);
    int l;
    A t0;
    if (x < upper) {
      l = min(static_cast<int>((x - lower) / stride0), n0 - 1);
      t0 = x - (lower + l * stride0);
    } else {
      const int k = min(static_cast<int>((x - upper) / stride1), n1 - 1);
      l = n0 + k;
      t0 = x - (upper + k * stride1);
    }
    return {coef + (static_cast<long>(net) * (n0 + n1) + l) * 6 * m, t0, slope};
  }
  __device__ void get(const Cursor& c, int q, A& y, A& dy) const {
    const A a5 = c.c[q], a4 = c.c[m + q], a3 = c.c[2 * m + q], a2 = c.c[3 * m + q], a1 = c.c[4 * m + q],
            a0 = c.c[5 * m + q], t = c.t;
    y = a0 + t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
    dy = c.slope * (a1 + t * (A(2) * a2 + t * (A(3) * a3 + t * (A(4) * a4 + t * A(5) * a5))));
  }
};

// One block per atom: gr = G^T R_hat / nnei (M x 4, kept for the backward pass) and the fitting
// input: D = gr gr[:axis]^T, then the atom's normalised parameters. With pad (the padding rows'
// G (x) R_hat summed from each slot to the end of its type, [ti][slot][M][4]), the trailing padding
// slots of each type are one lookup instead of one evaluation each. Each row's R_hat and lookup
// position are found once, into shared memory, then one thread per output sums over the rows.
template <class Src, class A>
constexpr std::size_t descriptor_shared_bytes(int m, int nnei) {
  return 4 * m * sizeof(A) + nnei * (sizeof(typename Src::Cursor) + 4 * sizeof(A));
}
template <class S, class A, class Src>
__global__ void descriptor_kernel(GpuModel m, ChunkRef c, const long* atom_id, const A* rhat, Src src,
                                  const int* filled, const A* pad, const double* extra, A* gr, S* fit_in) {
  extern __shared__ double desc_shm[];
  using Cursor = typename Src::Cursor;
  const int local = blockIdx.x, M = m.m, nt = m.ntypes;
  A* g = reinterpret_cast<A*>(desc_shm);
  Cursor* cur = reinterpret_cast<Cursor*>(g + 4 * M);
  A* rh = reinterpret_cast<A*>(cur + m.nnei);
  int rows = 0;
  for (int t = 0; t < nt; ++t) rows += pad ? filled[local * nt + t] : m.sel[t];
  for (int v = threadIdx.x; v < rows; v += blockDim.x) {
    int t = 0, s = v;
    for (int n; s >= (n = pad ? filled[local * nt + t] : m.sel[t]); ++t) s -= n;
    const long row = chunk_row(m, c.nc, t, local, s);
    for (int k = 0; k < 4; ++k) rh[4 * v + k] = rhat[4 * row + k];
    cur[v] = src.at(m, c.nc, c.ti, t, row, rh[4 * v]);
  }
  __syncthreads();
  for (int q = threadIdx.x; q < M; q += blockDim.x) {
    A acc[4] = {0, 0, 0, 0};
    for (int v = 0; v < rows; ++v) {
      A y, dy;
      src.get(cur[v], q, y, dy);
      for (int k = 0; k < 4; ++k) acc[k] += y * rh[4 * v + k];
    }
    if (pad)
      for (int t = 0; t < nt; ++t) {
        const int n = filled[local * nt + t];
        if (n < m.sel[t])
          for (int k = 0; k < 4; ++k) acc[k] += pad[((static_cast<long>(c.ti) * m.nnei + m.sec[t] + n) * M + q) * 4 + k];
      }
    for (int k = 0; k < 4; ++k) {
      const A v = acc[k] / A(m.nnei);
      g[4 * q + k] = v;
      gr[(static_cast<long>(local) * M + q) * 4 + k] = v;
    }
  }
  __syncthreads();
  S* out = fit_in + static_cast<long>(local) * m.fit_in;
  for (int p = threadIdx.x; p < M * m.axis; p += blockDim.x) {
    const int aa = p / m.axis, bb = p % m.axis;
    A s = 0;
    for (int k = 0; k < 4; ++k) s += g[4 * aa + k] * g[4 * bb + k];
    out[p] = to<S>(s);
  }
  if (m.extra > 0)
    for (int e = threadIdx.x; e < m.extra; e += blockDim.x)
      out[M * m.axis + e] = to<S>(extra[static_cast<long>(atom_id[c.atoms[local]]) * m.extra + e]);
}

// The last fitting layer (one output) in A, one warp per atom: the atomic energy, and the
// gradient for the layer below (at its input, g; at its pre-activation, gp = g act'). The block's
// energies go into totals[0] with one atomic; with fixed-point sums (Sum::fixed) they are first
// summed in warp order, so that the block's contribution is the same every run.
template <class S, class A, class Sum>
__global__ void fit_last_kernel(GpuModel m, ChunkRef c, LayerRef<S, A> L, const A* x, const A* deriv_below, A* g,
                                S* gp, double* totals, double* atom_energy, Sum add) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  double e = 0;
  if (warp < c.nc) {
    A z = 0;
    for (int q = lane; q < L.in; q += 32) z += x[static_cast<long>(warp) * L.in + q] * L.wa[q];
    for (int off = 16; off > 0; off /= 2) z += __shfl_xor_sync(0xffffffffu, z, off);
    A v, d;
    layer_activate(L, 0, z, A(1), v, d);
    for (int q = lane; q < L.in; q += 32) {
      const long at = static_cast<long>(warp) * L.in + q;
      const A gq = d * L.wa[q];
      g[at] = gq;
      gp[at] = to<S>(gq * deriv_below[at]);
    }
    if (lane == 0) {
      e = static_cast<double>(v) + m.bias[c.ti];
      if (atom_energy) atom_energy[c.atoms[warp]] += e;  // one writer per atom; other terms may have added
    }
  }
  if constexpr (Sum::fixed) {
    __shared__ double warp_e[32];
    if (lane == 0) warp_e[threadIdx.x / 32] = e;
    __syncthreads();
    if (threadIdx.x == 0) {
      double part = 0;
      for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) part += warp_e[w];
      add(totals, part, device::fixed_scale::kTotal);
    }
  } else {
    __shared__ double part;
    if (threadIdx.x == 0) part = 0;
    __syncthreads();
    if (lane == 0 && e != 0) atomicAdd(&part, e);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(totals, part);
  }
}

// One block per atom: dE/d(gr) from dE/dD; then the filled slots, a few per warp at a time, with
// several lanes sharing each slot's lookup over the M outputs (coalesced) and reducing dE/dR_hat,
// which one lane keeps. Every 32 slots the lanes turn theirs, in parallel, into the force on the
// neighbour (atomic), on the centre (block sum) and the virial -gd (x) d given to the neighbour.
// With fixed-point sums (Sum::fixed) the atomics add integers and the block sum runs in warp order,
// so that forces and virials are the same every run.
template <class A, class Src, class Sum>
__global__ void __launch_bounds__(kAtomBlock) force_kernel(GpuModel m, ChunkRef c, AtomsRef a, const A* gr, const A* gD,
                                                         const A* rhat, const int* nbr, const double* disp,
                                                         const double* dstd, const int* filled, Src src,
                                                         double* totals, double* atom_virial, Sum add) {
  extern __shared__ double force_shm[];
  const int M = m.m, axis = m.axis, local = blockIdx.x, i = c.atoms[local], ti = c.ti, nt = m.ntypes;
  A* sgr = reinterpret_cast<A*>(force_shm);
  A* ggr = sgr + 4 * M;
  __shared__ double sum[12];  // force on i, virial
  if (threadIdx.x < 12) sum[threadIdx.x] = 0;
  for (int q = threadIdx.x; q < 4 * M; q += blockDim.x) sgr[q] = gr[static_cast<long>(local) * 4 * M + q];
  __syncthreads();
  const A* gd_atom = gD + static_cast<long>(local) * m.fit_in;
  for (int e = threadIdx.x; e < 4 * M; e += blockDim.x) {
    const int p = e / 4, k = e % 4;
    A s = 0;
    for (int b = 0; b < axis; ++b) s += gd_atom[p * axis + b] * sgr[4 * b + k];
    if (p < axis)
      for (int q = 0; q < M; ++q) s += gd_atom[q * axis + p] * sgr[4 * q + k];
    ggr[e] = s / A(m.nnei);
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const int* nfill = filled + static_cast<long>(local) * nt;
  int real = 0;
  for (int t = 0; t < nt; ++t) real += nfill[t];
  // The row of the v-th filled slot (slots past filled[t] are padding: no force).
  auto slot_of = [&](int v, int& t) {
    int s = v;
    for (t = 0; s >= nfill[t]; ++t) s -= nfill[t];
    return s;
  };
  double fi[3] = {0, 0, 0}, vir[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  A grh[4];
  int mine = -1;  // the filled slot whose dE/dR_hat this lane holds
  auto flush = [&] {
    if (mine < 0) return;
    int t;
    const int s = slot_of(mine, t), slot = m.sec[t] + s;
    const long row = chunk_row(m, c.nc, t, local, s);
    const int j = nbr[row];
    const Vec3 d{disp[3 * row], disp[3 * row + 1], disp[3 * row + 2]};
    double R[4], dR[4][3];
    env_row(d, m.env_protection, m.rcut_smth, m.rcut, R, dR);
    const double* sd = dstd + (static_cast<long>(ti) * m.nnei + slot) * 4;
    double gd[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k)
      for (int q = 0; q < 3; ++q) gd[q] += static_cast<double>(grh[k]) / sd[k] * dR[k][q];
    add(a.fx + j, -gd[0], device::fixed_scale::kForce);
    add(a.fy + j, -gd[1], device::fixed_scale::kForce);
    add(a.fz + j, -gd[2], device::fixed_scale::kForce);
    const double dd[3] = {d.x, d.y, d.z};
    for (int q = 0; q < 3; ++q) fi[q] += gd[q];
    for (int p1 = 0; p1 < 3; ++p1)
      for (int q = 0; q < 3; ++q) {
        const double v = -gd[p1] * dd[q];
        vir[3 * p1 + q] += v;
        if (atom_virial) add(atom_virial + static_cast<long>(3 * p1 + q) * a.n + j, v, device::fixed_scale::kAtomVirial);
      }
    mine = -1;
  };
  // Each warp takes kGroups consecutive filled slots at a time, kLanes lanes per slot.
  constexpr int kLanes = 8, kGroups = 32 / kLanes;
  const int group = lane / kLanes, sub = lane % kLanes;
  int held = 0;
  for (int v0 = warp * kGroups; v0 < real; v0 += warps * kGroups) {
    const int v = v0 + group;
    int t = 0, s = 0;
    long row = 0;
    bool live = v < real;
    if (live) {
      s = slot_of(v, t);
      row = chunk_row(m, c.nc, t, local, s);
      live = nbr[row] >= 0;  // not pair-excluded
    }
    A p[5] = {0, 0, 0, 0, 0};
    if (live) {
      const A rh[4] = {rhat[4 * row], rhat[4 * row + 1], rhat[4 * row + 2], rhat[4 * row + 3]};
      const auto cur = src.at(m, c.nc, ti, t, row, rh[0]);
      for (int q = sub; q < M; q += kLanes) {
        A y, dy;
        src.get(cur, q, y, dy);
        const A g0 = ggr[4 * q], g1 = ggr[4 * q + 1], g2 = ggr[4 * q + 2], g3 = ggr[4 * q + 3];
        p[0] += g0 * y;
        p[1] += g1 * y;
        p[2] += g2 * y;
        p[3] += g3 * y;
        p[4] += (g0 * rh[0] + g1 * rh[1] + g2 * rh[2] + g3 * rh[3]) * dy;
      }
    }
    for (int k = 0; k < 5; ++k)
      for (int off = kLanes / 2; off > 0; off /= 2) p[k] += __shfl_xor_sync(0xffffffffu, p[k], off);
    // Lane held + g takes group g's sums.
    const bool take = lane >= held && lane < held + kGroups;
    const int from = take ? (lane - held) * kLanes : lane;
    const A r0 = __shfl_sync(0xffffffffu, p[0] + p[4], from), r1 = __shfl_sync(0xffffffffu, p[1], from),
            r2 = __shfl_sync(0xffffffffu, p[2], from), r3 = __shfl_sync(0xffffffffu, p[3], from);
    const int owner = __shfl_sync(0xffffffffu, live ? v : -1, from);
    if (take && owner >= 0) {
      grh[0] = r0;
      grh[1] = r1;
      grh[2] = r2;
      grh[3] = r3;
      mine = owner;
    }
    held += kGroups;
    if (held == 32) {
      flush();
      held = 0;
    }
  }
  flush();
  for (int k = 0; k < 12; ++k) {
    double& x = k < 3 ? fi[k] : vir[k - 3];
    for (int off = 16; off > 0; off /= 2) x += __shfl_xor_sync(0xffffffffu, x, off);
  }
  if constexpr (Sum::fixed) {
    __shared__ double warp_sum[kAtomBlock / 32][12];
    if (lane == 0)
      for (int k = 0; k < 12; ++k) warp_sum[warp][k] = k < 3 ? fi[k] : vir[k - 3];
    __syncthreads();
    if (threadIdx.x < 12)
      for (int w = 0; w < warps; ++w) sum[threadIdx.x] += warp_sum[w][threadIdx.x];
  } else if (lane == 0) {
    for (int q = 0; q < 3; ++q) atomicAdd(&sum[q], fi[q]);
    for (int k = 0; k < 9; ++k) atomicAdd(&sum[3 + k], vir[k]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    add(a.fx + i, sum[0], device::fixed_scale::kForce);
    add(a.fy + i, sum[1], device::fixed_scale::kForce);
    add(a.fz + i, sum[2], device::fixed_scale::kForce);
  }
  if (threadIdx.x < 9) add(totals + 1 + threadIdx.x, sum[3 + threadIdx.x], device::fixed_scale::kTotal);
}

}  // namespace quasar::dp
