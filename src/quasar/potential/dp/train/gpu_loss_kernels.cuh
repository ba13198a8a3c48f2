#pragma once
// Kernels of the GPU training loss (gpu_loss.cu): the tangent rows, the descriptor with tangents,
// the descriptor's reverse pass, the embedding output's gradient and per-type energies. The
// networks' tangent and reverse passes are the shared ones (nn/dual_layers.cuh).
#include "quasar/nn/dual_layers.cuh"
#include "quasar/potential/dp/dp_kernels.cuh"

namespace quasar::dp::train_kernels {

using nn::kDualBlock;
constexpr int kBlock = kDualBlock;
inline unsigned grid(long n) { return nn::dual_grid(n); }

// X0 = [s; 1] for the R rows of one neighbour type.
template <class T>
__global__ void first_input_kernel(long R, const T* rhat, T* x) {
  const long r = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (r >= R) return;
  x[r] = rhat[4 * r];
  x[R + r] = T(1);
}

// R_hat' of every row: dR/dd d' / dstd with d' = -(u_j - u_i) - V d (zero for padding and excluded rows).
template <class T>
__global__ void tangent_kernel(GpuModel m, ChunkRef c, const int* nbr, const double* disp, const double* dstd,
                               const double* u, const double* V, T* drhat) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= static_cast<long>(c.nc) * m.nnei) return;
  int t = 0;
  while (e >= static_cast<long>(c.nc) * m.sec[t + 1]) ++t;
  const long in_type = e - static_cast<long>(c.nc) * m.sec[t];
  const int local = static_cast<int>(in_type / m.sel[t]), slot = m.sec[t] + static_cast<int>(in_type % m.sel[t]);
  const int j = nbr[e];
  T* out = drhat + 4 * e;
  if (j < 0) {
    for (int k = 0; k < 4; ++k) out[k] = T(0);
    return;
  }
  const int i = c.atoms[local];
  const Vec3 d{disp[3 * e], disp[3 * e + 1], disp[3 * e + 2]};
  double dd[3];
  for (int p = 0; p < 3; ++p) dd[p] = -(u[3 * j + p] - u[3 * i + p]) - (V[3 * p] * d.x + V[3 * p + 1] * d.y + V[3 * p + 2] * d.z);
  double R[4], dR[4][3];
  env_row(d, m.env_protection, m.rcut_smth, m.rcut, R, dR);
  const double* sd = dstd + (static_cast<long>(c.ti) * m.nnei + slot) * 4;
  for (int k = 0; k < 4; ++k) out[k] = static_cast<T>((dR[k][0] * dd[0] + dR[k][1] * dd[1] + dR[k][2] * dd[2]) / sd[k]);
}

// One block per atom: gr = G^T R_hat / nnei and its tangent (G' s' R_hat + G R_hat') / nnei, then
// the fitting input rows D (row a) and D' (row nc + a). gf: per neighbour type at 2 nc sec[t] M,
// G rows then dG/ds rows.
template <class T>
__global__ void dual_descriptor_kernel(GpuModel m, ChunkRef c, const T* rhat, const T* drhat, const T* gf, T* gr,
                                       T* dgr, T* fit_in) {
  extern __shared__ double dd_shm[];
  const int M = m.m, local = blockIdx.x, nc = c.nc;
  T* g = reinterpret_cast<T*>(dd_shm);  // 4M
  T* dg = g + 4 * M;                    // 4M
  for (int q = threadIdx.x; q < M; q += blockDim.x) {
    T acc[4] = {0, 0, 0, 0}, dacc[4] = {0, 0, 0, 0};
    for (int t = 0; t < m.ntypes; ++t) {
      const T* G = gf + 2L * nc * m.sec[t] * M;
      const T* dG = G + static_cast<long>(nc) * m.sel[t] * M;
      for (int s = 0; s < m.sel[t]; ++s) {
        const long row = chunk_row(m, nc, t, local, s), r = static_cast<long>(local) * m.sel[t] + s;
        const T* rh = rhat + 4 * row;
        const T* drh = drhat + 4 * row;
        const T y = G[r * M + q], dy = dG[r * M + q] * drh[0];
        for (int k = 0; k < 4; ++k) {
          acc[k] += y * rh[k];
          dacc[k] += dy * rh[k] + y * drh[k];
        }
      }
    }
    for (int k = 0; k < 4; ++k) {
      g[4 * q + k] = acc[k] / T(m.nnei);
      dg[4 * q + k] = dacc[k] / T(m.nnei);
      gr[(static_cast<long>(local) * M + q) * 4 + k] = g[4 * q + k];
      dgr[(static_cast<long>(local) * M + q) * 4 + k] = dg[4 * q + k];
    }
  }
  __syncthreads();
  T* D = fit_in + static_cast<long>(local) * m.fit_in;
  T* dD = fit_in + static_cast<long>(nc + local) * m.fit_in;
  for (int p = threadIdx.x; p < M * m.axis; p += blockDim.x) {
    const int a = p / m.axis, b = p % m.axis;
    T s = 0, ds = 0;
    for (int k = 0; k < 4; ++k) {
      s += g[4 * a + k] * g[4 * b + k];
      ds += dg[4 * a + k] * g[4 * b + k] + g[4 * a + k] * dg[4 * b + k];
    }
    D[p] = s;
    dD[p] = ds;
  }
}

// One block per atom: from dPhi/dD (gD, row a) and dPhi/dD' (row nc + a) to dPhi/d(gr) and
// dPhi/d(gr'), both M x 4.
template <class T>
__global__ void dual_dterm_kernel(GpuModel m, int nc, const T* gr, const T* dgr, const T* gX, T* ggr, T* gdgr) {
  const int M = m.m, axis = m.axis, local = blockIdx.x;
  const T* g = gr + static_cast<long>(local) * 4 * M;
  const T* dg = dgr + static_cast<long>(local) * 4 * M;
  const T* gD = gX + static_cast<long>(local) * m.fit_in;
  const T* gdD = gX + static_cast<long>(nc + local) * m.fit_in;
  auto term = [&](const T* w, const T* v, int x, int k) {
    T s = 0;
    for (int b = 0; b < axis; ++b) s += w[x * axis + b] * v[4 * b + k];
    if (x < axis)
      for (int a = 0; a < M; ++a) s += w[a * axis + x] * v[4 * a + k];
    return s;
  };
  for (int e = threadIdx.x; e < 4 * M; e += blockDim.x) {
    const int x = e / 4, k = e % 4;
    ggr[static_cast<long>(local) * 4 * M + e] = term(gD, g, x, k) + term(gdD, dg, x, k);
    gdgr[static_cast<long>(local) * 4 * M + e] = term(gdD, g, x, k);
  }
}

// The embedding output's gradient for the rows of neighbour type t: [dPhi/dG; s' dPhi/dG'].
template <class T>
__global__ void embedding_output_grad_kernel(GpuModel m, int nc, int t, const T* rhat, const T* drhat, const T* ggr,
                                             const T* gdgr, T* G) {
  const int M = m.m;
  const long R = static_cast<long>(nc) * m.sel[t];
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= R * M) return;
  const long r = e / M;
  const int q = static_cast<int>(e % M), local = static_cast<int>(r / m.sel[t]);
  const long row = static_cast<long>(nc) * m.sec[t] + r;
  const T* rh = rhat + 4 * row;
  const T* drh = drhat + 4 * row;
  const T* a = ggr + (static_cast<long>(local) * M + q) * 4;
  const T* b = gdgr + (static_cast<long>(local) * M + q) * 4;
  T gy = 0, gt = 0;
  for (int k = 0; k < 4; ++k) {
    gy += a[k] * rh[k] + b[k] * drh[k];
    gt += b[k] * rh[k];
  }
  G[e] = gy / T(m.nnei);
  G[R * M + e] = drh[0] * gt / T(m.nnei);
}

// Per-atom energies (the fitting output plus the type's bias), summed per block into total.
template <class T>
__global__ void energy_kernel(int nc, double bias, const T* y, double* total) {
  __shared__ double part[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < nc ? y[i] + bias : 0.0;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

}  // namespace quasar::dp::train_kernels
