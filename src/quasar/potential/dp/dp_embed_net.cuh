#pragma once
// A whole embedding net in one kernel: each block takes kNetRows neighbours, evaluates the first
// layer element-wise from s = R_hat[0], then every further layer as a tensor-core product
// (mma m16n8k8: FP64 for double, sm_90; three TF32 products for float, about as accurate as FP32)
// of the activations held in shared memory, with bias, activation, timestep and residual applied
// to the accumulators in registers. Forward mode as the layer-by-layer path: value and d/ds rows
// share each weight fragment, and the derivative uses act' at the same pre-activation. Only G and
// dG/ds of the last layer reach device memory; the layer-by-layer path moves every hidden layer
// through it twice (GEMM output, then activation).
#include "quasar/potential/dp/dp_layers.cuh"

namespace quasar::dp {

constexpr int kNetRows = 32;   // neighbours per block: two row tiles of sixteen
constexpr int kNetWarps = 4;
constexpr int kNetMaxLayers = 8;
constexpr int kNetKChunk = 64; // weight fragments kept in registers per pass over the input
constexpr std::size_t kNetMaxShared = 160 * 1024;  // else the layer-by-layer path

__host__ __device__ constexpr int round_up(int v, int m) { return (v + m - 1) / m * m; }

// Shared-memory row stride for hidden layers up to width w (padded to 8 for the products): 4 mod
// 8, so that the eight rows of an A fragment fall on distinct banks (doubles and floats alike).
constexpr int net_stride(int w) { return round_up(w, 8) + 4; }

// Hidden layer l's values and derivatives go to shared buffer l % 2, whose row stride ld[l % 2]
// fits the widest hidden layer of that parity (so a narrow first layer takes little room).
template <class T>
struct EmbedNetRef {
  int layers = 0;
  int ld[2] = {0, 0};
  LayerRef<T, T> layer[kNetMaxLayers];
};

template <class T>
std::size_t embed_net_shared_bytes(const int (&ld)[2]) {
  return 2ul * kNetRows * (ld[0] + ld[1]) * sizeof(T);
}

// D = A B + D for one 16x8x8 FP64 tile (sm_90). With g = lane / 4 and t = lane % 4, lane holds
// A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]; B[t][g], B[t+4][g]; D[g][2t], D[g][2t+1],
// D[g+8][2t], D[g+8][2t+1].
__device__ inline void mma_16x8x8(double (&d)[4], const double (&a)[4], double b0, double b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b0), "d"(b1));
#else
  __trap();  // the host only launches the fused net on compute capability 9.0 and later
#endif
}

// The same tile in float as three TF32 products (a_hi b_hi + a_hi b_lo + a_lo b_hi, float
// accumulation): hi + lo carry 22 of each operand's 24 bits, close to an FP32 product.
__device__ inline unsigned to_tf32(float x) {
  unsigned r = __float_as_uint(x);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#endif
  return r;
}
__device__ inline void mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();
#endif
}
__device__ inline void mma_16x8x8(float (&d)[4], const float (&a)[4], float b0, float b1) {
  unsigned hi[4], lo[4];
  for (int i = 0; i < 4; ++i) {
    hi[i] = to_tf32(a[i]);
    lo[i] = to_tf32(a[i] - __uint_as_float(hi[i]));
  }
  const unsigned h0 = to_tf32(b0), h1 = to_tf32(b1);
  const unsigned l0 = to_tf32(b0 - __uint_as_float(h0)), l1 = to_tf32(b1 - __uint_as_float(h1));
  mma_tf32(d, lo, h0, h1);
  mma_tf32(d, hi, l0, l1);
  mma_tf32(d, hi, h0, h1);
}

// R rows (neighbours) of one type: G to g[row M + q], dG/ds to g[(R + row) M + q].
template <class T>
__global__ void __launch_bounds__(32 * kNetWarps) embed_net_kernel(long R, EmbedNetRef<T> net, const T* rhat, T* g) {
  extern __shared__ double net_shm_raw[];
  T* const net_shm = reinterpret_cast<T*>(net_shm_raw);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g8 = lane / 4, q = lane % 4;
  T* const even = net_shm;  // values, then derivatives
  T* const odd = net_shm + 2 * kNetRows * net.ld[0];
  const long row0 = blockIdx.x * static_cast<long>(kNetRows);
  {
    const LayerRef<T, T>& L = net.layer[0];
    const int w = round_up(L.out, 8);  // columns past out are the next product's zero padding
    for (int e = threadIdx.x; e < kNetRows * w; e += blockDim.x) {
      const int r = e / w, o = e % w;
      const long row = row0 + r;
      T v = 0, dv = 0;
      if (o < L.out && row < R) {
        const T s = rhat[4 * row];
        layer_activate(L, o, s * L.wa[o], L.wa[o], v, dv);
        if (L.residual) {
          v += s;
          dv += T(1);
        }
      }
      even[r * net.ld[0] + o] = v;
      even[(kNetRows + r) * net.ld[0] + o] = dv;
    }
  }
  __syncthreads();
  for (int l = 1; l < net.layers; ++l) {
    const LayerRef<T, T>& L = net.layer[l];
    const bool last = l == net.layers - 1;
    const int kp = round_up(L.in, 8), width = last ? L.out : round_up(L.out, 8);
    const bool odd_in = (l - 1) % 2;
    const int ld = net.ld[odd_in], ldy = net.ld[!odd_in];
    T* const x[2] = {odd_in ? odd : even, (odd_in ? odd : even) + kNetRows * ld};  // input
    T* const y[2] = {odd_in ? even : odd, (odd_in ? even : odd) + kNetRows * ldy};  // hidden output
    // Work items: one 16-row tile by one 8-column tile, values and derivatives together.
    for (int item = warp; item < L.np / 8 * 2; item += kNetWarps) {
      const int c0 = 8 * (item / 2), rt = item % 2;
      T acc[2][4] = {};  // [value, derivative][fragment]
      for (int k0 = 0; k0 < kp; k0 += kNetKChunk) {
        const int steps = min(kp - k0, kNetKChunk) / 8;
        T b[kNetKChunk / 8][2];
#pragma unroll
        for (int k = 0; k < kNetKChunk / 8; ++k)
          if (k < steps)
            for (int h = 0; h < 2; ++h) b[k][h] = L.wp[static_cast<long>(k0 + 8 * k + 4 * h + q) * L.np + c0 + g8];
#pragma unroll
        for (int vt = 0; vt < 2; ++vt) {
          const T* ar = x[vt] + (16 * rt + g8) * ld + k0 + q;
#pragma unroll
          for (int k = 0; k < kNetKChunk / 8; ++k)
            if (k < steps) {
              const T a[4] = {ar[8 * k], ar[8 * ld + 8 * k], ar[8 * k + 4], ar[8 * ld + 8 * k + 4]};
              mma_16x8x8(acc[vt], a, b[k][0], b[k][1]);
            }
        }
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int r = 16 * rt + g8 + 8 * (i / 2), o = c0 + 2 * q + i % 2;
        if (o >= width) continue;
        T v = 0, dv = 0;
        if (o < L.out) {
          layer_activate(L, o, acc[0][i], acc[1][i], v, dv);
          if (L.residual) {
            const int c = o < L.in ? o : o - L.in;  // residual 1 (out = in) or 2 (out = 2 in)
            v += x[0][r * ld + c];
            dv += x[1][r * ld + c];
          }
        }
        if (!last) {
          y[0][r * ldy + o] = v;
          y[1][r * ldy + o] = dv;
        } else if (row0 + r < R) {
          g[(row0 + r) * L.out + o] = v;
          g[(R + row0 + r) * L.out + o] = dv;
        }
      }
    }
    __syncthreads();
  }
}

}  // namespace quasar::dp
