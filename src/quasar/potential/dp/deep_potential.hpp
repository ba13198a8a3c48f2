#pragma once
// Deep Potential (se_e2_a descriptor + energy fitting) as a Potential: the double-precision CPU
// reference of energies, forces, virials and their per-atom parts.
#include <string>
#include <vector>

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
  ListKind list_kind(Backend) const override { return ListKind::Full; }
  // Matches the structure's type names against the model's type_map.
  void bind_types(const std::vector<std::string>& type_names) override;
  void compute(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out) override;

  const DpModel& model() const { return model_; }
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
  void check_parameters(int atoms) const;
  void compute_gpu(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out);
  void fitting_input(const std::vector<double>& descriptor, long id, std::vector<double>& in) const;

  DpModel model_;
  std::vector<int> model_type_;  // structure type -> model type
  std::vector<double> fparam_, aparam_;
  // GPU state (deep_potential_gpu.cpp): the flattened model, uploaded once, and per-slot work arrays.
  GpuModel gpu_host_{};
  bool gpu_ready_ = false, extra_dirty_ = true;
  Array<GpuModel> gpu_model_{Backend::Cuda};
  Array<double> gpu_weights_{Backend::Cuda}, gpu_davg_{Backend::Cuda}, gpu_dstd_{Backend::Cuda}, gpu_extra_{Backend::Cuda};
  Array<int> gpu_mtype_{Backend::Cuda}, gpu_nlist_{Backend::Cuda};
  Array<double> gpu_rhat_{Backend::Cuda}, gpu_drhat_{Backend::Cuda}, gpu_disp_{Backend::Cuda}, gpu_g_{Backend::Cuda},
      gpu_dg_{Backend::Cuda};
};

}  // namespace quasar::dp
