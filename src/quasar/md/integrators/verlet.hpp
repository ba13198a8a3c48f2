#pragma once
// Velocity Verlet (NVE): half kick, drift, forces, half kick.
#include "quasar/md/integrator.hpp"

namespace quasar::md {

class VelocityVerlet : public Integrator {
 public:
  VelocityVerlet(const IntegratorSettings& s, Backend backend, int num_atoms) : Integrator(s, backend, num_atoms) {}
  std::string name() const override { return "nve"; }
  std::string describe() const override { return "nve dynamics"; }
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req) override;
  bool integrates_systems() const override { return true; }

 protected:
  // The Verlet step itself, which the thermostatted variants follow with their own updates.
  void verlet_step(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                   ComputeRequest req);
};

}  // namespace quasar::md
