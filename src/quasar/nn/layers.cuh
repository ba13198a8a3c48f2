#pragma once
// Dense layers (nn/network.hpp) on the GPU: a cuBLAS GEMM per layer and one element-wise kernel for
// bias, activation, timestep and residual (and the derivative the backward pass needs), with the
// operands in S (double, float or half) and the arithmetic in A (double or float). Row-major
// matrices throughout; cuBLAS sees them as their transposes.
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <string>

#include "quasar/core/error.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/nn/activation.hpp"

namespace quasar::nn {

template <class T>
__host__ __device__ inline T to(double v) {
  return static_cast<T>(v);
}
template <>
__host__ __device__ inline __half to<__half>(double v) {
  return __float2half(static_cast<float>(v));
}
template <class A>
__host__ __device__ inline A from(__half v) {
  return static_cast<A>(__half2float(v));
}
template <class A, class T>
__host__ __device__ inline A from(T v) {
  return static_cast<A>(v);
}

template <class T>
constexpr cudaDataType_t cuda_type() {
  if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else return CUDA_R_16F;
}

inline void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(std::string("cuBLAS error ") + std::to_string(static_cast<int>(s)) + " in " + what);
}

// Y (rows x out, type A) = X (rows x in, type S) W (in x out, type S), or with transpose_w:
// Y (rows x in) = X (rows x out) W^T. Accumulation in A (double, or float for float and half).
template <class S, class A>
void gemm(cublasHandle_t h, long rows, int in, int out, const S* x, const S* w, A* y, bool transpose_w) {
  const cublasComputeType_t compute = std::is_same_v<A, double> ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const A one = 1, zero = 0;
  const int n = static_cast<int>(rows);
  if (!transpose_w)
    cublas_check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, out, n, in, &one, w, cuda_type<S>(), out, x, cuda_type<S>(),
                              in, &zero, y, cuda_type<A>(), out, compute, CUBLAS_GEMM_DEFAULT),
                 "forward layer");
  else
    cublas_check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, in, n, out, &one, w, cuda_type<S>(), out, x, cuda_type<S>(),
                              out, &zero, y, cuda_type<A>(), in, compute, CUBLAS_GEMM_DEFAULT),
                 "backward layer");
}

// One layer's constants on the device.
template <class S, class A>
struct LayerRef {
  int in = 0, out = 0, residual = 0;
  Activation act = Activation::Tanh;
  const S* w = nullptr;    // GEMM operand
  const A* wa = nullptr;   // the same weights in A (element-wise first/last layers)
  const A* b = nullptr;
  const A* idt = nullptr;  // or null
  const S* wp = nullptr;   // w zero-padded to [in rounded to 8][np], for the fused embedding net
  int np = 0;              // out rounded up to 8
};

// tanh(x) and 1 - tanh(x)^2 in double without branches, from expm1(-2|x|) = 2^n (1 + q) - 1 with
// n = rint(-2|x| / ln 2) and q = exp(r) - 1 for |r| <= ln2 / 2 (Taylor to r^13, error < 1e-17):
// about thirty FP64 operations, half of what tanh() costs (in the fused net it shares the FP64 pipe
// with the tensor-core products). Accurate to a few units in the last place (relative, also for small x).
__device__ inline void tanh_both(double x, double& t, double& dt) {
  const double ax = fabs(x) > 20.0 ? 20.0 : fabs(x);  // tanh(20) = 1 - 8e-18; NaN stays NaN
  const double y = -2.0 * ax, n = rint(y * 1.4426950408889634);
  double r = fma(n, -6.9314718055994529e-01, y);
  r = fma(n, -2.3190468138462996e-17, r);
  double q = 1.0 / 6227020800.0;  // 1/13!
  q = fma(q, r, 1.0 / 479001600.0);
  q = fma(q, r, 1.0 / 39916800.0);
  q = fma(q, r, 1.0 / 3628800.0);
  q = fma(q, r, 1.0 / 362880.0);
  q = fma(q, r, 1.0 / 40320.0);
  q = fma(q, r, 1.0 / 5040.0);
  q = fma(q, r, 1.0 / 720.0);
  q = fma(q, r, 1.0 / 120.0);
  q = fma(q, r, 1.0 / 24.0);
  q = fma(q, r, 1.0 / 6.0);
  q = fma(q, r, 0.5);
  q = fma(q, r, 1.0);
  q *= r;
  const double s = __hiloint2double((1023 + static_cast<int>(n)) << 20, 0);  // 2^n, n in [-58, 0]
  const double em1 = fma(s, q, s - 1.0);                                       // expm1(-2|x|)
  const double d = 2.0 + em1;                                                  // in [1, 2]
  double inv = static_cast<double>(__frcp_rn(static_cast<float>(d)));
  inv = fma(inv, fma(-d, inv, 1.0), inv);
  inv = fma(inv, fma(-d, inv, 1.0), inv);
  t = copysign(-em1 * inv, x);
  dt = fma(-t, t, 1.0);
}

__device__ inline void act_both(Activation a, double x, double& y, double& dy) {
  if (a == Activation::Tanh) tanh_both(x, y, dy);
  else activate_both(a, x, y, dy);
}
__device__ inline void act_both(Activation a, float x, float& y, float& dy) { activate_both(a, x, y, dy); }

// Output o of layer L before any residual: v = act(z + b) idt and dv = act'(z + b) dz idt (dz: the
// pre-activation's derivative in forward mode, or 1 for act' itself). Shared by every layer kernel.
template <class S, class A>
__device__ inline void layer_activate(const LayerRef<S, A>& L, int o, A z, A dz, A& v, A& dv) {
  A d;
  act_both(L.act, z + L.b[o], v, d);
  dv = d * dz;
  if (L.idt) {
    v *= L.idt[o];
    dv *= L.idt[o];
  }
}

// Column of the input a residual layer adds to output o.
__device__ inline int residual_column(int residual, int o, int in) { return residual == 1 ? o : o % in; }

// A layer in forward mode after its GEMM: rows [0, R) of z hold x W, rows [R, 2R) hold x' W (x': the
// input's derivative along one direction). Writes y = act(z + b) idt (+ x) and y' likewise; y may
// alias z.
template <class S, class A, class In, class Out>
__global__ void tangent_post_kernel(long R, LayerRef<S, A> L, const A* z, const In* x, Out* y) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= R * L.out) return;
  const long r = e / L.out;
  const int o = static_cast<int>(e % L.out);
  A v, dv;
  layer_activate(L, o, z[e], z[R * L.out + e], v, dv);
  if (L.residual) {
    const int q = residual_column(L.residual, o, L.in);
    v += from<A>(x[r * L.in + q]);
    dv += from<A>(x[(R + r) * L.in + q]);
  }
  y[e] = to<Out>(v);
  y[R * L.out + e] = to<Out>(dv);
}

// A layer after its GEMM: y = act(z + b) idt (+ x), deriv = act'(z + b) idt for the backward pass.
// y may alias z.
template <class S, class A, class Out>
__global__ void dense_post_kernel(long rows, LayerRef<S, A> L, const A* z, const S* x, Out* y, A* deriv) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= rows * L.out) return;
  const long r = e / L.out;
  const int o = static_cast<int>(e % L.out);
  A v, d;
  layer_activate(L, o, z[e], A(1), v, d);
  if (L.residual) v += from<A>(x[r * L.in + residual_column(L.residual, o, L.in)]);
  y[e] = to<Out>(v);
  deriv[e] = d;
}

// A layer backward after the GEMM z = gp W^T (rows x in): the gradient at the layer's input
// g_in = z + residual(g_out); and, for the layer below, g_in * act' (S) when deriv is given.
template <class S, class A>
__global__ void dense_back_kernel(long rows, LayerRef<S, A> L, const A* z, const A* g_out, const A* deriv, A* g_in, S* gp) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= rows * L.in) return;
  const long r = e / L.in;
  const int q = static_cast<int>(e % L.in);
  A v = z[e];
  if (L.residual == 1) v += g_out[r * L.out + q];
  else if (L.residual == 2) v += g_out[r * L.out + q] + g_out[r * L.out + q + L.in];
  g_in[e] = v;
  if (deriv) gp[e] = to<S>(v * deriv[e]);
}

}  // namespace quasar::nn
