// The kernels of PmeGpu (pme_gpu.hpp): the arithmetic of pme_multipole.cpp, one thread per site or
// per grid point, every sum in a fixed order.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuComplex.h>

#include <algorithm>
#include <limits>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/pme_splines.hpp"

namespace quasar::amoeba {

namespace {

constexpr int kBlock = 128;

// The grid, the cell and the map from Cartesian to grid-coordinate derivatives, by value.
struct Mesh {
  int K[3];
  int order;
  double alpha;
  double volume;
  double T[3][3];  // T[b][d] = K_d hinv(b, d): d/dr_b = sum_d T[b][d] d/du_d
  Box box;
  __host__ __device__ long points() const { return static_cast<long>(K[0]) * K[1] * K[2]; }
};

Mesh mesh_of(const PmeGrid& grid, const Box& box) {
  Mesh m{};
  for (int d = 0; d < 3; ++d) m.K[d] = grid.size[static_cast<std::size_t>(d)];
  m.order = grid.order;
  m.alpha = grid.alpha;
  m.volume = box.volume();
  for (int b = 0; b < 3; ++b)
    for (int d = 0; d < 3; ++d) m.T[b][d] = m.K[d] * box.hinv(b, d);
  m.box = box;
  return m;
}

// pme_multi_index's multi-indices in its order.
__constant__ int kAlpha[20][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1},
                                  {0, 2, 0}, {0, 1, 1}, {0, 0, 2}, {3, 0, 0}, {2, 1, 0}, {2, 0, 1}, {1, 2, 0},
                                  {1, 1, 1}, {1, 0, 2}, {0, 3, 0}, {0, 2, 1}, {0, 1, 2}, {0, 0, 3}};

// A site's weight of derivative p along dimension d at its i-th point.
__device__ __forceinline__ double weight(const double* theta, int order, int d, int p, int i) {
  return theta[(4 * d + p) * order + i];
}

// Each site's splines (as pme_multipole's `splines`) and the cell of its first grid points.
__global__ void site_splines_kernel(Mesh m, const double* __restrict__ r, long n, double* __restrict__ theta,
                                    int* __restrict__ cell, int* __restrict__ index) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const Vec3 s = m.box.to_frac(Vec3{r[3 * j], r[3 * j + 1], r[3 * j + 2]});
  double* th = theta + j * 12 * m.order;
  int first[3];
  for (int d = 0; d < 3; ++d) {
    int f = pme_spline_weights(m.K[d] * (s[d] - floor(s[d])), m.order, th + 4 * d * m.order) % m.K[d];
    first[d] = f < 0 ? f + m.K[d] : f;
  }
  cell[j] = (first[0] * m.K[1] + first[1]) * m.K[2] + first[2];
  index[j] = static_cast<int>(j);
}

// Where each cell's run of sorted sites starts (the first entry not below it).
__global__ void cell_start_kernel(const int* __restrict__ sorted_cell, long n, long cells, int* __restrict__ start) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c > cells) return;
  long low = 0, high = n;
  while (low < high) {
    const long mid = (low + high) / 2;
    if (sorted_cell[mid] < c) low = mid + 1;
    else high = mid;
  }
  start[c] = static_cast<int>(low);
}

// The coefficients of the splines' derivatives (order 0..2) of each site's density: its moments in
// grid coordinates. Moments: 13 values per site; dipoles: 3.
template <bool kMoments>
__global__ void coefficients_kernel(Mesh m, const double* __restrict__ values, long n, double* __restrict__ coef) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const double* v = values + j * (kMoments ? 13 : 3);
  const double* dipole = kMoments ? v + 1 : v;
  double c[10] = {};
  if (kMoments) c[0] = v[0];
  for (int d = 0; d < 3; ++d) {
    double fd = 0;
    for (int b = 0; b < 3; ++b) fd += m.T[b][d] * dipole[b];
    c[1 + d] += fd;
    if (kMoments)
      for (int d2 = 0; d2 < 3; ++d2) {
        double fq = 0;
        for (int b = 0; b < 3; ++b)
          for (int b2 = 0; b2 < 3; ++b2) fq += m.T[b][d] * m.T[b2][d2] * v[4 + 3 * b + b2];
        int e[3] = {0, 0, 0};
        ++e[d];
        ++e[d2];
        c[pme_multi_index(e[0], e[1], e[2])] += fq;
      }
  }
  for (int a = 0; a < 10; ++a) coef[10 * j + a] = c[a];
}

// One thread per grid point: the sum over the sites whose splines reach it, cell by cell in a fixed
// order and within a cell in ascending site order. A site whose first point is k along a dimension
// reaches k - i for i < order, so point g takes the sites of cells g + i (mod K).
__global__ void spread_kernel(Mesh m, const double* __restrict__ theta, const double* __restrict__ coef,
                              const int* __restrict__ start, const int* __restrict__ order_of,
                              cuDoubleComplex* __restrict__ mesh) {
  const long g = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= m.points()) return;
  const int g2 = static_cast<int>(g % m.K[2]), g1 = static_cast<int>((g / m.K[2]) % m.K[1]),
            g0 = static_cast<int>(g / (static_cast<long>(m.K[1]) * m.K[2]));
  const int p = m.order;
  double v = 0;
  for (int i0 = 0; i0 < p; ++i0) {
    const int c0 = g0 + i0 < m.K[0] ? g0 + i0 : g0 + i0 - m.K[0];
    for (int i1 = 0; i1 < p; ++i1) {
      const int c1 = g1 + i1 < m.K[1] ? g1 + i1 : g1 + i1 - m.K[1];
      for (int i2 = 0; i2 < p; ++i2) {
        const int c2 = g2 + i2 < m.K[2] ? g2 + i2 : g2 + i2 - m.K[2];
        const long cell = (static_cast<long>(c0) * m.K[1] + c1) * m.K[2] + c2;
        for (int q = start[cell]; q < start[cell + 1]; ++q) {
          const long j = order_of[q];
          const double* th = theta + j * 12 * p;
          const double* cf = coef + 10 * j;
          double w = 0;
#pragma unroll
          for (int a = 0; a < 10; ++a) {
            if (cf[a] == 0) continue;
            w += cf[a] * weight(th, p, 0, kAlpha[a][0], i0) * weight(th, p, 1, kAlpha[a][1], i1) *
                 weight(th, p, 2, kAlpha[a][2], i2);
          }
          v += w;
        }
      }
    }
  }
  mesh[g] = make_cuDoubleComplex(v, 0);
}

// One thread per wave vector: F(m) times the influence function
//   exp(-pi^2 m^2 / alpha^2) / (pi V m^2) / (|b1(m1)|^2 |b2(m2)|^2 |b3(m3)|^2)
// (0 at m = 0) and, with kVirial, each block's sum of the kernel's cell part of the virial,
//   (f/2) C(m) |F(m)|^2 [delta_ab - 2 (pi^2/alpha^2 + 1/m^2) m_a m_b].
template <bool kVirial>
__global__ void convolve_kernel(Mesh m, const double* __restrict__ moduli, double electric,
                                cuDoubleComplex* __restrict__ mesh, double* __restrict__ partial) {
  const long g = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double w[9] = {};
  if (g == 0) {
    mesh[0] = make_cuDoubleComplex(0, 0);
  } else if (g < m.points()) {
    const int m2 = static_cast<int>(g % m.K[2]), m1 = static_cast<int>((g / m.K[2]) % m.K[1]),
              m0 = static_cast<int>(g / (static_cast<long>(m.K[1]) * m.K[2]));
    // Tinker's signed frequencies (K/2 taken as -K/2 for even K).
    const int mm[3] = {m0 >= (m.K[0] + 1) / 2 ? m0 - m.K[0] : m0, m1 >= (m.K[1] + 1) / 2 ? m1 - m.K[1] : m1,
                       m2 >= (m.K[2] + 1) / 2 ? m2 - m.K[2] : m2};
    double mv[3], m2sum = 0;
    for (int b = 0; b < 3; ++b) {
      mv[b] = 0;
      for (int d = 0; d < 3; ++d) mv[b] += mm[d] * m.box.hinv(b, d);
      m2sum += mv[b] * mv[b];
    }
    const double c = exp(-M_PI * M_PI * m2sum / (m.alpha * m.alpha)) / (M_PI * m.volume * m2sum) /
                     (moduli[m0] * moduli[m.K[0] + m1] * moduli[m.K[0] + m.K[1] + m2]);
    const cuDoubleComplex f = mesh[g];
    if (kVirial) {
      const double e = 0.5 * electric * c * (f.x * f.x + f.y * f.y);
      const double s = 2 * (M_PI * M_PI / (m.alpha * m.alpha) + 1 / m2sum);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) w[3 * a + b] = e * ((a == b ? 1.0 : 0.0) - s * mv[a] * mv[b]);
    }
    mesh[g] = make_cuDoubleComplex(c * f.x, c * f.y);
  }
  if (kVirial) {
    using Reduce = cub::BlockReduce<double, kBlock>;
    __shared__ typename Reduce::TempStorage temp;
    for (int k = 0; k < 9; ++k) {
      const double s = Reduce(temp).Sum(w[k]);
      if (threadIdx.x == 0) partial[9 * static_cast<long>(blockIdx.x) + k] = s;
      __syncthreads();
    }
  }
}

// The potential's derivatives P[q] of multi-indices kFirst + q at a site (its weights th, its cell)
// from the real part of the back-transformed grid.
template <int kFirst, int kCount>
__device__ void gather_site(const Mesh& m, const double* th, int cell, const cuDoubleComplex* __restrict__ mesh,
                            double (&P)[kCount]) {
  const int p = m.order;
  const int f2 = cell % m.K[2], f1 = (cell / m.K[2]) % m.K[1], f0 = cell / (m.K[1] * m.K[2]);
  for (int a = 0; a < kCount; ++a) P[a] = 0;
  for (int i0 = 0; i0 < p; ++i0) {
    const int k0 = f0 - i0 >= 0 ? f0 - i0 : f0 - i0 + m.K[0];
    for (int i1 = 0; i1 < p; ++i1) {
      const int k1 = f1 - i1 >= 0 ? f1 - i1 : f1 - i1 + m.K[1];
      for (int i2 = 0; i2 < p; ++i2) {
        const int k2 = f2 - i2 >= 0 ? f2 - i2 : f2 - i2 + m.K[2];
        const double phi = mesh[(static_cast<long>(k0) * m.K[1] + k1) * m.K[2] + k2].x;
#pragma unroll
        for (int q = 0; q < kCount; ++q) {
          const int a = kFirst + q;
          P[q] += phi * weight(th, p, 0, kAlpha[a][0], i0) * weight(th, p, 1, kAlpha[a][1], i1) *
                  weight(th, p, 2, kAlpha[a][2], i2);
        }
      }
    }
  }
}

// Each site's energy share, gradient, dE/dM and moment part of the virial (pme_multipole's gather).
__global__ void gather_multipoles_kernel(Mesh m, const double* __restrict__ theta, const int* __restrict__ cell,
                                         const cuDoubleComplex* __restrict__ mesh, const double* __restrict__ coef,
                                         const double* __restrict__ moments, double electric, long n,
                                         double* __restrict__ grad, double* __restrict__ dM, double* __restrict__ site) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double P[20];
  gather_site<0>(m, theta + j * 12 * m.order, cell[j], mesh, P);
  const double* cf = coef + 10 * j;
  double energy = 0, du[3] = {0, 0, 0};
  for (int a = 0; a < 10; ++a) {
    if (cf[a] == 0) continue;
    energy += 0.5 * electric * cf[a] * P[a];
    for (int d = 0; d < 3; ++d) {
      int up[3] = {kAlpha[a][0], kAlpha[a][1], kAlpha[a][2]};
      ++up[d];
      du[d] += electric * cf[a] * P[pme_multi_index(up[0], up[1], up[2])];
    }
  }
  for (int b = 0; b < 3; ++b) {
    double g = 0;
    for (int d = 0; d < 3; ++d) g += du[d] * m.T[b][d];
    grad[3 * j + b] = g;
  }
  double dm[13] = {};
  dm[0] = electric * P[0];
  for (int b = 0; b < 3; ++b)
    for (int d = 0; d < 3; ++d) {
      dm[1 + b] += electric * m.T[b][d] * P[1 + d];
      for (int b2 = 0; b2 < 3; ++b2)
        for (int d2 = 0; d2 < 3; ++d2) {
          int e[3] = {0, 0, 0};
          ++e[d];
          ++e[d2];
          dm[4 + 3 * b + b2] += electric * m.T[b][d] * m.T[b2][d2] * P[pme_multi_index(e[0], e[1], e[2])];
        }
    }
  for (int c = 0; c < 13; ++c) dM[13 * j + c] = dm[c];
  const double* M = moments + 13 * j;
  double* out = site + 10 * j;
  out[0] = energy;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double w = M[1 + a] * dm[1 + b];
      for (int c = 0; c < 3; ++c) w += 2 * M[4 + 3 * a + c] * dm[4 + 3 * c + b];
      out[1 + 3 * a + b] = w;
    }
}

// field_j -= the potential's gradient at site j (the first derivatives only).
__global__ void gather_field_kernel(Mesh m, const double* __restrict__ theta, const int* __restrict__ cell,
                                    const cuDoubleComplex* __restrict__ mesh, long n, double* __restrict__ field) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double P[3];  // the first derivatives, multi-indices 1..3
  gather_site<1>(m, theta + j * 12 * m.order, cell[j], mesh, P);
  for (int b = 0; b < 3; ++b) {
    double g = 0;
    for (int d = 0; d < 3; ++d) g += 1.0 * m.T[b][d] * P[d];
    field[3 * j + b] -= g;
  }
}

// One block: totals[k] = sum over sites of site[10 j + k], plus for the virial (k >= 1) the sum of
// the convolution's block partials, each sum in a fixed order.
constexpr int kSumBlock = 256;
__global__ void totals_kernel(const double* __restrict__ site, long n, const double* __restrict__ partial,
                              long blocks, double* __restrict__ totals) {
  using Reduce = cub::BlockReduce<double, kSumBlock>;
  __shared__ typename Reduce::TempStorage temp;
  for (int k = 0; k < 10; ++k) {
    double s = 0, c = 0;
    for (long j = threadIdx.x; j < n; j += kSumBlock) s += site[10 * j + k];
    if (k > 0)
      for (long b = threadIdx.x; b < blocks; b += kSumBlock) c += partial[9 * b + k - 1];
    const double sum = Reduce(temp).Sum(s);
    __syncthreads();
    const double cells = Reduce(temp).Sum(c);
    if (threadIdx.x == 0) totals[k] = cells + sum;
    __syncthreads();
  }
}

}  // namespace

void PmeGpu::set_sites(const double* positions, std::size_t n) {
  if (!grid_set_) throw Error("amoeba PME on the GPU: set_sites before set_grid");
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("amoeba PME on the GPU: too many sites");
  const Mesh m = mesh_of(grid_, box_);
  const long cells = m.points();
  if (cells >= std::numeric_limits<int>::max()) throw Error("amoeba PME on the GPU: the grid is too large");
  sites_ = n;
  theta_.resize(12 * static_cast<std::size_t>(m.order) * n);
  cell_.resize(n);
  site_index_.resize(n);
  sorted_cell_.resize(n);
  site_order_.resize(n);
  coef_.resize(10 * n);
  const long sites = static_cast<long>(n);
  if (n > 0) {
    site_splines_kernel<<<grid_for(sites, kBlock), kBlock>>>(m, positions, sites, theta_.data(), cell_.data(),
                                                             site_index_.data());
    QUASAR_LAUNCH_CHECK("site_splines_kernel");
    // A stable sort by cell over the bits the cells need: within a cell the sites stay ascending.
    int bits = 1;
    while ((1L << bits) <= cells) ++bits;
    std::size_t bytes = 0;
    QUASAR_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, cell_.data(), sorted_cell_.data(),
                                                      site_index_.data(), site_order_.data(), static_cast<int>(n), 0,
                                                      bits));
    sort_scratch_.resize(std::max<std::size_t>(bytes, 1));
    QUASAR_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_scratch_.data(), bytes, cell_.data(), sorted_cell_.data(),
                                                      site_index_.data(), site_order_.data(), static_cast<int>(n), 0,
                                                      bits));
  }
  cell_start_kernel<<<grid_for(cells + 1, kBlock), kBlock>>>(sorted_cell_.data(), sites, cells, cell_start_.data());
  QUASAR_LAUNCH_CHECK("cell_start_kernel");
  sites_set_ = true;
}

void PmeGpu::spread_and_convolve(const double* values, Source source, bool virial, double electric) {
  const Mesh m = mesh_of(grid_, box_);
  const long n = static_cast<long>(sites_), points = m.points();
  if (n > 0) {
    if (source == Source::Multipoles) coefficients_kernel<true><<<grid_for(n, kBlock), kBlock>>>(m, values, n, coef_.data());
    else coefficients_kernel<false><<<grid_for(n, kBlock), kBlock>>>(m, values, n, coef_.data());
    QUASAR_LAUNCH_CHECK("coefficients_kernel");
  }
  auto* mesh = reinterpret_cast<cuDoubleComplex*>(mesh_.data());
  spread_kernel<<<grid_for(points, kBlock), kBlock>>>(m, theta_.data(), coef_.data(), cell_start_.data(),
                                                      site_order_.data(), mesh);
  QUASAR_LAUNCH_CHECK("spread_kernel");
  plan_->forward(mesh_, mesh_);
  const unsigned blocks = grid_for(points, kBlock);
  if (virial) {
    partial_.resize(9 * static_cast<std::size_t>(blocks));
    convolve_kernel<true><<<blocks, kBlock>>>(m, moduli_.data(), electric, mesh, partial_.data());
  } else {
    convolve_kernel<false><<<blocks, kBlock>>>(m, moduli_.data(), electric, mesh, nullptr);
  }
  QUASAR_LAUNCH_CHECK("convolve_kernel");
  plan_->backward(mesh_, mesh_);  // now the potential (the 1/N is in the influence function)
  ++evaluations_;
}

void PmeGpu::gather_multipoles(const double* moments, double electric) {
  const Mesh m = mesh_of(grid_, box_);
  const long n = static_cast<long>(sites_);
  const auto* mesh = reinterpret_cast<const cuDoubleComplex*>(mesh_.data());
  if (n > 0) {
    gather_multipoles_kernel<<<grid_for(n, kBlock), kBlock>>>(m, theta_.data(), cell_.data(), mesh, coef_.data(),
                                                              moments, electric, n, grad.data(), dM.data(),
                                                              site.data());
    QUASAR_LAUNCH_CHECK("gather_multipoles_kernel");
  }
  totals_kernel<<<1, kSumBlock>>>(site.data(), n, partial_.data(), static_cast<long>(grid_for(m.points(), kBlock)),
                                  totals.data());
  QUASAR_LAUNCH_CHECK("totals_kernel");
}

void PmeGpu::gather_field(double* field) {
  const Mesh m = mesh_of(grid_, box_);
  const long n = static_cast<long>(sites_);
  if (n == 0) return;
  gather_field_kernel<<<grid_for(n, kBlock), kBlock>>>(m, theta_.data(), cell_.data(),
                                                       reinterpret_cast<const cuDoubleComplex*>(mesh_.data()), n, field);
  QUASAR_LAUNCH_CHECK("gather_field_kernel");
}

}  // namespace quasar::amoeba
