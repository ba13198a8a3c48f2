// The Kalman filter's GPU parts that no library call covers (kalman.hpp): P's diagonal += q, and the
// update of one observation without a trip to the host.
#include "quasar/device/context.cuh"
#include "quasar/nn/kalman.hpp"

namespace quasar::nn {

namespace {
__global__ void add_to_diagonal_kernel(double* p, long n, double q) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) p[i + n * i] += q;
}

// a = h . x + noise in one block; a that is not positive and finite is counted in rejected.
__global__ void single_scalar_kernel(long n, const double* h, const double* x, double noise, double* a,
                                     double* rejected) {
  __shared__ double part[1024];
  double sum = 0;
  for (long i = threadIdx.x; i < n; i += blockDim.x) sum += h[i] * x[i];
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double value = part[0] + noise;
    a[0] = value;
    if (!(value > 0 && value < INFINITY)) rejected[0] += 1;
  }
}

__device__ bool usable(double a) { return a > 0 && a < INFINITY; }

// w += x xi / a.
__global__ void single_state_kernel(long n, const double* x, const double* xi, const double* a, double* w) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n && usable(a[0])) w[i] += x[i] * xi[0] / a[0];
}

// P's lower triangle (column-major) <- (P - x x^T / a) / lambda + q I; column blockIdx.y.
__global__ void single_covariance_kernel(long n, const double* x, const double* a, double inv_lambda, double q,
                                         double* p) {
  const long j = blockIdx.y, i = j + blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= n || !usable(a[0])) return;
  double& pij = p[i + n * j];
  pij = (pij - x[i] * x[j] / a[0]) * inv_lambda + (i == j ? q : 0.0);
}

}  // namespace

void kalman_single_cuda(device::Context& ctx, long n, const double* h, const double* x, const double* xi,
                        double noise, double inv_lambda, double q, double* scratch, double* w, double* p) {
  constexpr int kBlock = 256;
  if (n == 0) return;
  cudaStream_t stream = ctx.cuda().stream;
  single_scalar_kernel<<<1, 1024, 0, stream>>>(n, h, x, noise, scratch, scratch + 1);
  QUASAR_LAUNCH_CHECK("single_scalar_kernel");
  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  single_state_kernel<<<blocks, kBlock, 0, stream>>>(n, x, xi, scratch, w);
  QUASAR_LAUNCH_CHECK("single_state_kernel");
  // Column j needs the rows from j on: blocks.x covers n - j at most, the first blocks of late columns
  // return at once.
  single_covariance_kernel<<<dim3(blocks, static_cast<unsigned>(n)), kBlock, 0, stream>>>(n, x, scratch, inv_lambda,
                                                                                        q, p);
  QUASAR_LAUNCH_CHECK("single_covariance_kernel");
}

void add_to_diagonal_cuda(device::Context& ctx, double* p, long n, double q) {
  constexpr int kBlock = 256;
  if (n == 0) return;
  add_to_diagonal_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, ctx.cuda().stream>>>(p, n, q);
  QUASAR_LAUNCH_CHECK("add_to_diagonal_kernel");
}

}  // namespace quasar::nn
