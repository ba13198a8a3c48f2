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
__global__ void split_rows_kernel(const double* __restrict__ rows, double* __restrict__ x, double* __restrict__ y,
                                  double* __restrict__ z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] = rows[3 * i];
  y[i] = rows[3 * i + 1];
  z[i] = rows[3 * i + 2];
}
__global__ void join_rows_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                 const double* __restrict__ z, double* __restrict__ rows, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  rows[3 * i] = x[i];
  rows[3 * i + 1] = y[i];
  rows[3 * i + 2] = z[i];
}
__global__ void invert_permutation_kernel(int* __restrict__ inverse, const long* __restrict__ perm, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) inverse[perm[i]] = i;
}
}  // namespace
void invert_permutation(int* inverse, const long* perm, int n) {
  if (n <= 0) return;
  invert_permutation_kernel<<<grid_for(n, 256), 256>>>(inverse, perm, n);
  QUASAR_LAUNCH_CHECK("invert_permutation");
}
void split_rows(const double* rows, double* x, double* y, double* z, int n) {
  if (n <= 0) return;
  split_rows_kernel<<<grid_for(n, 256), 256>>>(rows, x, y, z, n);
  QUASAR_LAUNCH_CHECK("split_rows");
}
void join_rows(const double* x, const double* y, const double* z, double* rows, int n) {
  if (n <= 0) return;
  join_rows_kernel<<<grid_for(n, 256), 256>>>(x, y, z, rows, n);
  QUASAR_LAUNCH_CHECK("join_rows");
}
void gather(double* dst, const double* src, const int* perm, int n) { launch(dst, src, perm, n); }
void gather(int* dst, const int* src, const int* perm, int n) { launch(dst, src, perm, n); }
void gather(long* dst, const long* src, const int* perm, int n) { launch(dst, src, perm, n); }
}  // namespace quasar::device
