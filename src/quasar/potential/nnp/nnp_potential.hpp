#pragma once
// A Behler-Parrinello potential of n2p2's files as a Potential (TOML type "nnp").
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/units.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/model.hpp"
#include "quasar/potential/nnp/prepared.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar::nnp {

class CpuEvaluator;
class GpuEvaluator;

class NnpPotential : public Potential {
 public:
  explicit NnpPotential(Model model);  // the model's length_unit and energy_unit set
  NnpPotential(NnpPotential&&) noexcept;
  ~NnpPotential() override;
  // A folder holding input.nn, scaling.data and the weights files (or the path of its input.nn),
  // whose numbers are in `units`.
  static NnpPotential from_files(const std::filesystem::path& path, units::FileUnits units = {});

  std::string name() const override { return "nnp"; }
  double cutoff() const override { return prepared_.cutoff; }
  // A full list on both backends: every centre sees all its neighbours.
  std::vector<NeighborRequest> neighbor_requests(Backend) const override { return {{cutoff(), ListKind::Full}}; }
  // Matches the structure's type names against the model's element symbols.
  void bind(const SystemSetup& setup) override { bind_types(setup.type_names); }
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;

  const Model& model() const { return model_; }
  // Precision of the GPU evaluation: double or mixed32 (the CPU evaluates in double).
  void set_precision(Precision p) override;
  Precision precision() const { return precision_; }

 private:
  void bind_types(const std::vector<std::string>& type_names);
  CpuEvaluator& cpu_evaluator();
  void compute_gpu(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out);

  Model model_;
  PreparedModel prepared_;
  Descriptor descriptor_;
  std::vector<int> element_of_;  // structure type -> model element
  std::unique_ptr<CpuEvaluator> cpu_;
  Precision precision_ = Precision::Double;
  std::unique_ptr<GpuEvaluator> gpu_;  // made at the first GPU evaluation
  Array<int> gpu_element_of_{Backend::Cuda};
  Array<double> gpu_totals_{Backend::Cuda};  // where energy and virial go when none were asked for
};

}  // namespace quasar::nnp
