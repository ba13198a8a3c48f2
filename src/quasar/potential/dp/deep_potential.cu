// Deep Potential on the GPU, first version (see deep_potential_gpu.hpp): correct and resident on
// the device; the GEMM formulation of the networks comes next.
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/potential/dp/activation.hpp"
#include "quasar/potential/dp/deep_potential_gpu.hpp"
#include "quasar/potential/dp/env_row.hpp"

namespace quasar::dp {
namespace {

constexpr int kBlock = 128;
constexpr int kMaxSlots = 1024;  // sum(sel) handled by one thread's selection

// Environment of atom i: nearest sel[t] neighbours per type (ties in list order), the normalised
// rows R_hat, their derivatives with respect to the displacement (divided by dstd), and the
// displacements. Pair-excluded neighbours keep their place in the selection and become padding.
__global__ void environment_kernel(GpuBuffers b, AtomsRef a, NeighborRef list) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const GpuModel& m = *b.model;
  const int nt = m.ntypes, nnei = m.nnei;
  const int ti = b.model_type[a.type[i]];
  int count[kGpuMaxTypes];
  for (int t = 0; t < nt; ++t) count[t] = 0;
  double dist[kMaxSlots];
  int slot_k[kMaxSlots];
  for (int k = 0; k < list.count[i]; ++k) {
    int j;
    const Vec3 d = list.delta(a.box, a.x, a.y, a.z, i, k, j);
    const double r = sqrt(norm2(d));
    if (r >= m.rcut) continue;
    const int tj = b.model_type[a.type[j]];
    const int base = m.sec[tj], cap = m.sel[tj];
    int c = count[tj];
    // Insert after every entry that is not farther (stable); drop the farthest when full.
    int p = c < cap ? c : cap;
    while (p > 0 && dist[base + p - 1] > r) --p;
    if (p >= cap) continue;
    const int last = c < cap ? c : cap - 1;
    for (int q = last; q > p; --q) {
      dist[base + q] = dist[base + q - 1];
      slot_k[base + q] = slot_k[base + q - 1];
    }
    dist[base + p] = r;
    slot_k[base + p] = k;
    if (c < cap) count[tj] = c + 1;
  }
  for (int t = 0; t < nt; ++t)
    for (int s = 0; s < m.sel[t]; ++s) {
      const int slot = m.sec[t] + s;
      const long at = static_cast<long>(i) * nnei + slot;
      const double* avg = b.davg + (static_cast<long>(ti) * nnei + slot) * 4;
      const double* sd = b.dstd + (static_cast<long>(ti) * nnei + slot) * 4;
      int j = -1;
      Vec3 d{};
      if (s < count[t]) {
        d = list.delta(a.box, a.x, a.y, a.z, i, slot_k[slot], j);
        if (m.pair_excluded[ti * nt + t]) j = -1;
      }
      b.nlist[at] = j;
      double R[4] = {0, 0, 0, 0}, dR[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
      if (j >= 0) env_row(d, m.env_protection, m.rcut_smth, m.rcut, R, dR);
      const bool excluded = j >= 0 && m.excluded[ti * nt + t];
      if (excluded) b.nlist[at] = -2;  // real neighbour whose row is zeroed: no force
      for (int c = 0; c < 4; ++c) {
        b.rhat[at * 4 + c] = excluded ? 0.0 : (R[c] - avg[c]) / sd[c];
        for (int q = 0; q < 3; ++q) b.drhat[(at * 4 + c) * 3 + q] = j >= 0 && !excluded ? dR[c][q] / sd[c] : 0.0;
      }
      b.disp[at * 3] = d.x;
      b.disp[at * 3 + 1] = d.y;
      b.disp[at * 3 + 2] = d.z;
    }
}

// Embedding net of one slot (scalar input s_hat), with the derivative with respect to the input.
__global__ void embedding_kernel(GpuBuffers b, AtomsRef a) {
  const long at = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const GpuModel& m = *b.model;
  if (at >= static_cast<long>(a.n) * m.nnei) return;
  const int i = static_cast<int>(at / m.nnei), slot = static_cast<int>(at % m.nnei);
  int t = 0;
  while (slot >= m.sec[t + 1]) ++t;
  const int ti = b.model_type[a.type[i]];
  const GpuNet& net = m.emb[m.type_one_side ? t : ti + t * m.ntypes];
  double y[kGpuMaxWidth], dy[kGpuMaxWidth];
  y[0] = b.rhat[at * 4];
  dy[0] = 1.0;
  for (int l = 0; l < net.layers; ++l) {
    const int in = net.in[l], out = net.out[l];
    const double* W = b.weights + net.w[l];
    const double* B = b.weights + net.b[l];
    double ny[kGpuMaxWidth], ndy[kGpuMaxWidth];
    for (int o = 0; o < out; ++o) {
      double z = B[o], dz = 0;
      for (int q = 0; q < in; ++q) {
        z += y[q] * W[q * out + o];
        dz += dy[q] * W[q * out + o];
      }
      const Activation act = static_cast<Activation>(net.act[l]);
      double v = activate(act, z), dv = activate_derivative(act, z) * dz;
      if (net.idt[l] >= 0) {
        v *= b.weights[net.idt[l] + o];
        dv *= b.weights[net.idt[l] + o];
      }
      if (net.residual[l] == 1) {
        v += y[o];
        dv += dy[o];
      } else if (net.residual[l] == 2) {
        v += y[o % in];
        dv += dy[o % in];
      }
      ny[o] = v;
      ndy[o] = dv;
    }
    for (int o = 0; o < out; ++o) {
      y[o] = ny[o];
      dy[o] = ndy[o];
    }
  }
  for (int q = 0; q < m.m; ++q) {
    b.g[at * m.m + q] = y[q];
    b.dg[at * m.m + q] = dy[q];
  }
}

// One block per atom: descriptor, fitting net forward and backward, and the forces and virials of
// every neighbour slot.
template <bool kPerAtom>
__global__ void __launch_bounds__(kBlock) atom_kernel(GpuBuffers b, AtomsRef a, double* totals, double* atom_energy,
                                                      double* atom_virial) {
  extern __shared__ double shm[];
  const int i = blockIdx.x, tid = threadIdx.x;
  const GpuModel& m = *b.model;
  const int nnei = m.nnei, M = m.m, axis = m.axis, W = m.max_width;
  const int ti = b.model_type[a.type[i]];
  const GpuNet& fit = m.fit[ti];
  double* gr = shm;                 // M x 4
  double* ggr = gr + M * 4;         // M x 4
  double* bufa = ggr + M * 4;       // W: layer inputs / gradients
  double* bufb = bufa + W;          // W
  double* acts = bufb + W;               // every layer's output, back to back
  double* pre = acts + m.fit_outputs;    // and its pre-activation
  int offset[kGpuMaxLayers];
  for (int l = 0, o = 0; l < fit.layers; o += fit.out[l], ++l) offset[l] = o;
  __shared__ double energy_part[10];
  if (tid < 10) energy_part[tid] = 0;
  const long base = static_cast<long>(i) * nnei;
  for (int q = tid; q < M * 4; q += blockDim.x) {
    const int aa = q / 4, c = q % 4;
    double s = 0;
    for (int slot = 0; slot < nnei; ++slot) s += b.g[(base + slot) * M + aa] * b.rhat[(base + slot) * 4 + c];
    gr[q] = s / nnei;
  }
  __syncthreads();
  // Fitting input: the descriptor, then the atom's normalised parameters.
  for (int q = tid; q < m.fit_in; q += blockDim.x) {
    if (q < M * axis) {
      const int aa = q / axis, bb = q % axis;
      double s = 0;
      for (int c = 0; c < 4; ++c) s += gr[aa * 4 + c] * gr[bb * 4 + c];
      bufa[q] = s;
    } else {
      bufa[q] = b.extra[a.id[i] * m.extra + (q - M * axis)];
    }
  }
  __syncthreads();
  // Forward, keeping each layer's output (acts) and pre-activation (pre).
  const double* x = bufa;
  for (int l = 0; l < fit.layers; ++l) {
    const int in = fit.in[l], out = fit.out[l];
    const double* Wl = b.weights + fit.w[l];
    double* y = acts + offset[l];
    for (int o = tid; o < out; o += blockDim.x) {
      double z = b.weights[fit.b[l] + o];
      for (int q = 0; q < in; ++q) z += x[q] * Wl[q * out + o];
      pre[offset[l] + o] = z;
      double v = activate(static_cast<Activation>(fit.act[l]), z);
      if (fit.idt[l] >= 0) v *= b.weights[fit.idt[l] + o];
      if (fit.residual[l] == 1) v += x[o];
      else if (fit.residual[l] == 2) v += x[o % in];
      y[o] = v;
    }
    __syncthreads();
    x = y;
  }
  const bool excluded_atom = m.atom_excluded[ti];
  const double ei = excluded_atom ? 0.0 : x[0] + m.bias[ti];
  if (tid == 0) {
    energy_part[0] = ei;
    if (kPerAtom) atom_energy[i] += ei;
  }
  if (excluded_atom) {  // the whole block leaves together
    if (tid == 0) atomicAdd(totals, ei);
    return;
  }
  // Backward through the fitting net: g holds d E / d(layer output).
  double* g = bufb;
  double* gin = bufa;  // the input is no longer needed
  if (tid == 0) g[0] = 1.0;
  __syncthreads();
  for (int l = fit.layers - 1; l >= 0; --l) {
    const int in = fit.in[l], out = fit.out[l];
    const double* Wl = b.weights + fit.w[l];
    // Gradient at the pre-activation, in place.
    for (int o = tid; o < out; o += blockDim.x) {
      double d = g[o] * activate_derivative(static_cast<Activation>(fit.act[l]), pre[offset[l] + o]);
      if (fit.idt[l] >= 0) d *= b.weights[fit.idt[l] + o];
      pre[offset[l] + o] = d;
    }
    __syncthreads();
    for (int q = tid; q < in; q += blockDim.x) {
      double s = 0;
      for (int o = 0; o < out; ++o) s += Wl[q * out + o] * pre[offset[l] + o];
      if (fit.residual[l] == 1) s += g[q];
      else if (fit.residual[l] == 2) s += g[q] + g[q + in];
      gin[q] = s;
    }
    __syncthreads();
    double* t = g;
    g = gin;
    gin = t;
  }
  // g = dE/d(fitting input); the descriptor part gives dE/dgr.
  for (int q = tid; q < M * 4; q += blockDim.x) {
    const int p = q / 4, c = q % 4;
    double s = 0;
    for (int bb = 0; bb < axis; ++bb) s += g[p * axis + bb] * gr[bb * 4 + c];
    if (p < axis)
      for (int aa = 0; aa < M; ++aa) s += g[aa * axis + p] * gr[aa * 4 + c];
    ggr[q] = s / nnei;
  }
  __syncthreads();
  double fi[3] = {0, 0, 0}, vir[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int slot = tid; slot < nnei; slot += blockDim.x) {
    const long at = base + slot;
    const int j = b.nlist[at];
    if (j < 0) continue;
    const double* G = b.g + at * M;
    const double* dG = b.dg + at * M;
    const double* rh = b.rhat + at * 4;
    double grh[4] = {0, 0, 0, 0};
    for (int q = 0; q < M; ++q) {
      const double gq0 = ggr[q * 4], gq1 = ggr[q * 4 + 1], gq2 = ggr[q * 4 + 2], gq3 = ggr[q * 4 + 3];
      grh[0] += gq0 * G[q] + (gq0 * rh[0] + gq1 * rh[1] + gq2 * rh[2] + gq3 * rh[3]) * dG[q];
      grh[1] += gq1 * G[q];
      grh[2] += gq2 * G[q];
      grh[3] += gq3 * G[q];
    }
    double gd[3] = {0, 0, 0};
    for (int c = 0; c < 4; ++c)
      for (int q = 0; q < 3; ++q) gd[q] += grh[c] * b.drhat[(at * 4 + c) * 3 + q];
    atomicAdd(a.fx + j, -gd[0]);
    atomicAdd(a.fy + j, -gd[1]);
    atomicAdd(a.fz + j, -gd[2]);
    for (int q = 0; q < 3; ++q) fi[q] += gd[q];
    const double* dd = b.disp + at * 3;
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) {
        const double v = -gd[p] * dd[q];
        vir[p * 3 + q] += v;
        if (kPerAtom) atomicAdd(atom_virial + static_cast<long>(p * 3 + q) * a.n + j, v);
      }
  }
  atomicAdd(a.fx + i, fi[0]);
  atomicAdd(a.fy + i, fi[1]);
  atomicAdd(a.fz + i, fi[2]);
  for (int c = 0; c < 9; ++c) atomicAdd(&energy_part[1 + c], vir[c]);
  __syncthreads();
  if (tid < 10) atomicAdd(totals + tid, energy_part[tid]);
}

}  // namespace

void deep_potential_cuda(const GpuBuffers& b, const GpuModel& hm, AtomsRef atoms, const NeighborRef& list,
                         double* totals, double* atom_energy, double* atom_virial) {
  const int n = atoms.n;
  if (n == 0) return;
  if (hm.nnei > kMaxSlots) throw Error("deepmd on the GPU: sum(sel) above 1024 is not supported yet");
  QUASAR_CUDA_CHECK(cudaMemsetAsync(atoms.fx, 0, n * sizeof(double)));
  QUASAR_CUDA_CHECK(cudaMemsetAsync(atoms.fy, 0, n * sizeof(double)));
  QUASAR_CUDA_CHECK(cudaMemsetAsync(atoms.fz, 0, n * sizeof(double)));
  QUASAR_CUDA_CHECK(cudaMemsetAsync(totals, 0, 10 * sizeof(double)));
  environment_kernel<<<grid_for(n, kBlock), kBlock>>>(b, atoms, list);
  QUASAR_LAUNCH_CHECK("dp environment_kernel");
  const long slots = static_cast<long>(n) * hm.nnei;
  embedding_kernel<<<grid_for(slots, kBlock), kBlock>>>(b, atoms);
  QUASAR_LAUNCH_CHECK("dp embedding_kernel");
  const std::size_t shm =
      sizeof(double) * (8 * static_cast<std::size_t>(hm.m) + 2 * static_cast<std::size_t>(hm.max_width + hm.fit_outputs));
  if (atom_energy) {
    QUASAR_CUDA_CHECK(cudaMemsetAsync(atom_energy, 0, n * sizeof(double)));
    QUASAR_CUDA_CHECK(cudaMemsetAsync(atom_virial, 0, 9 * static_cast<std::size_t>(n) * sizeof(double)));
    QUASAR_CUDA_CHECK(cudaFuncSetAttribute(atom_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shm)));
    atom_kernel<true><<<n, kBlock, shm>>>(b, atoms, totals, atom_energy, atom_virial);
  } else {
    QUASAR_CUDA_CHECK(cudaFuncSetAttribute(atom_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shm)));
    atom_kernel<false><<<n, kBlock, shm>>>(b, atoms, totals, nullptr, nullptr);
  }
  QUASAR_LAUNCH_CHECK("dp atom_kernel");
}

}  // namespace quasar::dp
