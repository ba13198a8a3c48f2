// The kernels of PmeGpu (pme_gpu.hpp): one thread per site or per grid point running pme_steps.hpp
// (the arithmetic of pme_multipole.cpp), every sum in a fixed order.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <limits>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/pme_steps.hpp"

namespace quasar::amoeba {

namespace {

constexpr int kBlock = 128;

PmeMesh mesh_of(const PmeGrid& grid, const Box& box) { return pme_mesh(grid.size.data(), grid.order, grid.alpha, box); }

// Each site's weights and cell, and its index (the values the sort carries).
__global__ void site_splines_kernel(PmeMesh m, const double* __restrict__ r, long n, double* __restrict__ theta,
                                    int* __restrict__ cell, int* __restrict__ index) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  cell[j] = pme_site_splines(m, r + 3 * j, theta + j * 12 * m.order);
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

template <bool kMoments>
__global__ void coefficients_kernel(PmeMesh m, const double* __restrict__ values, long n, double* __restrict__ coef) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  pme_site_coefficients<kMoments>(m, values + j * (kMoments ? 13 : 3), coef + 10 * j);
}

__global__ void spread_kernel(PmeMesh m, const double* __restrict__ theta, const double* __restrict__ coef,
                              const int* __restrict__ start, const int* __restrict__ order_of, double* __restrict__ mesh) {
  const long g = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= m.points()) return;
  mesh[2 * g] = pme_spread_point(m, g, theta, coef, start, order_of);
  mesh[2 * g + 1] = 0;
}

// One thread per wave vector (0 at m = 0) and, with kVirial, each block's sum of the virial's parts.
template <bool kVirial>
__global__ void convolve_kernel(PmeMesh m, const double* __restrict__ moduli, double electric, double* __restrict__ mesh,
                                double* __restrict__ partial) {
  const long g = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double w[9] = {};
  if (g == 0) {
    mesh[0] = mesh[1] = 0;
  } else if (g < m.points()) {
    pme_convolve_point(m, g, moduli, electric, mesh + 2 * g, kVirial ? w : nullptr);
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

__global__ void gather_multipoles_kernel(PmeMesh m, const double* __restrict__ theta, const int* __restrict__ cell,
                                         const double* __restrict__ mesh, const double* __restrict__ coef,
                                         const double* __restrict__ moments, double electric, long n,
                                         double* __restrict__ grad, double* __restrict__ dM, double* __restrict__ site) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double P[20];
  pme_gather_site<0>(m, theta + j * 12 * m.order, cell[j], mesh, P);
  pme_site_multipoles(m, P, coef + 10 * j, moments + 13 * j, electric, grad + 3 * j, dM + 13 * j, site + 10 * j);
}

__global__ void gather_field_kernel(PmeMesh m, const double* __restrict__ theta, const int* __restrict__ cell,
                                    const double* __restrict__ mesh, long n, double* __restrict__ field) {
  const long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double P[3];  // the first derivatives, multi-indices 1..3
  pme_gather_site<1>(m, theta + j * 12 * m.order, cell[j], mesh, P);
  pme_site_field(m, P, field + 3 * j);
}

// One block: totals[k] = sum over sites of site[10 j + k], plus for the virial (k >= 1) the sum of
// the convolution's block partials, each sum in a fixed order.
constexpr int kSumBlock = 256;
// field += recip + self d for moments (the host's order: the two summed first), or field += recip
// and then self u for dipoles (induced_dipoles.cpp's mutual field).
__global__ void add_self_field_kernel(const double* __restrict__ sources, int width, double self,
                                      const double* __restrict__ recip, long n, double* __restrict__ field) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  for (int a = 0; a < 3; ++a) {
    if (width == 13) {
      field[3 * i + a] += recip[3 * i + a] + self * sources[13 * i + 1 + a];
    } else {
      field[3 * i + a] += recip[3 * i + a];
      field[3 * i + a] += self * sources[3 * i + a];
    }
  }
}

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
  host_positions_.clear();  // the host path's record of the sites set no longer holds
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("amoeba PME on the GPU: too many sites");
  const PmeMesh m = mesh_of(grid_, box_);
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
  const PmeMesh m = mesh_of(grid_, box_);
  const long n = static_cast<long>(sites_), points = m.points();
  if (n > 0) {
    if (source == Source::Multipoles) coefficients_kernel<true><<<grid_for(n, kBlock), kBlock>>>(m, values, n, coef_.data());
    else coefficients_kernel<false><<<grid_for(n, kBlock), kBlock>>>(m, values, n, coef_.data());
    QUASAR_LAUNCH_CHECK("coefficients_kernel");
  }
  auto* mesh = reinterpret_cast<double*>(mesh_.data());  // re, im
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
  const PmeMesh m = mesh_of(grid_, box_);
  const long n = static_cast<long>(sites_);
  const auto* mesh = reinterpret_cast<const double*>(mesh_.data());
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
  const PmeMesh m = mesh_of(grid_, box_);
  const long n = static_cast<long>(sites_);
  if (n == 0) return;
  gather_field_kernel<<<grid_for(n, kBlock), kBlock>>>(m, theta_.data(), cell_.data(),
                                                       reinterpret_cast<const double*>(mesh_.data()), n, field);
  QUASAR_LAUNCH_CHECK("gather_field_kernel");
}

void PmeGpu::add_ewald_field(const double* sources, int width, double self, double* field) {
  if (width != 3 && width != 13) throw Error("amoeba PME on the GPU: sources of width " + std::to_string(width));
  field_.resize(3 * sites_);
  field_.set_zero();
  if (width == 13) add_field(sources, field_.data());
  else add_dipole_field(sources, field_.data());
  const long n = static_cast<long>(sites_);
  if (n == 0) return;
  add_self_field_kernel<<<grid_for(n, kBlock), kBlock>>>(sources, width, self, field_.data(), n, field);
  QUASAR_LAUNCH_CHECK("add_self_field_kernel");
}

}  // namespace quasar::amoeba
