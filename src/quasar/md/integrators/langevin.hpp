#pragma once
// Langevin dynamics by BAOAB with the exact Ornstein-Uhlenbeck step: half kick, half drift, O, half
// drift, forces, half kick. The normals are a function of (seed, step, atom id), so that both
// backends draw the same numbers and a restart continues exactly; the kinetic energy O exchanges
// is summed for the conserved quantity.
#include "quasar/md/integrator.hpp"

namespace quasar::md {

class Langevin final : public Integrator {
 public:
  Langevin(const IntegratorSettings& s, Backend backend, int num_atoms);
  std::string name() const override { return "langevin"; }
  std::string describe() const override { return "langevin dynamics"; }
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req) override;
  bool integrates_systems() const override { return true; }

 private:
  // A batch: each system towards its own temperature with its own stream.
  void advance_systems(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                       ComputeRequest req);
};

// The parameters of BAOAB's O step at `step`.
StepParams langevin_params(const IntegratorSettings& s, long step);

}  // namespace quasar::md
