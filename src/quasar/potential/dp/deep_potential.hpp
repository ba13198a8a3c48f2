#pragma once
// Deep Potential (se_e2_a descriptor + energy fitting) as a Potential: the double-precision CPU
// reference of energies, forces, virials and their per-atom parts.
#include <string>
#include <vector>

#include "quasar/potential/dp/model.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar::dp {

class DeepPotential : public Potential {
 public:
  explicit DeepPotential(DpModel model);
  static DeepPotential from_file(const std::string& path);  // .yaml

  std::string name() const override { return "deepmd"; }
  double cutoff() const override { return model_.descriptor.rcut; }
  ListKind list_kind(Backend) const override { return ListKind::Full; }
  // Matches the structure's type names against the model's type_map.
  void bind_types(const std::vector<std::string>& type_names) override;
  void compute(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out) override;

  const DpModel& model() const { return model_; }
  // The descriptor of every atom (n x M*axis_neuron), for checks against DeePMD-kit.
  std::vector<double> descriptors(AtomState& atoms, const NeighborRef& list);

 private:
  DpModel model_;
  std::vector<int> model_type_;  // structure type -> model type
};

}  // namespace quasar::dp
