#pragma once
// Published analytic potential energy surfaces of small reacting systems as potentials of the
// engine (TOML type "analytic-surface"): the reference surfaces that Shepard interpolation is grown
// against and checked with. Each system of a state (one, or every system of a batch) is one
// molecule of the surface's atoms; no neighbour list is used. Evaluated on the CPU in double.
#include <string>
#include <vector>

#include "quasar/potential/potential.hpp"
#include "quasar/potential/shepard/surfaces/ch5_jordan_gilbert.hpp"

namespace quasar {

struct ConfigTable;

class AnalyticSurfacePotential : public Potential {
 public:
  // [potential] type = "analytic-surface", surface = "ch5-cbg2009", carbon = "C", hydrogen = "H"
  // (the atom type names that play carbon and hydrogen).
  explicit AnalyticSurfacePotential(const ConfigTable& t);
  AnalyticSurfacePotential(std::string surface, std::string carbon_type, std::string hydrogen_type);

  // The surfaces built in, for messages and `quasar info`.
  static std::vector<std::string> surfaces();

  std::string name() const override { return "analytic-surface"; }
  double cutoff() const override { return 0; }
  void bind(const SystemSetup& setup) override;
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;

 private:
  void bind_types(const std::vector<std::string>& type_names);
  std::string surface_, carbon_type_, hydrogen_type_;
  surfaces::Ch5JgParameters parameters_;
  int carbon_ = -1, hydrogen_ = -1;  // type indices of the bound system
  std::vector<std::string> bound_names_;
};

}  // namespace quasar
