#pragma once
// One element's network over the rows of a training update in a single thread block: inputs
// gathered (and their tangents contracted from the kept derivatives), forward with tangents, the sum
// of the outputs or of their tangents, and with `reverse` the gradient of that sum with respect to
// every weight added to the Jacobian. The rows go through shared memory in chunks; each thread keeps
// the gradient of a fixed set of weights in registers across the chunks. It replaces about twenty
// launches (cuBLAS GEMMs and element-wise kernels, nn/dual_layers.cuh) by one, which is what an
// update of a few hundred rows costs: the GEMM path stays for networks too large for it.
//
// Per layer l (rows r, outputs o):  z = b + x W,  dz = t W,  a = act(z),  da = act'(z) dz;
// reverse from (ga, gda):  gz = ga act'(z) + gda act''(z) dz,  gdz = gda act'(z),
//   dW[i][o] += x_i gz_o + t_i gdz_o,  db[o] += gz_o,  (ga, gda)_i = sum_o W[i][o] (gz, gdz)_o.
#include "quasar/nn/activation.hpp"

namespace quasar::nnp::fused {

constexpr int kThreads = 256;
constexpr int kMaxLayers = 6;
constexpr int kMaxWidth = 64;    // hidden and output layers
constexpr int kMaxAccumulators = 48;  // weights per thread: parameter count up to about 11,000
constexpr int kMaxElements = 8;

struct Net {
  int layers = 0, inputs = 0;
  int in[kMaxLayers] = {}, out[kMaxLayers] = {};
  nn::Activation act[kMaxLayers] = {};
  long at[kMaxLayers] = {};  // the layer's weights, then its biases, from the element's first parameter
  long offset = 0, count = 0;  // the element's parameters in the combined order
  int width = 0;               // the widest hidden or output layer
};

// The rows of one element: inputs at x_all[row_x[r]]; with tangents, the moves of row r are
// code[begin[r]] .. code[begin[r + 1]) where code = +-(offset into d_all + 1), the sign the direction.
struct Rows {
  int count = 0;
  const long* row_x = nullptr;
  const long* begin = nullptr;
  const long* code = nullptr;
  const double* scale = nullptr;  // the inputs' scale / conv_length
};

struct Job {
  int elements = 0, chunk = 0;  // rows per chunk
  bool tangent = false, reverse = false;
  double sign = 1;
  Net net[kMaxElements];
  Rows rows[kMaxElements];
};

// Doubles of shared memory per row: inputs and tangents, per layer z, dz, a, da, and two gradient
// buffers (ga, gda) of the widest layer.
__host__ __device__ inline int row_doubles(const Net& n) {
  int sum = 2 * n.inputs;
  for (int l = 0; l < n.layers; ++l) sum += 4 * n.out[l];
  return sum + 4 * n.width;
}

// static: one copy per translation unit that launches it (the header is shared with gpu_inputs.cu).
static __global__ void __launch_bounds__(kThreads) rows_kernel(Job job, const double* x_all, const double* d_all,
                                                        const double* params, const double* factor, double* sums,
                                                        double* jacobian) {
  extern __shared__ double smem[];
  const int e = blockIdx.x;
  const Net& net = job.net[e];
  const Rows& rows = job.rows[e];
  const double* w = params + net.offset;
  const int tid = threadIdx.x, ch = job.chunk, per_row = row_doubles(net);
  // Layout per chunk: [x | t] (ch x inputs each), per layer [z | dz | a | da] (ch x out each), [ga | gda] twice.
  double* X = smem;
  double* T = X + ch * net.inputs;
  double* layer_at[kMaxLayers];
  {
    double* p = T + ch * net.inputs;
    for (int l = 0; l < net.layers; ++l) layer_at[l] = p, p += 4 * ch * net.out[l];
  }
  double* G0 = smem + ch * per_row - 4 * ch * net.width;
  double* G1 = G0 + 2 * ch * net.width;
  double acc[kMaxAccumulators];
  for (int k = 0; k < kMaxAccumulators; ++k) acc[k] = 0;
  double total = 0;

  for (int first = 0; first < rows.count; first += ch) {
    const int n = min(ch, rows.count - first);
    for (int q = tid; q < ch * net.inputs; q += kThreads) {
      const int r = q / net.inputs, f = q % net.inputs;
      double x = 0, t = 0;
      if (r < n) {
        const int row = first + r;
        x = x_all[rows.row_x[row] + f];
        if (job.tangent) {
          for (long m = rows.begin[row]; m < rows.begin[row + 1]; ++m) {
            const long c = rows.code[m];
            t += c > 0 ? d_all[c - 1 + f] : -d_all[-c - 1 + f];
          }
          t *= rows.scale[f];
        }
      }
      X[q] = x;
      T[q] = t;
    }
    __syncthreads();
    // Forward.
    const double* xin = X;
    const double* tin = T;
    for (int l = 0; l < net.layers; ++l) {
      const int in = net.in[l], out = net.out[l];
      const double* W = w + net.at[l];
      const double* b = W + static_cast<long>(in) * out;
      double* Z = layer_at[l];
      for (int q = tid; q < ch * out; q += kThreads) {
        const int r = q / out, o = q % out;
        double z = b[o], dz = 0;
        for (int i = 0; i < in; ++i) {
          const double wio = W[i * out + o];
          z += xin[r * in + i] * wio;
          dz += tin[r * in + i] * wio;
        }
        double a, d1;
        nn::activate_both(net.act[l], z, a, d1);
        Z[q] = z;
        Z[ch * out + q] = dz;
        Z[2 * ch * out + q] = a;
        Z[3 * ch * out + q] = d1 * dz;
      }
      __syncthreads();
      xin = Z + 2 * ch * out;
      tin = Z + 3 * ch * out;
    }
    if (tid == 0)
      for (int r = 0; r < n; ++r) total += job.tangent ? tin[r] : xin[r];  // one output
    if (!job.reverse) continue;
    // Reverse: the seed on the outputs of the valid rows.
    double* G = G0;
    double* Gn = G1;
    const int last = net.out[net.layers - 1];
    for (int q = tid; q < ch * last; q += kThreads) {
      const bool valid = q / last < n;
      G[q] = valid && !job.tangent ? job.sign : 0.0;
      G[ch * net.width + q] = valid && job.tangent ? job.sign : 0.0;
    }
    __syncthreads();
    int k0 = 0;  // this thread's first accumulator of the layer
    for (int l = net.layers - 1; l >= 0; --l) {
      const int in = net.in[l], out = net.out[l];
      const double* Z = layer_at[l];
      const double* xl = l == 0 ? X : layer_at[l - 1] + 2 * ch * in;
      const double* tl = l == 0 ? T : layer_at[l - 1] + 3 * ch * in;
      // (ga, gda) -> (gz, gdz) in place.
      for (int q = tid; q < ch * out; q += kThreads) {
        const int r = q / out, o = q % out;
        const double z = Z[q], dz = Z[ch * out + q];
        const double d1 = nn::activate_derivative(net.act[l], z), d2 = nn::activate_second_derivative(net.act[l], z);
        const double ga = G[r * out + o], gda = G[ch * net.width + r * out + o];
        G[r * out + o] = ga * d1 + gda * d2 * dz;
        G[ch * net.width + r * out + o] = gda * d1;
      }
      __syncthreads();
      // The layer's weights and biases, each thread its own.
      const long count = static_cast<long>(in) * out + out;
      int k = k0;
      for (long p = tid; p < count; p += kThreads, ++k) {
        double sum = 0;
        if (p < static_cast<long>(in) * out) {
          const int i = static_cast<int>(p / out), o = static_cast<int>(p % out);
          for (int r = 0; r < n; ++r)
            sum += xl[r * in + i] * G[r * out + o] + tl[r * in + i] * G[ch * net.width + r * out + o];
        } else {
          const int o = static_cast<int>(p - static_cast<long>(in) * out);
          for (int r = 0; r < n; ++r) sum += G[r * out + o];
        }
        acc[k] += sum;
      }
      k0 += static_cast<int>((count + kThreads - 1) / kThreads);
      if (l == 0) break;
      // The gradients at the layer's inputs.
      const double* W = w + net.at[l];
      for (int q = tid; q < ch * in; q += kThreads) {
        const int r = q / in, i = q % in;
        double ga = 0, gda = 0;
        for (int o = 0; o < out; ++o) {
          const double wio = W[i * out + o];
          ga += wio * G[r * out + o];
          gda += wio * G[ch * net.width + r * out + o];
        }
        Gn[r * in + i] = ga;
        Gn[ch * net.width + r * in + i] = gda;
      }
      __syncthreads();
      double* swap = G;
      G = Gn;
      Gn = swap;
    }
    __syncthreads();
  }
  if (tid == 0) sums[e] = total;
  if (!job.reverse) return;
  int k0 = 0;  // as in the reverse pass: each layer takes ceil(count / kThreads) accumulators
  for (int l = net.layers - 1; l >= 0; --l) {
    const long count = static_cast<long>(net.in[l]) * net.out[l] + net.out[l];
    const long at = net.offset + net.at[l];
    int k = k0;
    for (long p = tid; p < count; p += kThreads, ++k) jacobian[at + p] += factor[at + p] * acc[k];
    k0 += static_cast<int>((count + kThreads - 1) / kThreads);
  }
}

}  // namespace quasar::nnp::fused
