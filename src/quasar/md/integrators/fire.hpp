#pragma once
// FIRE energy minimisation (FIRE 2.0 with unit masses), of the atoms and optionally of the cell
// (to a target pressure, through the deformation gradient as generalised coordinates).
#include "quasar/md/settings.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/force_field.hpp"

namespace quasar::md {

struct MinimizeResult {
  bool converged = false;
  long steps = 0;
  double energy = 0;        // eV (enthalpy E + P V when the cell relaxes)
  double max_force = 0;     // eV/Å
  double max_stress = 0;    // bar, largest |P_ab - P0 delta_ab| when the cell relaxes
};

// Works on host copies of the state, so the same code drives either backend (the force field runs
// where the atoms live). `lists` are those of the force field's neighbor_requests; they must not
// re-sort atoms (they are updated with step 0).
MinimizeResult minimize_fire(AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                             const MinimizeSettings& s);

}  // namespace quasar::md
