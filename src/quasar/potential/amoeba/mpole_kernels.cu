// The permanent multipoles' real-space kernel (mpole_gpu.hpp): one thread per site, its shares
// gathered over its partners (mpole_site.hpp).
#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/mpole_launch.hpp"

namespace quasar::amoeba {
namespace {

constexpr int kBlock = 128;

// T: double, or float pairs into fixed-point sums (the mixed32 mode, mixed_arith.hpp).
template <class T>
__global__ void __launch_bounds__(kBlock)
    mpole_sites_kernel(MpoleArgs a, double* energy, double* grad, double* dM, double* virial, int* pairs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.pairs.n) return;
  MpoleSite s;
  mpole_site_of<T>(a, i, s);
  energy[i] = s.energy;
  for (int c = 0; c < 3; ++c) grad[3 * i + c] = s.grad[c];
  for (int c = 0; c < 13; ++c) dM[13 * static_cast<long>(i) + c] = s.dM[c];
  for (int c = 0; c < 9; ++c) virial[9 * static_cast<long>(i) + c] = s.virial[c];
  pairs[i] = s.pairs;
}

}  // namespace

void launch_mpole_sites(const MpoleArgs& a, double* energy, double* grad, double* dM, double* virial, int* pairs) {
  if (a.pairs.n == 0) return;
  if (a.pairs.mixed)
    mpole_sites_kernel<float><<<grid_for(a.pairs.n, kBlock), kBlock>>>(a, energy, grad, dM, virial, pairs);
  else
    mpole_sites_kernel<double><<<grid_for(a.pairs.n, kBlock), kBlock>>>(a, energy, grad, dM, virial, pairs);
  QUASAR_LAUNCH_CHECK("amoeba mpole_sites_kernel");
}

}  // namespace quasar::amoeba
