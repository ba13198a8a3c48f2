#include "quasar/md/integrators/bussi.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/integrators/systems.hpp"

namespace quasar::md {

Bussi::Bussi(const IntegratorSettings& s, Backend backend, int num_atoms) : VelocityVerlet(s, backend, num_atoms) {
  if (!(s_.tau_t > 0)) throw Error("the thermostat time constant must be positive");
}

void Bussi::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                    ComputeRequest req) {
  verlet_step(step, atoms, lists, force_field, out, req);
  rescale(step, atoms, out);
}

void Bussi::rescale(long step, AtomState& atoms, const ForceOutput& out) {
  const double kt = units::boltzmann * s_.temperature, c = std::exp(-s_.dt / s_.tau_t);
  if (atoms.is_batch()) return systems_bussi(atoms, systems_ref(atoms, faults_), system_state_.data(), c, step);
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::bussi(a, state_.data(), dof_, kt, c, s_.seed, static_cast<uint64_t>(step),
               out.deterministic ? &fixed_ : nullptr);
    return;
  }
  reduce_kinetic(atoms, state_.data() + kKinetic);
  const double ke = 0.5 * (state_[kKinetic] + state_[kKinetic + 1] + state_[kKinetic + 2]);
  const double alpha = bussi_alpha(ke, dof_, kt, c, s_.seed, static_cast<uint64_t>(step));
  state_[kThermostatWork] += (alpha * alpha - 1.0) * ke;
  for (int i = 0; i < a.n; ++i) {
    a.vx[i] *= alpha;
    a.vy[i] *= alpha;
    a.vz[i] *= alpha;
  }
}

}  // namespace quasar::md
