#pragma once
// The interpolated surface as a term of a force field (TOML type "shepard", or a data-set file
// ending in .shepard given to `quasar eval --model`). It is a molecular surface: every system it
// is computed on is one molecule whose atoms, in input order, are the data set's atoms (the same
// elements in the same order). It needs no neighbour list; a molecule in a periodic cell is made
// whole by minimum images from its first atom. The molecules are gathered on the host; on a GPU
// backend the batch is evaluated by the GPU interpolation (gpu_interpolant.hpp, made at the first
// GPU compute) and forces go back to the device.
#include <memory>
#include <string>

#include "quasar/potential/potential.hpp"
#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

class GpuInterpolant;

class ShepardPotential : public Potential {
 public:
  ShepardPotential(const DataSet& set, std::string source);
  ~ShepardPotential() override;
  static std::unique_ptr<ShepardPotential> from_file(const std::string& path);

  std::string name() const override { return "shepard"; }
  double cutoff() const override { return 0; }
  void bind(const SystemSetup& setup) override;
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;

  const Interpolant& interpolant() const { return interpolant_; }

 private:
  Interpolant interpolant_;
  std::unique_ptr<GpuInterpolant> gpu_;
  std::vector<std::string> elements_;
  std::string source_;  // the data set's file, for messages
};

}  // namespace quasar::shepard
