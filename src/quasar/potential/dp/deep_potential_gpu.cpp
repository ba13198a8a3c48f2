#include "quasar/potential/dp/deep_potential_gpu.hpp"

#include "quasar/potential/dp/deep_potential.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"

namespace quasar::dp {

namespace {
GpuNet flatten_net(const Network& n, std::vector<double>& weights) {
  GpuNet g{};
  if (n.layers.size() > kGpuMaxLayers) throw Error("deepmd on the GPU: at most 8 layers per network");
  g.layers = static_cast<int>(n.layers.size());
  for (int l = 0; l < g.layers; ++l) {
    const Layer& L = n.layers[l];
    if (L.in > kGpuMaxWidth * 8 || L.out > kGpuMaxWidth) throw Error("deepmd on the GPU: layers up to 256 wide");
    g.in[l] = L.in;
    g.out[l] = L.out;
    g.residual[l] = L.residual();
    g.act[l] = static_cast<int>(L.act);
    g.w[l] = static_cast<long>(weights.size());
    weights.insert(weights.end(), L.w.begin(), L.w.end());
    g.b[l] = static_cast<long>(weights.size());
    weights.insert(weights.end(), L.b.begin(), L.b.end());
    g.idt[l] = -1;
    if (!L.idt.empty()) {
      g.idt[l] = static_cast<long>(weights.size());
      weights.insert(weights.end(), L.idt.begin(), L.idt.end());
    }
  }
  return g;
}
}  // namespace

void flatten_model(const DpModel& model, GpuModel& g, std::vector<double>& weights) {
  const SeE2A& de = model.descriptor;
  const int nt = model.ntypes();
  if (nt > kGpuMaxTypes) throw Error("deepmd on the GPU: at most 8 atom types");
  g = GpuModel{};
  g.ntypes = nt;
  g.nnei = de.nnei();
  g.m = de.m();
  g.axis = de.axis_neuron;
  g.extra = model.numb_fparam + model.numb_aparam;
  g.fit_in = g.m * g.axis + g.extra;
  g.rcut = de.rcut;
  g.rcut_smth = de.rcut_smth;
  g.env_protection = de.env_protection;
  g.type_one_side = de.type_one_side ? 1 : 0;
  g.sec[0] = 0;
  for (int t = 0; t < nt; ++t) {
    g.sel[t] = de.sel[t];
    g.sec[t + 1] = g.sec[t] + de.sel[t];
    g.bias[t] = model.bias_atom_e[t] + model.out_bias[t];
    g.atom_excluded[t] = model.atom_excluded[t];
    for (int u = 0; u < nt; ++u) {
      g.excluded[t * nt + u] = de.excluded[t * nt + u];
      g.pair_excluded[t * nt + u] = model.pair_excluded[t * nt + u];
    }
  }
  if (g.m > kGpuMaxWidth) throw Error("deepmd on the GPU: embedding width up to 256");
  for (std::size_t k = 0; k < de.embeddings.size(); ++k) g.emb[k] = flatten_net(de.embeddings[k], weights);
  g.max_width = g.fit_in;
  g.fit_outputs = 0;
  for (int t = 0; t < nt; ++t) {
    g.fit[t] = flatten_net(model.fitting[t], weights);
    int sum = 0;
    for (const Layer& L : model.fitting[t].layers) {
      g.max_width = std::max({g.max_width, L.in, L.out});
      sum += L.out;
    }
    g.fit_outputs = std::max(g.fit_outputs, sum);
  }
}

void DeepPotential::compute_gpu(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out) {
#ifdef QUASAR_HAVE_CUDA
  const int n = atoms.size();
  check_parameters(n);
  if (!gpu_ready_) {
    std::vector<double> weights;
    flatten_model(model_, gpu_host_, weights);
    gpu_model_.assign({gpu_host_});
    gpu_weights_.assign(weights);
    gpu_davg_.assign(model_.descriptor.davg);
    gpu_dstd_.assign(model_.descriptor.dstd);
    gpu_mtype_.assign(model_type_);
    gpu_ready_ = true;
    extra_dirty_ = true;
  }
  const int extra = gpu_host_.extra;
  if (extra > 0 && (extra_dirty_ || gpu_extra_.size() != static_cast<std::size_t>(n) * extra)) {
    // Normalised parameters per atom id, as the CPU path builds them.
    std::vector<double> e(static_cast<std::size_t>(n) * extra), in;
    for (int id = 0; id < n; ++id) {
      fitting_input({}, id, in);
      std::copy(in.begin(), in.end(), e.begin() + static_cast<long>(id) * extra);
    }
    gpu_extra_.assign(e);
    extra_dirty_ = false;
  }
  const std::size_t slots = static_cast<std::size_t>(n) * gpu_host_.nnei;
  gpu_nlist_.resize(slots);
  gpu_rhat_.resize(4 * slots);
  gpu_drhat_.resize(12 * slots);
  gpu_disp_.resize(3 * slots);
  gpu_g_.resize(slots * gpu_host_.m);
  gpu_dg_.resize(slots * gpu_host_.m);
  if (req.per_atom) {
    out.atom_energy.resize(n);
    out.atom_virial.resize(9 * static_cast<std::size_t>(n));
  }
  const GpuBuffers b{gpu_model_.data(), gpu_weights_.data(), gpu_davg_.data(), gpu_dstd_.data(), gpu_mtype_.data(),
                     extra > 0 ? gpu_extra_.data() : nullptr, gpu_nlist_.data(), gpu_rhat_.data(), gpu_drhat_.data(),
                     gpu_disp_.data(), gpu_g_.data(), gpu_dg_.data()};
  deep_potential_cuda(b, gpu_host_, atoms.ref(), list, out.totals.data(), req.per_atom ? out.atom_energy.data() : nullptr,
                      req.per_atom ? out.atom_virial.data() : nullptr);
#else
  (void)atoms;
  (void)list;
  (void)req;
  (void)out;
  throw_no_cuda("deepmd on the GPU");
#endif
}

}  // namespace quasar::dp
