#pragma once
// The Deep Potential's networks on the GPU use the shared layers (nn/layers.cuh); the first
// embedding layer, whose one input is s_hat, is element-wise here.
#include "quasar/nn/layers.cuh"

namespace quasar::dp {

using nn::cublas_check;
using nn::from;
using nn::gemm;
using nn::layer_activate;
using nn::LayerRef;
using nn::to;

// First embedding layer (one input, s_hat = rhat[4 r]): element-wise in A, forward mode.
template <class S, class A, class Out>
__global__ void embed_first_kernel(long R, LayerRef<S, A> L, const A* rhat, Out* y) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= R * L.out) return;
  const long r = e / L.out;
  const int o = static_cast<int>(e % L.out);
  const A x = rhat[4 * r];
  A v, dv;
  layer_activate(L, o, x * L.wa[o], L.wa[o], v, dv);
  if (L.residual) {
    v += x;
    dv += A(1);
  }
  y[e] = to<Out>(v);
  y[R * L.out + e] = to<Out>(dv);
}

}  // namespace quasar::dp
