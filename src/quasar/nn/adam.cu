// Adam on the GPU (adam.hpp): one thread per parameter, the CPU's arithmetic.
#include "quasar/device/cuda_check.cuh"
#include "quasar/nn/adam.hpp"

namespace quasar::nn {

namespace {
constexpr int kBlock = 256;

// On the double master values p; pt (when given) gets their copy in the compute precision T.
template <class T>
__global__ void adam_kernel(long n, double* p, T* pt, const T* g, double* m, double* v, double frames, double lr,
                            double c1, double c2) {
  const long k = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  const double b1 = Adam::kBeta1, b2 = Adam::kBeta2, eps = Adam::kEpsilon, grad = static_cast<double>(g[k]) / frames;
  m[k] = b1 * m[k] + (1 - b1) * grad;
  v[k] = b2 * v[k] + (1 - b2) * grad * grad;
  p[k] -= lr * (m[k] / c1) / (sqrt(v[k] / c2) + eps);
  if (pt) pt[k] = static_cast<T>(p[k]);
}
}  // namespace

void adam_step_cuda(const Parameters& p, double* m, double* v, double lr, double c1, double c2, double frames) {
  const long n = p.size;
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  if (p.gradient32)
    adam_kernel<<<blocks, kBlock>>>(n, p.values, p.copy32, p.gradient32, m, v, frames, lr, c1, c2);
  else
    adam_kernel<<<blocks, kBlock>>>(n, p.values, p.copy, p.gradient, m, v, frames, lr, c1, c2);
  QUASAR_LAUNCH_CHECK("adam_kernel");
}

}  // namespace quasar::nn
