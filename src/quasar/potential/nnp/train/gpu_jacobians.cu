// GpuJacobians (gpu_jacobians.hpp): the rows of an update gathered per element on the GPU, the
// element's network forward with tangents and back through nn/dual_layers.cuh.
#include <cublas_v2.h>

#include <algorithm>
#include <vector>

#include "quasar/device/grow.hpp"
#include "quasar/core/error.hpp"
#include "quasar/nn/dual_layers.cuh"
#include "quasar/potential/nnp/train/gpu_jacobians_impl.cuh"

namespace quasar::nnp {

namespace {

constexpr int kBlock = 256;
unsigned grid(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// X[r][f] = x_all[row_x[r] + f]: the inputs of the rows' atoms.
__global__ void gather_kernel(long rows, int nf, const long* row_x, const double* x_all, double* X) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= rows * nf) return;
  const long r = e / nf;
  X[e] = x_all[row_x[r] + e % nf];
}

// T[r][f] = scale[f] sum_m +-D[|code[m]| - 1 + f] over the row's moves m (fused::Rows): the inputs'
// derivative along the atom's displacement, from the kept derivatives of the symmetry functions.
__global__ void tangent_kernel(long rows, int nf, const long* begin, const long* code, const double* d_all,
                               const double* scale, double* T) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= rows * nf) return;
  const long r = e / nf;
  const int f = static_cast<int>(e % nf);
  double sum = 0;
  for (long m = begin[r]; m < begin[r + 1]; ++m) sum += code[m] > 0 ? d_all[code[m] - 1 + f] : -d_all[-code[m] - 1 + f];
  T[e] = scale[f] * sum;
}

// g = [a (rows values); b (rows values)]: the reverse pass's start at a one-output network.
__global__ void halves_kernel(long rows, double a, double b, double* g) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e < 2 * rows) g[e] = e < rows ? a : b;
}

// dst[e] += factor[e] src[e] (add = true) or dst[e] = factor[e] src[e].
__global__ void scaled_kernel(long n, const double* src, const double* factor, bool add, double* dst) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e < n) dst[e] = (add ? dst[e] : 0.0) + factor[e] * src[e];
}

__global__ void scale_kernel(long n, double factor, double* x) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e < n) x[e] *= factor;
}

}  // namespace

// Runs element e over `rows` rows whose inputs and tangents are in the trace's first block; returns
// the sum of the outputs (tangent = false) or of their tangents, and with `reverse` adds the
// gradient of that sum times `sign` to grads.
double GpuJacobians::Impl::run(int e, long rows, bool tangent, double sign, bool reverse) {
  const nn::DualNet<double> net = dual_net(e);
  double* o = grow(out, static_cast<std::size_t>(2 * rows));
  nn::dual_forward(cublas, net, rows, trace.data(), o);
  std::vector<double> y(static_cast<std::size_t>(2 * rows));
  out.download(y.data(), y.size());
  double sum = 0;
  for (long r = 0; r < rows; ++r) sum += y[static_cast<std::size_t>((tangent ? rows : 0) + r)];
  if (reverse) {
    const std::size_t wide = static_cast<std::size_t>(2 * rows * net.max_width());
    grow(scratch.ga, wide);
    grow(scratch.gb, wide);
    halves_kernel<<<grid(2 * rows), kBlock>>>(rows, tangent ? 0.0 : sign, tangent ? sign : 0.0, scratch.ga.data());
    QUASAR_LAUNCH_CHECK("halves_kernel");
    nn::dual_backward(cublas, net, rows, trace.data(), scratch, true, false);
  }
  return sum;
}

// grads (each layer times its factor) added to the Jacobian.
void GpuJacobians::Impl::add_gradient(double* jacobian) {
  const long n = static_cast<long>(grads.size());
  scaled_kernel<<<grid(n), kBlock>>>(n, grads.data(), factor.data(), true, jacobian);
  QUASAR_LAUNCH_CHECK("scaled_kernel");
}

namespace {

// The fused kernel's view of element e's network, when the kernel takes it.
bool fused_net(const nn::Network& net, long offset, long count, int inputs, fused::Net& f) {
  const int layers = static_cast<int>(net.layers.size());
  if (layers == 0 || layers > fused::kMaxLayers || net.layers.back().out != 1) return false;
  f.layers = layers;
  f.inputs = inputs;
  f.offset = offset;
  f.count = count;
  long at = 0, accumulators = 0;
  for (int l = 0; l < layers; ++l) {
    const nn::Layer& L = net.layers[l];
    if (L.out > fused::kMaxWidth || !L.idt.empty() || L.residual() != 0) return false;
    f.in[l] = L.in;
    f.out[l] = L.out;
    f.act[l] = L.act;
    f.at[l] = at;
    f.width = std::max(f.width, L.out);
    const long n = static_cast<long>(L.in) * L.out + L.out;
    at += n;
    accumulators += (n + fused::kThreads - 1) / fused::kThreads;
  }
  return accumulators <= fused::kMaxAccumulators;
}

}  // namespace

GpuJacobians::GpuJacobians(const TrainingNetworks& nets, bool fused_kernel) : impl_(std::make_unique<Impl>()) {
  nn::cublas_check(cublasCreate(&impl_->cublas), "cublasCreate");
  for (int e = 0; e < nets.element_count(); ++e) {
    Impl::Element el;
    el.net = nets.network(e);
    el.factors = nets.layer_factors(e);
    el.offset = nets.offset(e);
    el.count = nets.parameter_count(e);
    el.inputs = nets.descriptor().count(e);
    long at = 0;
    for (const nn::Layer& L : el.net.layers) {
      el.w_at.push_back(at);
      el.b_at.push_back(at + static_cast<long>(L.in) * L.out);
      at += static_cast<long>(L.in) * L.out + L.out;
    }
    std::vector<double> scale = nets.input_scale(e);
    for (double& s : scale) s *= nets.inverse_length();
    el.scale.assign(scale);
    impl_->elements.push_back(std::move(el));
  }
  // The fused kernel when every network fits it with at least 8 rows per chunk in 96 kB.
  Impl& m = *impl_;
  constexpr int kSharedBytes = 96 * 1024;
  m.fused = fused_kernel && nets.element_count() <= fused::kMaxElements;
  int per_row = 0;
  for (int e = 0; m.fused && e < nets.element_count(); ++e) {
    const Impl::Element& el = m.elements[e];
    m.fused = fused_net(el.net, el.offset, el.count, el.inputs, m.job.net[e]);
    per_row = std::max(per_row, fused::row_doubles(m.job.net[e]));
  }
  m.job.chunk = m.fused ? std::min(64, kSharedBytes / (8 * per_row)) : 0;
  m.fused = m.fused && m.job.chunk >= 8;
  if (m.fused)
    QUASAR_CUDA_CHECK(cudaFuncSetAttribute(fused::rows_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(sizeof(double)) * per_row * m.job.chunk));
  // The descriptor's tables and the inputs' scale and shift, for inputs computed on the GPU.
  if (nets.element_count() <= kMaxElements) {
    const Descriptor& d = nets.descriptor();
    m.atomic_number.assign(d.atomic_numbers());
    std::vector<double> scale, shift;
    for (int e = 0; e < nets.element_count(); ++e) {
      m.tables.emplace_back().upload(d.plan(e), nets.element_count());
      m.tables.back().tables.atomic_number = m.atomic_number.data();
      m.input_at.push_back(static_cast<int>(scale.size()));
      scale.insert(scale.end(), nets.input_scale(e).begin(), nets.input_scale(e).end());
      shift.insert(shift.end(), nets.input_shift(e).begin(), nets.input_shift(e).end());
    }
    m.input_scale.assign(scale);
    m.input_shift.assign(shift);
  }
  impl_->grads.resize(static_cast<std::size_t>(nets.parameter_count()));
  std::vector<double> factor;
  for (const Impl::Element& el : impl_->elements)
    for (std::size_t l = 0; l < el.net.layers.size(); ++l) {
      const nn::Layer& L = el.net.layers[l];
      factor.insert(factor.end(), static_cast<std::size_t>(L.in) * L.out + L.out, el.factors[l]);
    }
  impl_->factor.assign(factor);
  set_weights(nets);
}

GpuJacobians::~GpuJacobians() {
  if (impl_ && impl_->cublas) cublasDestroy(impl_->cublas);
}

void GpuJacobians::set_weights(const TrainingNetworks& nets) {
  std::vector<double> w;
  w.reserve(static_cast<std::size_t>(nets.parameter_count()));
  for (int e = 0; e < nets.element_count(); ++e)
    for (const nn::Layer& L : nets.network(e).layers) {
      w.insert(w.end(), L.w.begin(), L.w.end());
      w.insert(w.end(), L.b.begin(), L.b.end());
    }
  impl_->params.assign(w);
}

void GpuJacobians::set_weights(const double* combined) {
  const long n = static_cast<long>(impl_->params.size());
  scaled_kernel<<<grid(n), kBlock>>>(n, combined, impl_->factor.data(), false, impl_->params.data());
  QUASAR_LAUNCH_CHECK("scaled_kernel");
}

bool GpuJacobians::has(std::size_t s) const { return s < impl_->structures.size() && impl_->structures[s]; }

void GpuJacobians::add(std::size_t s, const TrainingStructure& t, const StructureInputs& in) {
  if (in.derivatives.size() != t.size()) throw Error("nnp: GPU Jacobians need the kept derivatives of the inputs");
  Impl& m = *impl_;
  auto meta = std::make_unique<Impl::Meta>();
  meta->element = t.element;
  meta->neighbors = in.neighbors.atoms;
  long nx = 0, nd = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    nx += static_cast<long>(in.x[i].size()), nd += static_cast<long>(in.derivatives[i].size());
  // One upload of each array per structure; growing keeps what is there (Array::resize copies on
  // the device and grows by half, so that many structures cost few copies).
  std::vector<double> x, d;
  x.reserve(static_cast<std::size_t>(nx));
  d.reserve(static_cast<std::size_t>(nd));
  for (std::size_t i = 0; i < t.size(); ++i) {
    meta->x_at.push_back(m.x_used + static_cast<long>(x.size()));
    meta->d_at.push_back(m.d_used + static_cast<long>(d.size()));
    x.insert(x.end(), in.x[i].begin(), in.x[i].end());
    d.insert(d.end(), in.derivatives[i].begin(), in.derivatives[i].end());
  }
  m.x_all.resize(static_cast<std::size_t>(m.x_used + nx));
  m.d_all.resize(static_cast<std::size_t>(m.d_used + nd));
  m.x_all.upload(x.data(), x.size(), static_cast<std::size_t>(m.x_used));
  m.d_all.upload(d.data(), d.size(), static_cast<std::size_t>(m.d_used));
  m.x_used += nx;
  m.d_used += nd;
  if (m.structures.size() <= s) m.structures.resize(s + 1);
  m.structures[s] = std::move(meta);
}

// Rows of element e as fused::Rows, laid out in `spec` from `at` on.
double GpuJacobians::Impl::evaluate(std::vector<ElementRows>& rows, bool tangent, double sign, double* jacobian) {
  std::vector<long> host;
  std::vector<std::size_t> at;
  for (const ElementRows& r : rows) {
    at.push_back(host.size());
    host.insert(host.end(), r.row_x.begin(), r.row_x.end());
    host.insert(host.end(), r.begin.begin(), r.begin.end());
    host.insert(host.end(), r.code.begin(), r.code.end());
  }
  spec.assign(host);
  const long* base = spec.data();
  const int ne = static_cast<int>(elements.size());
  if (fused) {
    fused::Job j = job;
    j.tangent = tangent;
    j.reverse = jacobian != nullptr;
    j.sign = sign;
    int used = 0;
    for (int e = 0; e < ne; ++e) {
      const ElementRows& r = rows[e];
      if (r.row_x.empty()) continue;
      const long n = static_cast<long>(r.row_x.size());
      j.net[used] = job.net[e];
      j.rows[used] = {static_cast<int>(n), base + at[e], base + at[e] + n, base + at[e] + 2 * n + 1,
                      elements[e].scale.data()};
      ++used;
    }
    j.elements = used;
    if (used == 0) return 0;
    grow(sums, static_cast<std::size_t>(used));
    int per_row = 0;
    for (int e = 0; e < used; ++e) per_row = std::max(per_row, fused::row_doubles(j.net[e]));
    fused::rows_kernel<<<used, fused::kThreads, sizeof(double) * per_row * j.chunk>>>(
        j, x_all.data(), d_all.data(), params.data(), factor.data(), sums.data(), jacobian);
    QUASAR_LAUNCH_CHECK("fused::rows_kernel");
    std::vector<double> y(static_cast<std::size_t>(used));
    sums.download(y.data(), y.size());
    double sum = 0;
    for (double v : y) sum += v;
    return sum;
  }
  // The GEMM path (networks too large for the fused kernel).
  if (jacobian) grads.set_zero();
  double sum = 0;
  for (int e = 0; e < ne; ++e) {
    const long n = static_cast<long>(rows[e].row_x.size());
    if (n == 0) continue;
    const int nf = elements[e].inputs;
    grow(trace, static_cast<std::size_t>(dual_net(e).trace_size(n)));
    gather_kernel<<<grid(n * nf), kBlock>>>(n, nf, base + at[e], x_all.data(), trace.data());
    QUASAR_LAUNCH_CHECK("gather_kernel");
    if (tangent) {
      tangent_kernel<<<grid(n * nf), kBlock>>>(n, nf, base + at[e] + n, base + at[e] + 2 * n + 1, d_all.data(),
                                                elements[e].scale.data(), trace.data() + n * nf);
      QUASAR_LAUNCH_CHECK("tangent_kernel");
    } else {
      device::fill_zero(trace.data() + n * nf, sizeof(double) * static_cast<std::size_t>(n * nf));
    }
    sum += run(e, n, tangent, sign, jacobian != nullptr);
  }
  if (jacobian) add_gradient(jacobian);
  return sum;
}

double GpuJacobians::energy(std::size_t s, double* jacobian) {
  Impl& m = *impl_;
  const Impl::Meta& t = *m.structures.at(s);
  std::vector<Impl::ElementRows> rows(m.elements.size());
  for (std::size_t i = 0; i < t.element.size(); ++i) {
    Impl::ElementRows& r = rows[static_cast<std::size_t>(t.element[i])];
    r.row_x.push_back(t.x_at[i]);
    r.begin.push_back(0);
  }
  return m.evaluate(rows, false, 1.0, jacobian);
}

double GpuJacobians::force(std::size_t s, int a, int c, double* jacobian) {
  Impl& m = *impl_;
  const Impl::Meta& t = *m.structures.at(s);
  std::vector<int> centres = t.neighbors[a];
  centres.push_back(a);
  std::sort(centres.begin(), centres.end());
  centres.erase(std::unique(centres.begin(), centres.end()), centres.end());
  std::vector<Impl::ElementRows> rows(m.elements.size());
  for (int i : centres) {
    Impl::ElementRows& r = rows[static_cast<std::size_t>(t.element[i])];
    const int nf = m.elements[t.element[i]].inputs;
    r.row_x.push_back(t.x_at[i]);
    const std::vector<int>& nb = t.neighbors[i];
    for (std::size_t k = 0; k < nb.size(); ++k) {
      // d_k = r_k - r_i moves by e_c when k is atom a, by -e_c when the centre is.
      const int dir = (nb[k] == a ? 1 : 0) - (i == a ? 1 : 0);
      if (dir == 0) continue;
      r.code.push_back(dir * (t.d_at[i] + (3 * static_cast<long>(k) + c) * nf + 1));
    }
    r.begin.push_back(static_cast<long>(r.code.size()));
  }
  return -m.evaluate(rows, true, -1.0, jacobian);
}

void GpuJacobians::scale(double* x, long n, double factor) {
  if (n == 0) return;
  scale_kernel<<<grid(n), kBlock>>>(n, factor, x);
  QUASAR_LAUNCH_CHECK("scale_kernel");
}

}  // namespace quasar::nnp
