#include <cmath>

#include "quasar/device/cuda_check.cuh"
#include "quasar/device/fixed_point.cuh"

namespace quasar::device {
namespace {
__global__ void finish_kernel(double* sums, long n, double scale, const int* status, double* add_to) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double v = *status ? NAN : fixed_value(sums[i], scale);
  if (add_to) add_to[i] += v;
  else sums[i] = v;
}
}  // namespace

int* FixedPointSums::start() {
  if (status_.backend() != Backend::Cuda || status_.empty()) status_ = Array<int>(Backend::Cuda, 1);
  status_.set_zero();
  return status_.data();
}

void FixedPointSums::finish(double* sums, long n, double scale, double* add_to) {
  if (n <= 0) return;
  finish_kernel<<<grid_for(n, 256), 256>>>(sums, n, scale, status_.data(), add_to);
  QUASAR_LAUNCH_CHECK("fixed-point finish_kernel");
}

}  // namespace quasar::device
