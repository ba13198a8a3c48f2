#pragma once
// Deep Potential (se_e2_a descriptor + energy fitting) as a Potential: the double-precision CPU
// reference of energies, forces, virials and their per-atom parts.
#include <memory>
#include <string>
#include <vector>

#include "quasar/potential/dp/cpu_evaluator.hpp"
#include "quasar/potential/dp/deep_potential_gpu.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar::dp {

class DeepPotential : public Potential {
 public:
  explicit DeepPotential(DpModel model);
  static DeepPotential from_file(const std::string& path);  // .yaml or .dp

  std::string name() const override { return "deepmd"; }
  double cutoff() const override { return model_.descriptor.rcut; }
  // A full list on both backends (the nearest sel neighbours of every centre).
  std::vector<NeighborRequest> neighbor_requests(Backend) const override { return {{cutoff(), ListKind::Full}}; }
  // Matches the structure's type names against the model's type_map.
  void bind(const SystemSetup& setup) override { bind_types(setup.type_names); }
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;

  const DpModel& model() const { return model_; }
  // Precision of the GPU evaluation (the CPU evaluation is double), keeping the atoms per GPU
  // chunk; and both (chunk_atoms 0: from a work-memory budget).
  void set_precision(Precision p) override { set_precision(p, chunk_atoms_); }
  void set_precision(Precision p, long chunk_atoms);
  Precision precision() const { return precision_; }
  const GpuEvaluator* gpu_evaluator() const { return gpu_.get(); }
  // Frame parameters (numb_fparam values) and atomic parameters: numb_aparam values for every atom
  // (in input order), or numb_aparam values that all atoms share.
  void set_fparam(std::vector<double> f);
  void set_aparam(std::vector<double> a);
  // Intermediate results of every atom, for checks against DeePMD-kit: the descriptor (n x
  // M*axis_neuron) and the input of the last fitting layer (n x its width).
  struct Intermediates {
    std::vector<double> descriptor, fit_ll;
  };
  Intermediates intermediates(AtomState& atoms, const NeighborRef& list);

 private:
  void bind_types(const std::vector<std::string>& type_names);
  void check_parameters(int atoms) const;
  void compute_gpu(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out);
  void fitting_input(const std::vector<double>& descriptor, long id, std::vector<double>& in) const;
  std::vector<double> extra_per_atom(int n) const;
  CpuEvaluator& cpu_evaluator();

  DpModel model_;
  std::vector<int> model_type_;  // structure type -> model type
  std::vector<double> fparam_, aparam_;
  std::shared_ptr<const EmbeddingTables> tables_;  // when the model is compressed
  std::unique_ptr<CpuEvaluator> cpu_;              // made at the first CPU evaluation
  // GPU state: the evaluator (made at first use) and the structure -> model type map on the device.
  Precision precision_ = Precision::Double;
  long chunk_atoms_ = 0;
  std::unique_ptr<GpuEvaluator> gpu_;
  bool extra_dirty_ = true;
  Array<int> gpu_mtype_{Backend::Cuda};
  Array<double> gpu_totals_{Backend::Cuda};  // where energy and virial go when none were asked for
};

}  // namespace quasar::dp
