// The induced-dipole kernels (induce_gpu.hpp): fields gathered per atom, the preconditioner, the
// solver's vector updates and dot products.
#include <cub/block/block_reduce.cuh>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/induce_launch.hpp"

namespace quasar::amoeba {
namespace {

constexpr int kBlock = 128, kDotBlock = 512;

// The pair kernels in T: double, or float pairs into fixed-point sums (mixed32, mixed_arith.hpp).
template <class T>
__global__ void __launch_bounds__(kBlock) direct_kernel(InduceArgs a, const double* M, double* fd, double* fp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  Vec3 field_d, field_p;
  direct_fields_at<T>(a, i, M, field_d, field_p);
  store3(fd, i, field_d);
  store3(fp, i, field_p);
}

template <class T>
__global__ void __launch_bounds__(kBlock) mutual_kernel(InduceArgs a, const double* u, double* field) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) store3(field, i, mutual_field_at<T>(a, i, u));
}

template <class T>
__global__ void __launch_bounds__(kBlock) precondition_kernel(InduceArgs a, const double* rs, double* z) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) store3(z, i, precondition_at<T>(a, i, rs));
}

__global__ void start_residual_kernel(int n3, const double* alpha, const double* Tu, double* rs) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n3) rs[j] = alpha[j / 3] > 0 ? Tu[j] : 0.0;
}

__global__ void apply_operator_kernel(int n3, const double* alpha, const double* p, const double* Tp, double* Ap) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n3) return;
  const double al = alpha[j / 3];
  Ap[j] = al > 0 ? (1 / al) * p[j] - Tp[j] : 0.0;
}

__global__ void step_kernel(int n3, double step, const double* p, const double* Ap, double* x, double* rs) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n3) return;
  x[j] += step * p[j];
  rs[j] -= step * Ap[j];
}

__global__ void direction_kernel(int n3, double beta, const double* z, double* p) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n3) p[j] = z[j] + beta * p[j];
}

__global__ void scale_kernel(int n3, const double* alpha, const double* f, double* x) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n3) x[j] = alpha[j / 3] * f[j];
}

__global__ void __launch_bounds__(kDotBlock) dot_kernel(int n3, const double* a, const double* b, double* out) {
  using Reduce = cub::BlockReduce<double, kDotBlock>;
  __shared__ typename Reduce::TempStorage temp;
  double acc = 0;
  for (int j = threadIdx.x; j < n3; j += kDotBlock) acc += a[j] * b[j];
  const double s = Reduce(temp).Sum(acc);
  if (threadIdx.x == 0) *out = s;
}

}  // namespace

void launch_direct_fields(const InduceArgs& a, const double* M, double* field_d, double* field_p) {
  if (a.n == 0) return;
  if (a.mixed)
    direct_kernel<float><<<grid_for(a.n, kBlock), kBlock>>>(a, M, field_d, field_p);
  else
    direct_kernel<double><<<grid_for(a.n, kBlock), kBlock>>>(a, M, field_d, field_p);
  QUASAR_LAUNCH_CHECK("amoeba induce direct_kernel");
}

void launch_mutual_field(const InduceArgs& a, const double* u, double* field) {
  if (a.n == 0) return;
  if (a.mixed)
    mutual_kernel<float><<<grid_for(a.n, kBlock), kBlock>>>(a, u, field);
  else
    mutual_kernel<double><<<grid_for(a.n, kBlock), kBlock>>>(a, u, field);
  QUASAR_LAUNCH_CHECK("amoeba induce mutual_kernel");
}

void launch_precondition(const InduceArgs& a, const double* rs, double* z) {
  if (a.n == 0) return;
  if (a.mixed)
    precondition_kernel<float><<<grid_for(a.n, kBlock), kBlock>>>(a, rs, z);
  else
    precondition_kernel<double><<<grid_for(a.n, kBlock), kBlock>>>(a, rs, z);
  QUASAR_LAUNCH_CHECK("amoeba induce precondition_kernel");
}

void launch_start_residual(int n, const double* alpha, const double* Tu, double* rs) {
  if (n == 0) return;
  start_residual_kernel<<<grid_for(3L * n, kBlock), kBlock>>>(3 * n, alpha, Tu, rs);
  QUASAR_LAUNCH_CHECK("amoeba induce start_residual_kernel");
}

void launch_apply_operator(int n, const double* alpha, const double* p, const double* Tp, double* Ap) {
  if (n == 0) return;
  apply_operator_kernel<<<grid_for(3L * n, kBlock), kBlock>>>(3 * n, alpha, p, Tp, Ap);
  QUASAR_LAUNCH_CHECK("amoeba induce apply_operator_kernel");
}

void launch_step(int n, double step, const double* p, const double* Ap, double* x, double* rs) {
  if (n == 0) return;
  step_kernel<<<grid_for(3L * n, kBlock), kBlock>>>(3 * n, step, p, Ap, x, rs);
  QUASAR_LAUNCH_CHECK("amoeba induce step_kernel");
}

void launch_direction(int n, double beta, const double* z, double* p) {
  if (n == 0) return;
  direction_kernel<<<grid_for(3L * n, kBlock), kBlock>>>(3 * n, beta, z, p);
  QUASAR_LAUNCH_CHECK("amoeba induce direction_kernel");
}

void launch_dot(int n, const double* a, const double* b, double* out) {
  dot_kernel<<<1, kDotBlock>>>(3 * n, a, b, out);
  QUASAR_LAUNCH_CHECK("amoeba induce dot_kernel");
}

void launch_scale_by_alpha(int n, const double* alpha, const double* f, double* x) {
  if (n == 0) return;
  scale_kernel<<<grid_for(3L * n, kBlock), kBlock>>>(3 * n, alpha, f, x);
  QUASAR_LAUNCH_CHECK("amoeba induce scale_kernel");
}

}  // namespace quasar::amoeba
