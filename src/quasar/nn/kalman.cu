// The Kalman filter's GPU part that no library call covers (kalman.hpp): P's diagonal += q.
#include "quasar/device/context.cuh"
#include "quasar/nn/kalman.hpp"

namespace quasar::nn {

namespace {
__global__ void add_to_diagonal_kernel(double* p, long n, double q) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) p[i + n * i] += q;
}
}  // namespace

void add_to_diagonal_cuda(device::Context& ctx, double* p, long n, double q) {
  constexpr int kBlock = 256;
  if (n == 0) return;
  add_to_diagonal_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, ctx.cuda().stream>>>(p, n, q);
  QUASAR_LAUNCH_CHECK("add_to_diagonal_kernel");
}

}  // namespace quasar::nn
