// The polarization gradient's pair kernel (polar_gpu.hpp): one thread per atom.
#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/polar_gpu.hpp"

namespace quasar::amoeba {
namespace {

constexpr int kBlock = 128;

template <class T>
__global__ void __launch_bounds__(kBlock)
    polar_pairs_kernel(InduceArgs a, const double* M, const double* ud, const double* up, bool mutual, double f,
                       double* grad, double* dM, double* virial, int* pairs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  PolarSums s;
  polar_pairs_at<T>(a, i, M, ud, up, mutual, f, s);
  for (int c = 0; c < 3; ++c) grad[3 * i + c] = s.grad[c];
  for (int c = 0; c < 13; ++c) dM[13 * i + c] = s.dM[c];
  for (int c = 0; c < 9; ++c) virial[9 * i + c] = s.virial[c];
  pairs[i] = s.pairs;
}

}  // namespace

void launch_polar_pairs(const InduceArgs& a, const double* M, const double* ud, const double* up, bool mutual,
                        double f, double* grad, double* dM, double* virial, int* pairs) {
  if (a.n == 0) return;
  // The mixed32 mode: float pairs into fixed-point sums (mixed_arith.hpp).
  if (a.mixed)
    polar_pairs_kernel<float><<<grid_for(a.n, kBlock), kBlock>>>(a, M, ud, up, mutual, f, grad, dM, virial, pairs);
  else
    polar_pairs_kernel<double><<<grid_for(a.n, kBlock), kBlock>>>(a, M, ud, up, mutual, f, grad, dM, virial, pairs);
  QUASAR_LAUNCH_CHECK("amoeba polar_pairs_kernel");
}

}  // namespace quasar::amoeba
