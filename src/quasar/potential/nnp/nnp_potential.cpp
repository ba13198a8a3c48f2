#include "quasar/potential/nnp/nnp_potential.hpp"

#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/cpu_evaluator.hpp"
#include "quasar/potential/nnp/gpu_evaluator.hpp"
#include "quasar/potential/nnp/model_io.hpp"

namespace quasar::nnp {

NnpPotential::NnpPotential(Model model)
    : model_(std::move(model)), prepared_(prepare(model_)), descriptor_(model_, model_.length_unit) {}
NnpPotential::NnpPotential(NnpPotential&&) noexcept = default;
NnpPotential::~NnpPotential() = default;

NnpPotential NnpPotential::from_files(const std::filesystem::path& path, units::FileUnits units) {
  const std::filesystem::path dir = std::filesystem::is_directory(path) ? path : path.parent_path();
  Model m = read_model(dir.empty() ? std::filesystem::path(".") : dir);
  m.length_unit = units.length;
  m.energy_unit = units.energy;
  return NnpPotential(std::move(m));
}

void NnpPotential::set_precision(Precision p) {
  if (p == Precision::Mixed16) throw Error("nnp: precision mixed16 is not offered (double, mixed32)");
  precision_ = p;
  gpu_.reset();
}

void NnpPotential::bind_types(const std::vector<std::string>& names) {
  gpu_element_of_.resize(0);  // uploaded again at the next GPU evaluation
  element_of_.clear();
  for (const std::string& n : names) {
    int found = -1;
    for (std::size_t e = 0; e < model_.elements.size(); ++e)
      if (model_.elements[e].symbol == n) found = static_cast<int>(e);
    if (found < 0) {
      std::string known;
      for (const ElementModel& e : model_.elements) known += " " + e.symbol;
      throw Error("nnp: atom type '" + n + "' is not one of the model's elements (" + known + " )");
    }
    element_of_.push_back(found);
  }
}

CpuEvaluator& NnpPotential::cpu_evaluator() {
  if (!cpu_) cpu_ = std::make_unique<CpuEvaluator>(descriptor_, prepared_);
  return *cpu_;
}

void NnpPotential::compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) {
  if (element_of_.size() != static_cast<std::size_t>(atoms.num_types())) bind_types(atoms.type_names());
  if (atoms.backend() == Backend::Cuda) {
    compute_gpu(atoms, lists[0], req, out);
    return;
  }
  CpuEvaluator::Outputs o;
  o.atom_energy = req.per_atom ? out.atom_energy.data() : nullptr;
  o.atom_virial = req.per_atom ? out.atom_virial.data() : nullptr;
  cpu_evaluator().compute(atoms.ref(), lists[0], element_of_, o);
  double* totals = out.term_totals();
  for (int c = 0; c < ForceOutput::kTotals; ++c) totals[c] += o.totals[c];
}

void NnpPotential::compute_gpu(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out) {
  if (!gpu_) gpu_ = std::make_unique<GpuEvaluator>(descriptor_, prepared_, precision_);
  if (gpu_element_of_.empty()) gpu_element_of_.assign(element_of_);
  std::vector<int> count(model_.elements.size(), 0);
  for (std::size_t t = 0; t < element_of_.size(); ++t) count[element_of_[t]] += atoms.local_type_counts()[t];
  // The kernels always sum energy and virial: into this term's totals (zeroed by ForceOutput::begin)
  // when asked for, else into a scratch block zeroed here.
  double* totals = out.term_totals();
  if (!(req.energy || req.virial || req.per_atom)) {
    gpu_totals_.resize(ForceOutput::kTotals);
    gpu_totals_.set_zero();
    totals = gpu_totals_.data();
  }
  gpu_->compute(atoms.ref(), list, gpu_element_of_.data(), count, totals,
                req.per_atom ? out.atom_energy.data() : nullptr, req.per_atom ? out.atom_virial.data() : nullptr,
                out.deterministic ? &out.fixed : nullptr, out.contents == ForceOutput::Contents::Sums);
}

}  // namespace quasar::nnp
