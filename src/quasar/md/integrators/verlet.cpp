#include "quasar/md/integrators/verlet.hpp"

#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/integrators/systems.hpp"

namespace quasar::md {

void VelocityVerlet::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                             ForceOutput& out, ComputeRequest req) {
  verlet_step(step, atoms, lists, force_field, out, req);
}

void VelocityVerlet::verlet_step(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                                 ForceOutput& out, ComputeRequest req) {
  const bool gpu = atoms.backend() == Backend::Cuda;
  const double dt = s_.dt, skin = lists.skin(), limit = max_move(lists);
  if (atoms.is_batch()) {
    systems_kick_drift(atoms, systems_ref(atoms, faults_), dt, step, faults_, limit);
    if (!gpu) faults_.throw_if_any(atoms, skin);
    lists.update(atoms, step);
    force_field.compute(atoms, lists.refs(), req, out);
    systems_half_kick(atoms, systems_ref(atoms, faults_), dt, step, faults_);
    if (!gpu) faults_.throw_if_any(atoms, skin);
    return;
  }
  AtomsRef a = atoms.ref();
  if (gpu) {
    gpu::kick_drift(a, dt, {faults_.slots(), fault_when(step, kAfterDrift), limit});
  } else {
    for (int i = 0; i < a.n; ++i) {
      const Vec3 before{a.x[i], a.y[i], a.z[i]};
      half_kick(a, i, dt);
      drift(a, i, dt);
      faults_.note(step, kAfterDrift, a.id[i], check_moved(a, i, before, limit));
    }
    // On the CPU a bad atom stops the step before the list sees it.
    faults_.throw_if_any(atoms, skin);
  }
  lists.update(atoms, step);
  if (needs_virial(step)) req.virial = true;
  force_field.compute(atoms, lists.refs(), req, out);
  a = atoms.ref();  // the lists may have re-sorted the atoms
  if (gpu) {
    gpu::half_kick(a, dt, {faults_.slots(), fault_when(step, kAfterForces), limit});
  } else {
    for (int i = 0; i < a.n; ++i) {
      half_kick(a, i, dt);
      faults_.note(step, kAfterForces, a.id[i], check_kicked(a, i));
    }
    faults_.throw_if_any(atoms, skin);
  }
}

}  // namespace quasar::md
