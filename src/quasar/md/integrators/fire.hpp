#pragma once
// FIRE energy minimisation (FIRE 2.0 with unit masses), of the atoms and optionally of the cell
// (to a target pressure, through the deformation gradient as generalised coordinates). The atoms'
// coordinates, velocities and forces stay where the atoms live, and so do the sums a step needs
// (power F.v, the norms of v and F, the largest force and move): the host reads those few numbers,
// the energy and, with the cell, the virial; the nine cell coordinates live on the host.
#include "quasar/md/integrator.hpp"
#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/settings.hpp"

namespace quasar::md {

struct MinimizeResult {
  bool converged = false;
  long steps = 0;
  double energy = 0;        // eV (enthalpy E + P V when the cell relaxes)
  double max_force = 0;     // eV/Å
  double max_stress = 0;    // bar, largest |P_ab - P0 delta_ab| when the cell relaxes
};

class Fire final : public Integrator {
 public:
  Fire(const MinimizeSettings& m, const IntegratorSettings& s, Backend backend, int num_atoms);
  std::string name() const override { return "minimize"; }
  std::string describe() const override { return "FIRE minimisation"; }
  // The evaluation at the starting point (step 0), in the atoms' current cell.
  void start(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out) override;
  // One FIRE step and the evaluation at its end; the lists must not re-sort the atoms (they are
  // updated as step 0).
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req) override;
  bool converged() const { return result_.converged; }
  // steps: the FIRE steps taken.
  const MinimizeResult& result() const { return result_; }

  // The sums of the last evaluation and move over the atoms' part (tests compare them with plain
  // loops): max |F|, sum v.g, sum g.g, sum v.v after the kick, max |dt v| after the mix.
  struct Sums {
    double max_force = 0, power = 0, force_norm2 = 0, velocity_norm2 = 0, largest_move = 0;
  };
  const Sums& sums() const { return sums_; }
  // FIRE's velocities of the atoms on the host: vx of every atom, then vy, then vz (tests).
  std::vector<double> velocities() const;

 private:
  gpu::FireArrays arrays();
  // Atoms placed from the generalised coordinates (after moving them by move_by v), lists, forces,
  // generalised forces, convergence.
  void evaluate(long step, bool move, double move_by, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                ForceOutput& out);
  Mat3 deformation() const;

  MinimizeSettings m_;
  Box box0_;
  double cell_factor_;
  double dt_, alpha_ = 0.25;
  int positive_ = 0;
  bool started_ = false;
  Array<double> atoms_part_;  // x, y, z, vx, vy, vz, gx, gy, gz: n each
  Array<double> sums_device_, partial_;
  double xc_[9] = {}, vc_[9] = {}, gc_[9] = {};  // cell part: cell_factor * strain, velocity, force
  Sums sums_;
  MinimizeResult result_;
};

// Minimises from the atoms' state: start, then FIRE steps until converged or max_steps.
MinimizeResult minimize_fire(AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                             const MinimizeSettings& s);

}  // namespace quasar::md
