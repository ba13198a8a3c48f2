#include "quasar/potential/dp/deep_potential.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/environment.hpp"

namespace quasar::dp {

namespace {

// Per-atom working state of the descriptor and its gradient.
struct AtomWork {
  std::vector<Slot> slots;
  std::vector<double> rhat, G, dG;  // nnei x 4, nnei x M, nnei x M
  std::vector<double> gr, D;        // M x 4, M x axis
};

}  // namespace

DeepPotential::DeepPotential(DpModel model) : model_(std::move(model)) {
  if (model_.compressed) tables_ = std::make_shared<EmbeddingTables>(build_tables(model_.descriptor, model_.compression));
}

DeepPotential DeepPotential::from_file(const std::string& path) { return DeepPotential(read_dp_model(path)); }

void DeepPotential::set_fparam(std::vector<double> f) {
  if (static_cast<int>(f.size()) != model_.numb_fparam)
    throw Error("deepmd: the model takes " + std::to_string(model_.numb_fparam) + " frame parameters, got " +
                std::to_string(f.size()));
  fparam_ = std::move(f);
  extra_dirty_ = true;
}

void DeepPotential::set_aparam(std::vector<double> a) {
  if (model_.numb_aparam == 0 || a.size() % model_.numb_aparam != 0)
    throw Error("deepmd: the model takes " + std::to_string(model_.numb_aparam) + " atomic parameters per atom, got " +
                std::to_string(a.size()) + " values");
  aparam_ = std::move(a);
  extra_dirty_ = true;
}

void DeepPotential::set_precision(Precision p, long chunk_atoms) {
  precision_ = p;
  chunk_atoms_ = chunk_atoms;
  gpu_.reset();
}

void DeepPotential::compute_gpu(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out) {
  const int n = atoms.size();
  check_parameters(n);
  if (!gpu_) {
    gpu_ = std::make_unique<GpuEvaluator>(model_, tables_.get(), precision_, chunk_atoms_);
    extra_dirty_ = true;
  }
  if (gpu_mtype_.empty()) gpu_mtype_.assign(model_type_);
  const int extra = model_.numb_fparam + model_.numb_aparam;
  if (extra > 0 && extra_dirty_) {
    // Normalised parameters per atom id, as the CPU path builds them.
    std::vector<double> e(static_cast<std::size_t>(n) * extra), in;
    for (int id = 0; id < n; ++id) {
      fitting_input({}, id, in);
      std::copy(in.begin(), in.end(), e.begin() + static_cast<long>(id) * extra);
    }
    gpu_->set_extra(e);
    extra_dirty_ = false;
  }
  std::vector<int> count(model_.ntypes(), 0);
  for (std::size_t t = 0; t < model_type_.size(); ++t) count[model_type_[t]] += atoms.local_type_counts()[t];
  // The kernels always sum energy and virial: into this term's totals (zeroed by ForceOutput::begin)
  // when asked for, else into a scratch block zeroed here.
  double* totals = out.term_totals();
  if (!(req.energy || req.virial || req.per_atom)) {
    gpu_totals_.resize(ForceOutput::kTotals);
    gpu_totals_.set_zero();
    totals = gpu_totals_.data();
  }
  gpu_->compute(atoms.ref(), list, gpu_mtype_.data(), count, totals, req.per_atom ? out.atom_energy.data() : nullptr,
                req.per_atom ? out.atom_virial.data() : nullptr, out.deterministic ? &out.fixed : nullptr,
                out.contents == ForceOutput::Contents::Sums);
}

void DeepPotential::check_parameters(int atoms) const {
  if (static_cast<int>(fparam_.size()) != model_.numb_fparam)
    throw Error("deepmd: the model needs " + std::to_string(model_.numb_fparam) + " frame parameters (fparam)");
  if (model_.numb_aparam > 0 && aparam_.size() != static_cast<std::size_t>(model_.numb_aparam) &&
      aparam_.size() != static_cast<std::size_t>(atoms) * model_.numb_aparam)
    throw Error("deepmd: the model needs " + std::to_string(model_.numb_aparam) + " atomic parameters (aparam) per atom");
}

void DeepPotential::bind_types(const std::vector<std::string>& names) {
  gpu_mtype_.resize(0);  // re-uploaded at the next GPU evaluation
  model_type_.clear();
  for (const auto& n : names) {
    auto it = std::find(model_.type_map.begin(), model_.type_map.end(), n);
    if (it == model_.type_map.end()) {
      std::string known;
      for (const auto& t : model_.type_map) known += " " + t;
      throw Error("deepmd: atom type '" + n + "' is not in the model's type_map (" + known + " )");
    }
    model_type_.push_back(static_cast<int>(it - model_.type_map.begin()));
  }
}

namespace {

// Descriptor of atom i (centre model type ti) into w.D, keeping what the gradient needs.
// The embedding net runs exactly, or through its table when the model is compressed.
void descriptor(const DpModel& model, const EmbeddingTables* tab, int ti, AtomWork& w) {
  const SeE2A& de = model.descriptor;
  const int nnei = de.nnei(), M = de.m(), axis = de.axis_neuron, nt = model.ntypes();
  w.rhat.assign(static_cast<std::size_t>(nnei) * 4, 0.0);
  w.G.assign(static_cast<std::size_t>(nnei) * M, 0.0);
  w.dG.assign(static_cast<std::size_t>(nnei) * M, 0.0);
  w.gr.assign(static_cast<std::size_t>(M) * 4, 0.0);
  std::vector<double> y(M), dy(M);
  int slot = 0;
  for (int t = 0; t < nt; ++t)
    for (int s = 0; s < de.sel[t]; ++s, ++slot) {
      const std::size_t off = (static_cast<std::size_t>(ti) * nnei + slot) * 4;
      const bool excluded = w.slots[slot].j >= 0 && de.excluded[ti * nt + t];
      for (int c = 0; c < 4; ++c)
        w.rhat[slot * 4 + c] = excluded ? 0.0 : (w.slots[slot].R[c] - de.davg[off + c]) / de.dstd[off + c];
      if (tab) tab->eval(de.type_one_side ? t : ti + t * nt, w.rhat[slot * 4], y.data(), dy.data());
      else de.embedding(ti, t, nt).forward_scalar(w.rhat[slot * 4], y, dy);
      for (int a = 0; a < M; ++a) {
        w.G[static_cast<std::size_t>(slot) * M + a] = y[a];
        w.dG[static_cast<std::size_t>(slot) * M + a] = dy[a];
        for (int c = 0; c < 4; ++c) w.gr[a * 4 + c] += y[a] * w.rhat[slot * 4 + c];
      }
    }
  for (double& g : w.gr) g /= nnei;
  w.D.assign(static_cast<std::size_t>(M) * axis, 0.0);
  for (int a = 0; a < M; ++a)
    for (int b = 0; b < axis; ++b) {
      double s = 0;
      for (int c = 0; c < 4; ++c) s += w.gr[a * 4 + c] * w.gr[b * 4 + c];
      w.D[a * axis + b] = s;
    }
}

}  // namespace

DeepPotential::Intermediates DeepPotential::intermediates(AtomState& atoms, const NeighborRef& list) {
  if (atoms.backend() != Backend::Cpu) throw Error("deepmd intermediates: CPU only");
  if (model_type_.size() != static_cast<std::size_t>(atoms.num_types())) bind_types(atoms.type_names());
  const AtomsRef a = atoms.ref();
  check_parameters(a.n);
  Intermediates out;
  AtomWork w;
  nn::Network::Trace trace;
  std::vector<double> in;
  for (int i = 0; i < a.n; ++i) {
    const int ti = model_type_[a.type[i]];
    environment(model_, a, list, model_type_, i, w.slots);
    descriptor(model_, tables_.get(), ti, w);
    out.descriptor.insert(out.descriptor.end(), w.D.begin(), w.D.end());
    fitting_input(w.D, a.id[i], in);
    model_.fitting[ti].forward(in.data(), trace);
    const auto& ll = trace.acts[trace.acts.size() - 2];
    out.fit_ll.insert(out.fit_ll.end(), ll.begin(), ll.end());
  }
  return out;
}

// Descriptor, then the normalised frame and atomic parameters of atom `id`.
void DeepPotential::fitting_input(const std::vector<double>& d, long id, std::vector<double>& in) const {
  in.assign(d.begin(), d.end());
  for (int p = 0; p < model_.numb_fparam; ++p) in.push_back((fparam_[p] - model_.fparam_avg[p]) * model_.fparam_inv_std[p]);
  for (int p = 0; p < model_.numb_aparam; ++p) {
    const std::size_t at = aparam_.size() == static_cast<std::size_t>(model_.numb_aparam)
                               ? p
                               : static_cast<std::size_t>(id) * model_.numb_aparam + p;
    in.push_back((aparam_[at] - model_.aparam_avg[p]) * model_.aparam_inv_std[p]);
  }
}

void DeepPotential::compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) {
  const NeighborRef& list = lists[0];
  if (model_type_.size() != static_cast<std::size_t>(atoms.num_types())) bind_types(atoms.type_names());
  if (atoms.backend() == Backend::Cuda) {
    compute_gpu(atoms, list, req, out);
    return;
  }
  if (precision_ != Precision::Double)
    throw Error(std::string("deepmd: precision ") + precision_name(precision_) + " is for the GPU; the CPU evaluates in double");
  const SeE2A& de = model_.descriptor;
  const int nnei = de.nnei(), M = de.m(), axis = de.axis_neuron;
  AtomsRef a = atoms.ref();
  const std::size_t n = static_cast<std::size_t>(a.n);
  double energy = 0, wsum[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  AtomWork w;
  nn::Network::Trace trace;
  check_parameters(a.n);
  std::vector<double> fit_in, gD(static_cast<std::size_t>(M) * axis + model_.numb_fparam + model_.numb_aparam),
      ggr(static_cast<std::size_t>(M) * 4);
  for (int i = 0; i < a.n; ++i) {
    if (a.id[i] >= a.n_local) continue;  // a ghost: neighbour only
    const int ti = model_type_[a.type[i]];
    environment(model_, a, list, model_type_, i, w.slots);
    descriptor(model_, tables_.get(), ti, w);
    const nn::Network& fit = model_.fitting[ti];
    fitting_input(w.D, a.id[i], fit_in);
    fit.forward(fit_in.data(), trace);
    if (model_.atom_excluded[ti]) continue;  // no energy, no force from this centre
    const double ei = trace.acts.back()[0] + model_.bias_atom_e[ti] + model_.out_bias[ti];
    energy += ei;
    if (req.per_atom) out.atom_energy[i] += ei;
    // Backward: energy -> descriptor -> gr -> (R_hat, G) -> R -> displacements.
    const double one = 1.0;
    fit.backward(trace, &one, gD.data());
    for (int p = 0; p < M; ++p)
      for (int c = 0; c < 4; ++c) {
        double s = 0;
        for (int b = 0; b < axis; ++b) s += gD[p * axis + b] * w.gr[b * 4 + c];
        if (p < axis)
          for (int q = 0; q < M; ++q) s += gD[q * axis + p] * w.gr[q * 4 + c];
        ggr[p * 4 + c] = s / nnei;
      }
    for (int slot = 0; slot < nnei; ++slot) {
      const Slot& sl = w.slots[slot];
      if (sl.j < 0 || de.excluded[ti * model_.ntypes() + model_type_[a.type[sl.j]]]) continue;  // fixed rows
      const double* G = &w.G[static_cast<std::size_t>(slot) * M];
      const double* dG = &w.dG[static_cast<std::size_t>(slot) * M];
      const double* rh = &w.rhat[slot * 4];
      double grh[4] = {0, 0, 0, 0};
      for (int c = 0; c < 4; ++c)
        for (int q = 0; q < M; ++q) grh[c] += ggr[q * 4 + c] * G[q];
      for (int q = 0; q < M; ++q) {
        double gG = 0;
        for (int c = 0; c < 4; ++c) gG += ggr[q * 4 + c] * rh[c];
        grh[0] += gG * dG[q];
      }
      const std::size_t off = (static_cast<std::size_t>(ti) * nnei + slot) * 4;
      double gd[3] = {0, 0, 0};  // dE/dd
      for (int c = 0; c < 4; ++c) {
        const double gR = grh[c] / de.dstd[off + c];
        for (int m = 0; m < 3; ++m) gd[m] += gR * sl.dR[c][m];
      }
      const int j = sl.j;
      a.fx[j] -= gd[0];
      a.fy[j] -= gd[1];
      a.fz[j] -= gd[2];
      a.fx[i] += gd[0];
      a.fy[i] += gd[1];
      a.fz[i] += gd[2];
      const double dd[3] = {sl.d.x, sl.d.y, sl.d.z};
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          // DeePMD-kit's convention: -(dE/dd)_p d_q, given to the neighbour. Summed over atoms it
          // equals the symmetric total virial.
          const double v = -gd[p] * dd[q];
          wsum[p * 3 + q] += v;
          if (req.per_atom) out.atom_virial[(p * 3 + q) * n + j] += v;
        }
    }
  }
  double* totals = out.term_totals();
  totals[0] += energy;
  for (int c = 0; c < 9; ++c) totals[1 + c] += wsum[c];
}

}  // namespace quasar::dp
