// GpuJacobians (gpu_jacobians.hpp): the rows of an update gathered per element on the GPU, the
// element's network forward with tangents and back through nn/dual_layers.cuh.
#include <cublas_v2.h>

#include <algorithm>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/nn/dual_layers.cuh"
#include "quasar/potential/nnp/train/gpu_jacobians.hpp"

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

// T[r][f] = scale[f] sum_m along[m] D[off[m] + f] over the row's moving neighbours m: the inputs'
// derivative along the atom's displacement, from the kept derivatives of the symmetry functions.
__global__ void tangent_kernel(long rows, int nf, const int* begin, const long* off, const double* along,
                               const double* d_all, const double* scale, double* T) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= rows * nf) return;
  const long r = e / nf;
  const int f = static_cast<int>(e % nf);
  double sum = 0;
  for (int m = begin[r]; m < begin[r + 1]; ++m) sum += along[m] * d_all[off[m] + f];
  T[e] = scale[f] * sum;
}

// g = [a (rows values); b (rows values)]: the reverse pass's start at a one-output network.
__global__ void halves_kernel(long rows, double a, double b, double* g) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e < 2 * rows) g[e] = e < rows ? a : b;
}

__global__ void add_scaled_kernel(long n, const double* src, double factor, double* dst) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e < n) dst[e] += factor * src[e];
}

__global__ void scale_kernel(long n, double factor, double* x) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e < n) x[e] *= factor;
}

}  // namespace

struct GpuJacobians::Impl {
  cublasHandle_t cublas = nullptr;
  struct Element {
    nn::Network net;               // shapes and activations
    std::vector<long> w_at, b_at;  // each layer's weights and biases in the element's block
    std::vector<double> factors;   // per layer: d(layer weight) / d(file weight)
    long offset = 0, count = 0;    // the element's block in the combined order
    int inputs = 0;
    Array<double> scale{Backend::Cuda};  // input scale / conv_length
  };
  std::vector<Element> elements;
  Array<double> params{Backend::Cuda}, grads{Backend::Cuda};
  // Every atom's inputs and derivatives; per structure where each atom's start.
  Array<double> x_all{Backend::Cuda}, d_all{Backend::Cuda};
  long x_used = 0, d_used = 0;
  struct Meta {
    std::vector<int> element;
    std::vector<long> x_at, d_at;
    std::vector<std::vector<int>> neighbors;
  };
  std::vector<std::unique_ptr<Meta>> structures;
  // Scratch of one call.
  Array<double> trace{Backend::Cuda}, out{Backend::Cuda}, along{Backend::Cuda};
  Array<long> row_x{Backend::Cuda}, off{Backend::Cuda};
  Array<int> begin{Backend::Cuda};
  nn::DualScratch<double> scratch;

  nn::DualNet<double> dual_net(int e) {
    const Element& el = elements[e];
    nn::DualNet<double> d;
    for (std::size_t l = 0; l < el.net.layers.size(); ++l) {
      const nn::Layer& L = el.net.layers[l];
      auto over = [&](double* base) -> nn::LayerRef<double, double> {
        double* w = base + el.offset + el.w_at[l];
        return {L.in, L.out, 0, L.act, w, w, base + el.offset + el.b_at[l], nullptr};
      };
      d.layers.push_back(over(params.data()));
      d.grads.push_back(over(grads.data()));
    }
    return d;
  }

  // Runs element e over `rows` rows whose inputs and tangents are in the trace's first block; returns
  // the sum of the outputs (tangent = false) or of their tangents, and with `reverse` adds the
  // gradient of that sum times `sign` to grads.
  double run(int e, long rows, bool tangent, double sign, bool reverse) {
    const nn::DualNet<double> net = dual_net(e);
    double* o = nn::grow(out, static_cast<std::size_t>(2 * rows));
    nn::dual_forward(cublas, net, rows, trace.data(), o);
    std::vector<double> y(static_cast<std::size_t>(2 * rows));
    out.download(y.data(), y.size());
    double sum = 0;
    for (long r = 0; r < rows; ++r) sum += y[static_cast<std::size_t>((tangent ? rows : 0) + r)];
    if (reverse) {
      const std::size_t wide = static_cast<std::size_t>(2 * rows * net.max_width());
      nn::grow(scratch.ga, wide);
      nn::grow(scratch.gb, wide);
      halves_kernel<<<grid(2 * rows), kBlock>>>(rows, tangent ? 0.0 : sign, tangent ? sign : 0.0, scratch.ga.data());
      QUASAR_LAUNCH_CHECK("halves_kernel");
      nn::dual_backward(cublas, net, rows, trace.data(), scratch, true, false);
    }
    return sum;
  }

  // grads (each layer times its factor) added to the Jacobian.
  void add_gradient(double* jacobian) {
    for (const Element& el : elements)
      for (std::size_t l = 0; l < el.net.layers.size(); ++l) {
        const nn::Layer& L = el.net.layers[l];
        const long n = static_cast<long>(L.in) * L.out + L.out, at = el.offset + el.w_at[l];
        add_scaled_kernel<<<grid(n), kBlock>>>(n, grads.data() + at, el.factors[l], jacobian + at);
        QUASAR_LAUNCH_CHECK("add_scaled_kernel");
      }
  }
};

GpuJacobians::GpuJacobians(const TrainingNetworks& nets) : impl_(std::make_unique<Impl>()) {
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
  impl_->grads.resize(static_cast<std::size_t>(nets.parameter_count()));
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
  // Grow keeping what is there (Array::resize copies on the device).
  if (static_cast<std::size_t>(m.x_used + nx) > m.x_all.size()) m.x_all.resize(static_cast<std::size_t>(m.x_used + nx));
  if (static_cast<std::size_t>(m.d_used + nd) > m.d_all.size()) m.d_all.resize(static_cast<std::size_t>(m.d_used + nd));
  for (std::size_t i = 0; i < t.size(); ++i) {
    meta->x_at.push_back(m.x_used);
    meta->d_at.push_back(m.d_used);
    m.x_all.upload(in.x[i].data(), in.x[i].size(), static_cast<std::size_t>(m.x_used));
    m.d_all.upload(in.derivatives[i].data(), in.derivatives[i].size(), static_cast<std::size_t>(m.d_used));
    m.x_used += static_cast<long>(in.x[i].size());
    m.d_used += static_cast<long>(in.derivatives[i].size());
  }
  if (m.structures.size() <= s) m.structures.resize(s + 1);
  m.structures[s] = std::move(meta);
}

double GpuJacobians::energy(std::size_t s, double* jacobian) {
  Impl& m = *impl_;
  const Impl::Meta& t = *m.structures.at(s);
  if (jacobian) m.grads.set_zero();
  double energy = 0;
  for (int e = 0; e < static_cast<int>(m.elements.size()); ++e) {
    std::vector<long> rows_x;
    for (std::size_t i = 0; i < t.element.size(); ++i)
      if (t.element[i] == e) rows_x.push_back(t.x_at[i]);
    const long rows = static_cast<long>(rows_x.size());
    if (rows == 0) continue;
    const int nf = m.elements[e].inputs;
    nn::grow(m.trace, static_cast<std::size_t>(m.dual_net(e).trace_size(rows)));
    m.row_x.assign(rows_x);
    gather_kernel<<<grid(rows * nf), kBlock>>>(rows, nf, m.row_x.data(), m.x_all.data(), m.trace.data());
    QUASAR_LAUNCH_CHECK("gather_kernel");
    device::fill_zero(m.trace.data() + rows * nf, sizeof(double) * static_cast<std::size_t>(rows * nf));
    energy += m.run(e, rows, false, 1.0, jacobian != nullptr);
  }
  if (jacobian) m.add_gradient(jacobian);
  return energy;
}

double GpuJacobians::force(std::size_t s, int a, int c, double* jacobian) {
  Impl& m = *impl_;
  const Impl::Meta& t = *m.structures.at(s);
  if (jacobian) m.grads.set_zero();
  std::vector<int> centres = t.neighbors[a];
  centres.push_back(a);
  std::sort(centres.begin(), centres.end());
  centres.erase(std::unique(centres.begin(), centres.end()), centres.end());
  double force = 0;
  for (int e = 0; e < static_cast<int>(m.elements.size()); ++e) {
    const int nf = m.elements[e].inputs;
    std::vector<long> rows_x, off;
    std::vector<int> begin{0};
    std::vector<double> along;
    for (int i : centres) {
      if (t.element[i] != e) continue;
      rows_x.push_back(t.x_at[i]);
      const std::vector<int>& nb = t.neighbors[i];
      for (std::size_t k = 0; k < nb.size(); ++k) {
        // d_k = r_k - r_i moves by e_c when k is atom a, by -e_c when the centre is.
        const int dir = (nb[k] == a ? 1 : 0) - (i == a ? 1 : 0);
        if (dir == 0) continue;
        off.push_back(t.d_at[i] + (3 * static_cast<long>(k) + c) * nf);
        along.push_back(dir);
      }
      begin.push_back(static_cast<int>(off.size()));
    }
    const long rows = static_cast<long>(rows_x.size());
    if (rows == 0) continue;
    nn::grow(m.trace, static_cast<std::size_t>(m.dual_net(e).trace_size(rows)));
    m.row_x.assign(rows_x);
    m.begin.assign(begin);
    m.off.assign(off);
    m.along.assign(along);
    gather_kernel<<<grid(rows * nf), kBlock>>>(rows, nf, m.row_x.data(), m.x_all.data(), m.trace.data());
    QUASAR_LAUNCH_CHECK("gather_kernel");
    tangent_kernel<<<grid(rows * nf), kBlock>>>(rows, nf, m.begin.data(), m.off.data(), m.along.data(), m.d_all.data(),
                                                m.elements[e].scale.data(), m.trace.data() + rows * nf);
    QUASAR_LAUNCH_CHECK("tangent_kernel");
    force -= m.run(e, rows, true, -1.0, jacobian != nullptr);
  }
  if (jacobian) m.add_gradient(jacobian);
  return force;
}

void GpuJacobians::scale(double* x, long n, double factor) {
  if (n == 0) return;
  scale_kernel<<<grid(n), kBlock>>>(n, factor, x);
  QUASAR_LAUNCH_CHECK("scale_kernel");
}

}  // namespace quasar::nnp
