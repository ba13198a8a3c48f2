#pragma once
// Tangent (forward-mode) and reverse passes of dense networks on the GPU, what training on forces
// needs (the CPU twin is nn/dual_net.hpp). A network runs on rows [x; x'] (values, then their
// tangents), one GEMM of twice the rows per layer, keeping its trace; the reverse pass carries
// [gy; h] (the gradients with respect to the values and to the tangents) back and adds the
// parameters' gradient:
//   forward  Z = [x; x'] W (+ b on the value rows), Y = act(Z) idt (+ residual);
//   reverse  gZ = [gy act' idt + h act'' z' idt; h act' idt], gW += [x; x']^T gZ, gX = gZ W^T.
#include <cublas_v2.h>

#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/device/grow.hpp"
#include "quasar/nn/layers.cuh"

namespace quasar::nn {

constexpr int kDualBlock = 256;
inline unsigned dual_grid(long n) { return static_cast<unsigned>((n + kDualBlock - 1) / kDualBlock); }

// Reverse through one layer's activation: from G = [gy; h] (2R x out) to gZ = [gz; gz'] and, when
// T is given, the timestep term gy act + h act' z' (R x out).
template <class T>
__global__ void dual_back_kernel(long R, LayerRef<T, T> L, const T* Z, const T* G, T* gZ, T* timestep) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const long n = R * L.out;
  if (e >= n) return;
  const int o = static_cast<int>(e % L.out);
  const T z = Z[e] + L.b[o], dz = Z[n + e], s = L.idt ? L.idt[o] : T(1);
  const T a1 = activate_derivative(L.act, z), a2 = T(activate_second_derivative(L.act, double(z)));
  const T gy = G[e], h = G[n + e];
  gZ[e] = (gy * a1 + h * a2 * dz) * s;
  gZ[n + e] = h * a1 * s;
  if (timestep) timestep[e] = gy * activate(L.act, z) + h * a1 * dz;
}

// The residual's share of the gradient at a layer's input: gX += G through x -> y (both halves).
template <class T>
__global__ void residual_back_kernel(long rows, LayerRef<T, T> L, const T* G, T* gX) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= rows * L.in) return;
  const long r = e / L.in;
  const int q = static_cast<int>(e % L.in);
  gX[e] += G[r * L.out + q] + (L.residual == 2 ? G[r * L.out + q + L.in] : T(0));
}

// cuBLAS in T: gW (in x out, row-major) += X^T gZ over k rows, and y (n) += A^T 1 (the column sums of
// A, k rows x n, row-major).
inline void weight_gradient(cublasHandle_t h, int out, int in, int k, const double* gZ, const double* x, double* gW) {
  const double one = 1.0;
  cublas_check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, out, in, k, &one, gZ, out, x, in, &one, gW, out),
               "weight gradient");
}
inline void weight_gradient(cublasHandle_t h, int out, int in, int k, const float* gZ, const float* x, float* gW) {
  const float one = 1.0f;
  cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, out, in, k, &one, gZ, out, x, in, &one, gW, out),
               "weight gradient");
}
inline void column_sums(cublasHandle_t h, int n, int k, const double* a, const double* ones, double* y) {
  const double one = 1.0;
  cublas_check(cublasDgemv(h, CUBLAS_OP_N, n, k, &one, a, n, ones, 1, &one, y, 1), "bias gradient");
}
inline void column_sums(cublasHandle_t h, int n, int k, const float* a, const float* ones, float* y) {
  const float one = 1.0f;
  cublas_check(cublasSgemv(h, CUBLAS_OP_N, n, k, &one, a, n, ones, 1, &one, y, 1), "bias gradient");
}

// One network on the GPU: its layers over the parameters (in T) and, for training, the same shapes
// over the gradient.
template <class T>
struct DualNet {
  std::vector<LayerRef<T, T>> layers, grads;

  // Trace of `rows` rows: per layer [x; x'] (2 rows x in), then [z; z'] (2 rows x out).
  long trace_size(long rows) const {
    long s = 0;
    for (const auto& L : layers) s += 2 * rows * (L.in + L.out);
    return s;
  }
  long max_width() const {
    long w = 0;
    for (const auto& L : layers) w = std::max<long>(w, std::max(L.in, L.out));
    return w;
  }
};

// Scratch of the reverse pass: ga and gb alternate between layers (the pass starts from ga), gz
// and step hold a layer's gZ and timestep term, ones the column-sum vector.
template <class T>
struct DualScratch {
  Array<T> ga{Backend::Cuda}, gb{Backend::Cuda}, gz{Backend::Cuda}, step{Backend::Cuda}, ones{Backend::Cuda};
};

// Forward with tangents over `rows` rows; the input [x; x'] is the trace's first block. The output
// (2 rows x the last layer's width) goes to `out`.
template <class T>
void dual_forward(cublasHandle_t h, const DualNet<T>& net, long rows, T* trace, T* out) {
  long off = 0;
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    const LayerRef<T, T>& L = net.layers[l];
    T* xs = trace + off;
    T* zs = xs + 2 * rows * L.in;
    gemm<T, T>(h, 2 * rows, L.in, L.out, xs, L.w, zs, false);
    off += 2 * rows * (L.in + L.out);
    T* y = l + 1 < net.layers.size() ? trace + off : out;
    tangent_post_kernel<<<dual_grid(rows * L.out), kDualBlock>>>(rows, L, zs, xs, y);
    QUASAR_LAUNCH_CHECK("dual forward layer");
  }
}

// Reverse from [gy; h] at the output, held in s.ga; adds the parameters' gradient when
// `accumulate` (net.grads). Returns [gx; h_x] at the input (in s.ga or s.gb) when `input_grad`.
template <class T>
const T* dual_backward(cublasHandle_t h, const DualNet<T>& net, long rows, const T* trace, DualScratch<T>& s,
                       bool accumulate, bool input_grad) {
  std::vector<long> offs;
  long off = 0;
  for (const auto& L : net.layers) {
    offs.push_back(off);
    off += 2 * rows * (L.in + L.out);
  }
  if (accumulate && s.ones.size() < static_cast<std::size_t>(rows)) s.ones.assign(std::vector<T>(rows, T(1)));
  T* g = s.ga.data();
  for (int l = static_cast<int>(net.layers.size()) - 1; l >= 0; --l) {
    const LayerRef<T, T>& L = net.layers[l];
    const T* xs = trace + offs[l];
    const T* zs = xs + 2 * rows * L.in;
    T* gZ = grow(s.gz, 2 * rows * L.out);
    T* step = L.idt && accumulate ? grow(s.step, rows * L.out) : nullptr;
    dual_back_kernel<<<dual_grid(rows * L.out), kDualBlock>>>(rows, L, zs, g, gZ, step);
    QUASAR_LAUNCH_CHECK("dual reverse layer");
    if (accumulate) {
      const LayerRef<T, T>& gL = net.grads[l];
      // gW (in x out) += [x; x']^T gZ; gb += the column sums of gZ's value rows; likewise idt.
      weight_gradient(h, L.out, L.in, static_cast<int>(2 * rows), gZ, xs, const_cast<T*>(gL.w));
      column_sums(h, L.out, static_cast<int>(rows), gZ, s.ones.data(), const_cast<T*>(gL.b));
      if (step) column_sums(h, L.out, static_cast<int>(rows), step, s.ones.data(), const_cast<T*>(gL.idt));
    }
    if (l == 0 && !input_grad) break;
    T* gX = g == s.ga.data() ? s.gb.data() : s.ga.data();
    gemm<T, T>(h, 2 * rows, L.in, L.out, gZ, L.w, gX, true);
    if (L.residual) {
      residual_back_kernel<<<dual_grid(2 * rows * L.in), kDualBlock>>>(2 * rows, L, g, gX);
      QUASAR_LAUNCH_CHECK("dual residual");
    }
    g = gX;
  }
  return g;
}

}  // namespace quasar::nn
