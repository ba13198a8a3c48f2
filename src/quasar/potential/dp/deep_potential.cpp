#include "quasar/potential/dp/deep_potential.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::dp {

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
    gpu_->set_extra(extra_per_atom(n));  // as the CPU path takes them
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

DeepPotential::Intermediates DeepPotential::intermediates(AtomState& atoms, const NeighborRef& list) {
  if (atoms.backend() != Backend::Cpu) throw Error("deepmd intermediates: CPU only");
  if (model_type_.size() != static_cast<std::size_t>(atoms.num_types())) bind_types(atoms.type_names());
  const AtomsRef a = atoms.ref();
  check_parameters(a.n);
  Intermediates out;
  const nn::Network& fit = model_.fitting.front();
  out.descriptor.assign(static_cast<std::size_t>(a.n) * model_.descriptor.m() * model_.descriptor.axis_neuron, 0.0);
  out.fit_ll.assign(static_cast<std::size_t>(a.n) * fit.layers.back().in, 0.0);
  CpuEvaluator::Outputs o;
  o.descriptor = &out.descriptor;
  o.fit_last_input = &out.fit_ll;
  cpu_evaluator().compute(model_, a, list, model_type_, extra_per_atom(a.n), o);
  return out;
}

CpuEvaluator& DeepPotential::cpu_evaluator() {
  if (!cpu_) cpu_ = std::make_unique<CpuEvaluator>(model_, tables_.get());
  return *cpu_;
}

// The normalised frame and atomic parameters of every atom by input index (empty without any).
std::vector<double> DeepPotential::extra_per_atom(int n) const {
  const int extra = model_.numb_fparam + model_.numb_aparam;
  std::vector<double> e, in;
  if (extra == 0) return e;
  e.resize(static_cast<std::size_t>(n) * extra);
  for (int id = 0; id < n; ++id) {
    fitting_input({}, id, in);
    std::copy(in.begin(), in.end(), e.begin() + static_cast<long>(id) * extra);
  }
  return e;
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
  const AtomsRef a = atoms.ref();
  check_parameters(a.n);
  CpuEvaluator::Outputs o;
  o.per_atom = req.per_atom;
  o.atom_energy = req.per_atom ? out.atom_energy.data() : nullptr;
  o.atom_virial = req.per_atom ? out.atom_virial.data() : nullptr;
  cpu_evaluator().compute(model_, a, list, model_type_, extra_per_atom(a.n), o);
  double* totals = out.term_totals();
  for (int c = 0; c < ForceOutput::kTotals; ++c) totals[c] += o.totals[c];
}

}  // namespace quasar::dp
