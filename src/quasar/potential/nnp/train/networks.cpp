#include "quasar/potential/nnp/train/networks.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/prepared.hpp"

namespace quasar::nnp {

namespace {

// Per thread: the traces and gradients of one evaluation.
struct Work {
  nn::DualTrace trace;
  std::vector<double> y, dy, dx, dG, t, grad;
  std::vector<char> moving;
  std::vector<nn::NetworkGrad> grads;
  nn::Network::Trace plain;
};
Work& work() {
  thread_local Work w;
  return w;
}

}  // namespace

TrainingNetworks::TrainingNetworks(const Model& model, double conv_length)
    : descriptor_(model, 1.0), inv_length_(1.0 / conv_length) {
  const PreparedModel p = prepare(model);
  offsets_.push_back(0);
  for (std::size_t e = 0; e < p.elements.size(); ++e) {
    nets_.push_back(p.elements[e].net);
    scale_.push_back(p.elements[e].scale);
    shift_.push_back(p.elements[e].shift);
    std::vector<double> norm;
    for (const nn::Layer& l : nets_.back().layers) norm.push_back(model.normalize_nodes ? 1.0 / l.in : 1.0);
    layer_norm_.push_back(norm);
    counts_.push_back(static_cast<long>(model.elements[e].parameter_count()));
    offsets_.push_back(offsets_.back() + counts_.back());
  }
}

std::vector<double> TrainingNetworks::weights() const {
  std::vector<double> w;
  w.reserve(static_cast<std::size_t>(parameter_count()));
  for (std::size_t e = 0; e < nets_.size(); ++e)
    for (std::size_t l = 0; l < nets_[e].layers.size(); ++l) {
      const nn::Layer& L = nets_[e].layers[l];
      for (double v : L.w) w.push_back(v / layer_norm_[e][l]);
      for (double v : L.b) w.push_back(v / layer_norm_[e][l]);
    }
  return w;
}

void TrainingNetworks::set_weights(const double* w) {
  for (std::size_t e = 0; e < nets_.size(); ++e)
    for (std::size_t l = 0; l < nets_[e].layers.size(); ++l) {
      nn::Layer& L = nets_[e].layers[l];
      for (double& v : L.w) v = *w++ * layer_norm_[e][l];
      for (double& v : L.b) v = *w++ * layer_norm_[e][l];
    }
}

void TrainingNetworks::add_gradient(int e, const nn::NetworkGrad& g, double* jacobian) const {
  double* out = jacobian + offsets_[e];
  for (std::size_t l = 0; l < g.w.size(); ++l) {
    const double norm = layer_norm_[e][l];
    for (double v : g.w[l]) *out++ += v * norm;
    for (double v : g.b[l]) *out++ += v * norm;
  }
}

StructureInputs TrainingNetworks::inputs(const TrainingStructure& s, bool derivatives) const {
  StructureInputs in;
  in.neighbors = neighborhood(s, descriptor_.cutoff());
  in.x.resize(s.size());
  if (derivatives) in.derivatives.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int e = s.element[i];
    std::vector<double>& x = in.x[i];
    x.resize(static_cast<std::size_t>(descriptor_.count(e)));
    descriptor_.values(e, in.neighbors.entries[i], x.data());
    for (std::size_t f = 0; f < x.size(); ++f) x[f] = scale_[e][f] * x[f] + shift_[e][f];
    if (!derivatives) continue;
    in.derivatives[i].resize(3 * in.neighbors.entries[i].size() * x.size());
    descriptor_.jacobian(e, in.neighbors.entries[i], in.derivatives[i].data());
  }
  return in;
}

double TrainingNetworks::energy(const TrainingStructure& s, const StructureInputs& in, double* jacobian) const {
  Work& w = work();
  double energy = 0;
  if (jacobian) {
    w.grads.resize(nets_.size());
    for (std::size_t e = 0; e < nets_.size(); ++e) w.grads[e].zero_like(nets_[e]);
  }
  const double one = 1, zero = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int e = s.element[i];
    const nn::Network& net = nets_[e];
    if (!jacobian) {
      net.forward(in.x[i].data(), w.plain);
      energy += w.plain.acts.back()[0];
      continue;
    }
    w.dx.assign(in.x[i].size(), 0.0);
    nn::dual_forward(net, in.x[i].data(), w.dx.data(), w.trace, w.y, w.dy);
    energy += w.y[0];
    nn::dual_backward(net, w.trace, &one, &zero, w.grads[e], nullptr, nullptr);
  }
  if (jacobian)
    for (std::size_t e = 0; e < nets_.size(); ++e) add_gradient(static_cast<int>(e), w.grads[e], jacobian);
  return energy;
}

double TrainingNetworks::force(const TrainingStructure& s, const StructureInputs& in, int a, int c,
                               double* jacobian) const {
  Work& w = work();
  if (jacobian) {
    w.grads.resize(nets_.size());
    for (std::size_t e = 0; e < nets_.size(); ++e) w.grads[e].zero_like(nets_[e]);
  }
  // The centres that see atom a move: a itself and its neighbours (the relation is symmetric).
  std::vector<int> centres = in.neighbors.atoms[a];
  centres.push_back(a);
  std::sort(centres.begin(), centres.end());
  centres.erase(std::unique(centres.begin(), centres.end()), centres.end());
  double force = 0;
  const double zero = 0, minus_one = -1;
  for (int i : centres) {
    const int e = s.element[i];
    const std::vector<NeighborEntry>& nb = in.neighbors.entries[i];
    const std::vector<int>& atoms = in.neighbors.atoms[i];
    const std::size_t n = nb.size();
    w.t.assign(3 * n, 0.0);
    w.moving.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      // d_k = r_k - r_i moves by e_c when k is atom a, by -e_c when the centre is.
      const int along = (atoms[k] == a ? 1 : 0) - (i == a ? 1 : 0);
      if (along == 0) continue;
      w.t[3 * k + c] = along;
      w.moving[k] = 1;
    }
    const int nf = descriptor_.count(e);
    w.dG.resize(static_cast<std::size_t>(nf));
    if (in.derivatives.empty()) {
      descriptor_.tangent(e, nb, w.t.data(), w.moving.data(), w.dG.data());
    } else {
      std::fill(w.dG.begin(), w.dG.end(), 0.0);
      for (std::size_t k = 0; k < n; ++k) {
        if (!w.moving[k]) continue;
        const double along = w.t[3 * k + c];
        const double* d = &in.derivatives[i][(3 * k + c) * static_cast<std::size_t>(nf)];
        for (int f = 0; f < nf; ++f) w.dG[f] += along * d[f];
      }
    }
    w.dx.resize(w.dG.size());
    for (int f = 0; f < nf; ++f) w.dx[f] = scale_[e][f] * w.dG[f] * inv_length_;
    nn::dual_forward(nets_[e], in.x[i].data(), w.dx.data(), w.trace, w.y, w.dy);
    force -= w.dy[0];
    if (jacobian) nn::dual_backward(nets_[e], w.trace, &zero, &minus_one, w.grads[e], nullptr, nullptr);
  }
  if (jacobian)
    for (std::size_t e = 0; e < nets_.size(); ++e) add_gradient(static_cast<int>(e), w.grads[e], jacobian);
  return force;
}

double TrainingNetworks::energy_and_forces(const TrainingStructure& s, const StructureInputs& in,
                                           std::vector<double>& forces) const {
  Work& w = work();
  forces.assign(3 * s.size(), 0.0);
  double energy = 0;
  const double one = 1;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int e = s.element[i];
    const nn::Network& net = nets_[e];
    net.forward(in.x[i].data(), w.plain);
    energy += w.plain.acts.back()[0];
    w.dx.resize(in.x[i].size());
    net.backward(w.plain, &one, w.dx.data());
    // dE*/dG in the training length unit.
    for (std::size_t f = 0; f < w.dx.size(); ++f) w.dx[f] *= scale_[e][f] * inv_length_;
    const std::vector<NeighborEntry>& nb = in.neighbors.entries[i];
    w.grad.assign(3 * nb.size(), 0.0);
    if (in.derivatives.empty()) {
      descriptor_.gradient(e, nb, w.dx.data(), w.grad.data());
    } else {
      const std::size_t nf = w.dx.size();
      for (std::size_t kc = 0; kc < 3 * nb.size(); ++kc) {
        const double* d = &in.derivatives[i][kc * nf];
        double sum = 0;
        for (std::size_t f = 0; f < nf; ++f) sum += w.dx[f] * d[f];
        w.grad[kc] = sum;
      }
    }
    // grad_k = dE/dd_k with d_k = r_k - r_i: the neighbour feels -grad_k, the centre +grad_k.
    for (std::size_t k = 0; k < nb.size(); ++k) {
      const int j = in.neighbors.atoms[i][k];
      for (int m = 0; m < 3; ++m) {
        forces[3 * j + m] -= w.grad[3 * k + m];
        forces[3 * i + m] += w.grad[3 * k + m];
      }
    }
  }
  return energy;
}

}  // namespace quasar::nnp
