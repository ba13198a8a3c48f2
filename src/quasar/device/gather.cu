#include "quasar/device/cuda_check.cuh"
#include "quasar/device/gather.hpp"

namespace quasar::device {
namespace {
template <class T>
__global__ void gather_kernel(T* __restrict__ dst, const T* __restrict__ src, const int* __restrict__ perm, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[perm[i]];
}
template <class T>
void launch(T* dst, const T* src, const int* perm, int n) {
  if (n <= 0) return;
  gather_kernel<<<grid_for(n, 256), 256>>>(dst, src, perm, n);
  QUASAR_LAUNCH_CHECK("gather");
}
}  // namespace
void gather(double* dst, const double* src, const int* perm, int n) { launch(dst, src, perm, n); }
void gather(int* dst, const int* src, const int* perm, int n) { launch(dst, src, perm, n); }
void gather(long* dst, const long* src, const int* perm, int n) { launch(dst, src, perm, n); }
}  // namespace quasar::device
