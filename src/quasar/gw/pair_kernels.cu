// The pair kernels on the GPU, queued on the context's stream; the CPU reference is pair_kernels.cpp.
#include <cuComplex.h>

#include "quasar/device/context.cuh"
#include "quasar/device/cuda_check.cuh"
#include "quasar/gw/pair_kernels.hpp"

namespace quasar::gw::detail {

namespace {

constexpr int kBlock = 256;

__global__ void scatter_kernel(int count, long total, const cuDoubleComplex* __restrict__ coefficients,
                               const int* __restrict__ index, std::size_t points, cuDoubleComplex* __restrict__ grids) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const long b = i / count, g = i % count;
  grids[static_cast<std::size_t>(b) * points + index[g]] = coefficients[i];
}

// One thread per grid point of one pair; blockIdx.y runs over the pairs.
__global__ void products_kernel(int v_first, int conduction, int c_first, std::size_t points,
                                const cuDoubleComplex* __restrict__ states, cuDoubleComplex* __restrict__ products) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= points) return;
  const int pair = blockIdx.y;
  const int v = pair / conduction, c = pair % conduction;
  const cuDoubleComplex uv = states[static_cast<std::size_t>(v_first + v) * points + j];
  const cuDoubleComplex uc = states[static_cast<std::size_t>(c_first + c) * points + j];
  products[static_cast<std::size_t>(pair) * points + j] = cuCmul(cuConj(uc), uv);
}

__global__ void gather_kernel(int pairs, long total, std::size_t points, const cuDoubleComplex* __restrict__ products,
                              const int* __restrict__ index, const double* __restrict__ scale,
                              cuDoubleComplex* __restrict__ out) {
  const long t = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= total) return;
  const long p = t % pairs, i = t / pairs;
  const cuDoubleComplex m = products[static_cast<std::size_t>(p) * points + index[i]];
  out[t] = make_cuDoubleComplex(m.x * scale[p], -m.y * scale[p]);
}

const cuDoubleComplex* cast(const Complex* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }
cuDoubleComplex* cast(Complex* p) { return reinterpret_cast<cuDoubleComplex*>(p); }

}  // namespace

void scatter_coefficients_gpu(device::Context& ctx, int vectors, int count, const Complex* coefficients,
                              const int* index, std::size_t points, Complex* grids) {
  const long total = static_cast<long>(vectors) * count;
  if (total == 0) return;
  scatter_kernel<<<grid_for(total, kBlock), kBlock, 0, ctx.cuda().stream>>>(count, total, cast(coefficients), index,
                                                                              points, cast(grids));
  QUASAR_LAUNCH_CHECK("gw scatter_kernel");
}

void pair_products_gpu(device::Context& ctx, int valence, int v_first, int conduction, int c_first, std::size_t points,
                       const Complex* states, Complex* products) {
  const int pairs = valence * conduction;
  if (pairs == 0 || points == 0) return;
  if (pairs > 65535) throw Error("gw pair_products: at most 65535 pairs per call");
  const dim3 grid(grid_for(static_cast<long>(points), kBlock), static_cast<unsigned>(pairs));
  products_kernel<<<grid, kBlock, 0, ctx.cuda().stream>>>(v_first, conduction, c_first, points, cast(states),
                                                          cast(products));
  QUASAR_LAUNCH_CHECK("gw products_kernel");
}

void gather_pairs_gpu(device::Context& ctx, int pairs, int gvectors, std::size_t points, const Complex* products,
                      const int* index, const double* scale, Complex* out) {
  const long total = static_cast<long>(pairs) * gvectors;
  if (total == 0) return;
  gather_kernel<<<grid_for(total, kBlock), kBlock, 0, ctx.cuda().stream>>>(pairs, total, points, cast(products), index,
                                                                             scale, cast(out));
  QUASAR_LAUNCH_CHECK("gw gather_kernel");
}

}  // namespace quasar::gw::detail
