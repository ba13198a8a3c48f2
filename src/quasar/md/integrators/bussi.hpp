#pragma once
// Bussi-Donadio-Parrinello stochastic velocity rescaling after each velocity Verlet step. The factor
// comes from a reduction of the kinetic energy and a one-thread kernel on the GPU (no host copy);
// the energy it exchanges is summed for the conserved quantity.
#include "quasar/md/integrators/verlet.hpp"

namespace quasar::md {

class Bussi : public VelocityVerlet {
 public:
  Bussi(const IntegratorSettings& s, Backend backend, int num_atoms);
  std::string name() const override { return "bussi"; }
  std::string describe() const override { return "bussi dynamics"; }
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req) override;

 protected:
  void rescale(long step, AtomState& atoms, const ForceOutput& out);
};

}  // namespace quasar::md
