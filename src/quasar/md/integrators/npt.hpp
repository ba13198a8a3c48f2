#pragma once
// NPT: Bussi's thermostat and the stochastic cell-rescaling barostat (Bernetti and Bussi, J. Chem.
// Phys. 153, 114107 (2020)) every `barostat_every` steps, the one place where a step reads the
// pressure on the host.
#include "quasar/md/integrators/bussi.hpp"

namespace quasar::md {

class CellRescalingNpt final : public Bussi {
 public:
  CellRescalingNpt(const IntegratorSettings& s, Backend backend, int num_atoms);
  std::string name() const override { return "npt"; }
  std::string describe() const override { return "npt dynamics"; }
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req) override;
  bool needs_virial(long step) const override { return step % s_.barostat_every == 0; }
  bool integrates_systems() const override { return false; }  // one cell, one barostat

 private:
  void barostat(long step, AtomState& atoms, const ForceOutput& out, double skin);
  Array<double> kinetic_;  // the kinetic-energy tensor
};

}  // namespace quasar::md
