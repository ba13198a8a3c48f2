#include "quasar/md/integrators/langevin.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/integrators/systems.hpp"

namespace quasar::md {

StepParams langevin_params(const IntegratorSettings& s, long step) {
  return {s.dt, units::boltzmann * s.temperature, std::exp(-s.dt / s.tau_t), s.seed, static_cast<uint64_t>(step)};
}

Langevin::Langevin(const IntegratorSettings& s, Backend backend, int num_atoms) : Integrator(s, backend, num_atoms) {
  if (!(s_.tau_t > 0)) throw Error("the thermostat time constant must be positive");
}

void Langevin::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                       ComputeRequest req) {
  if (atoms.is_batch()) return advance_systems(step, atoms, lists, force_field, out, req);
  const bool gpu = atoms.backend() == Backend::Cuda;
  const StepParams p = langevin_params(s_, step);
  const double skin = lists.skin(), limit = max_move(lists);
  AtomsRef a = atoms.ref();
  if (gpu) {
    const FaultCheck moved{faults_.slots(), fault_when(step, kAfterDrift), limit};
    gpu::baoab_first_half(a, p, state_.data() + kThermostatWork, moved, fixed_sums(out), step_work_.data());
  } else {
    double work = 0;
    for (int i = 0; i < a.n; ++i) {
      const Vec3 before{a.x[i], a.y[i], a.z[i]};
      work += baoab_first_half(a, i, p);
      faults_.note(step, kAfterDrift, a.id[i], check_moved(a, i, before, limit));
    }
    state_[kThermostatWork] += work;
    faults_.throw_if_any(atoms, skin);
  }
  lists.update(atoms, step);
  force_field.compute(atoms, lists.refs(), req, out);
  a = atoms.ref();  // the lists may have re-sorted the atoms
  if (gpu) {
    gpu::half_kick(a, p.dt, {faults_.slots(), fault_when(step, kAfterForces), limit});
  } else {
    for (int i = 0; i < a.n; ++i) {
      half_kick(a, i, p.dt);
      faults_.note(step, kAfterForces, a.id[i], check_kicked(a, i));
    }
    faults_.throw_if_any(atoms, skin);
  }
}

void Langevin::advance_systems(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                               ForceOutput& out, ComputeRequest req) {
  const bool gpu = atoms.backend() == Backend::Cuda;
  const double skin = lists.skin();
  systems_baoab_first_half(atoms, systems_ref(atoms, faults_), s_.dt, std::exp(-s_.dt / s_.tau_t), step,
                           system_state_.data(), faults_, max_move(lists));
  if (!gpu) faults_.throw_if_any(atoms, skin);
  lists.update(atoms, step);
  force_field.compute(atoms, lists.refs(), req, out);
  systems_half_kick(atoms, systems_ref(atoms, faults_), s_.dt, step, faults_);
  if (!gpu) faults_.throw_if_any(atoms, skin);
}

}  // namespace quasar::md
