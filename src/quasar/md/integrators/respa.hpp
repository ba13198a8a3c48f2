#pragma once
// Multiple time stepping by impulse r-RESPA (Tuckerman, Berne and Martyna, J. Chem. Phys. 97, 1990
// (1992)) over the force field's groups. respa_every[g] is the period of group g in inner steps
// (the timestep); groups of one period form a level. A level of period P is evaluated every P-th
// step and acts as two kicks of P dt/2, one opening its period and one closing it, around the
// faster levels' steps; the innermost level moves the atoms with a drift (NVE) or BAOAB's A O A
// (Langevin: the thermostat acts on the inner step). In one step, with `due` meaning a period
// that starts or ends there:
//
//   opening kicks of the due slower levels, outermost first (forces kept from their last evaluation)
//   innermost: kick by its kept forces, then drift (or A O A)
//   forces of every level whose period ends here, each level alone; kept
//   closing kicks, innermost first
//   output steps: every term once more at these positions (energies, virial, total force)
//
// A level's forces are kept as a per-atom property of the atoms (respa_force_level0, ...: width 3),
// so that they follow the atoms through spatial sorting and go into checkpoints. With one level
// (every group of the same period) a step is velocity Verlet's (or BAOAB's) exactly.
#include "quasar/md/integrator.hpp"
#include "quasar/md/integrators/launch.hpp"

namespace quasar::md {

class MultipleTimeStep final : public Integrator {
 public:
  // inner: "nve" or "langevin". Throws InputError (at respa_every's line, when the settings say
  // where it was given) unless respa_every has one period per group up to the highest group of the
  // force field.
  MultipleTimeStep(const IntegratorSettings& s, Backend backend, int num_atoms, const ForceField& force_field,
                   const std::string& inner);
  std::string name() const override;
  std::string describe() const override;
  void attach(AtomState& atoms) override;
  void start(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out) override;
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req) override;

  struct Level {
    int period;       // inner steps
    unsigned groups;  // a bit per force group
  };
  const std::vector<Level>& levels() const { return levels_; }

 private:
  gpu::LevelForces level_forces(int level);
  // Kicks by the kept forces of `level` over its period; `step` >= 0: tests them (closing kicks).
  void kick_level(AtomState& atoms, int level, long step, double limit);
  // The innermost move (opening kick when due, then drift or A O A), tested against `limit`.
  void inner_move(long step, AtomState& atoms, const ForceOutput& out, double limit);
  // Keeps the atoms' forces as those of `level`; with kick, the innermost level's closing kick too.
  void store_level(long step, AtomState& atoms, int level, bool with_kick, double limit);

  std::string inner_;
  std::vector<int> periods_;  // per group, as given
  std::vector<Level> levels_;  // ascending periods
  std::vector<Array<double>*> forces_;  // per level: the atoms' property (x, y, z of each atom)
  bool held_ = false;                   // forces_ hold every level's
};

}  // namespace quasar::md
