#include "quasar/md/integrators/systems.hpp"

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/launch.hpp"

namespace quasar::md {

namespace {
FaultCheck check_of(FaultRecord& faults, long step, CheckSite site, double limit) {
  return {faults.slots(), fault_when(step, site), limit, faults.system_words()};
}
}  // namespace

SystemsRef systems_ref(AtomState& atoms, FaultRecord& faults) {
  if (!atoms.is_batch()) throw Error("systems_ref: the state holds one system");
  if (!faults.tracks_systems()) throw Error("systems_ref: the fault record does not track the systems");
  return {atoms.num_systems(),          atoms.system_offset.data(), atoms.system_temperature.data(),
          atoms.system_stream.data(),   atoms.system_active.data(), faults.system_words()};
}

void systems_kick_drift(AtomState& atoms, const SystemsRef& sys, double dt, long step, FaultRecord& faults,
                        double limit) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::systems_kick_drift(a, sys, dt, check_of(faults, step, kAfterDrift, limit));
    return;
  }
  const unsigned long long when = fault_when(step, kAfterDrift);
  for (int s = 0; s < sys.count; ++s) {
    if (!sys.moves(s, when)) continue;
    for (int i = sys.first[s]; i < sys.first[s + 1]; ++i) {
      const Vec3 before{a.x[i], a.y[i], a.z[i]};
      half_kick(a, i, dt);
      drift(a, i, dt);
      faults.note_in(s, step, kAfterDrift, a.id[i], check_moved(a, i, before, limit));
      keep_finite_position(a, i, before);
    }
  }
}

void systems_half_kick(AtomState& atoms, const SystemsRef& sys, double dt, long step, FaultRecord& faults) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::systems_half_kick(a, sys, dt, check_of(faults, step, kAfterForces, 0));
    return;
  }
  const unsigned long long when = fault_when(step, kAfterForces);
  for (int s = 0; s < sys.count; ++s) {
    if (!sys.moves(s, when)) continue;
    for (int i = sys.first[s]; i < sys.first[s + 1]; ++i) {
      half_kick(a, i, dt);
      faults.note_in(s, step, kAfterForces, a.id[i], check_kicked(a, i));
    }
  }
}

void systems_baoab_first_half(AtomState& atoms, const SystemsRef& sys, double dt, double c1, long step, double* state,
                              FaultRecord& faults, double limit) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::systems_baoab_first_half(a, sys, dt, c1, static_cast<uint64_t>(step), state,
                                  check_of(faults, step, kAfterDrift, limit));
    return;
  }
  const unsigned long long when = fault_when(step, kAfterDrift);
  for (int s = 0; s < sys.count; ++s) {
    if (!sys.moves(s, when)) continue;
    const double kt = units::boltzmann * sys.temperature[s];
    double work = 0;  // summed as a run of this system alone sums it
    for (int i = sys.first[s]; i < sys.first[s + 1]; ++i) {
      const Vec3 before{a.x[i], a.y[i], a.z[i]};
      half_kick(a, i, dt);
      drift(a, i, 0.5 * dt);
      work += langevin_o(a, i, c1, kt, sys.stream[s], static_cast<uint64_t>(step), sys.index_in(a, i, s));
      drift(a, i, 0.5 * dt);
      faults.note_in(s, step, kAfterDrift, a.id[i], check_moved(a, i, before, limit));
      keep_finite_position(a, i, before);
    }
    state[static_cast<std::size_t>(s) * kStateSize + kThermostatWork] += work;
  }
}

void systems_kinetic(AtomState& atoms, const SystemsRef& sys, double* dest, int stride) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::systems_kinetic(a, sys, dest, stride);
    return;
  }
  for (int s = 0; s < sys.count; ++s) {
    double sum[6] = {0, 0, 0, 0, 0, 0};
    for (int i = sys.first[s]; i < sys.first[s + 1]; ++i) {
      double k[6];
      kinetic_tensor(a, i, k);
      for (int c = 0; c < 6; ++c) sum[c] += k[c];
    }
    for (int c = 0; c < 6; ++c) dest[static_cast<std::size_t>(s) * stride + c] = sum[c];
  }
}

void systems_bussi(AtomState& atoms, const SystemsRef& sys, double* state, double c, long step) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::systems_bussi(a, sys, state, c, static_cast<uint64_t>(step), fault_when(step, kAfterForces));
    return;
  }
  systems_kinetic(atoms, sys, state + kKinetic, kStateSize);
  const unsigned long long when = fault_when(step, kAfterForces);
  for (int s = 0; s < sys.count; ++s) {
    double* st = state + static_cast<std::size_t>(s) * kStateSize;
    if (!sys.moves(s, when)) continue;
    const double ke = 0.5 * (st[kKinetic] + st[kKinetic + 1] + st[kKinetic + 2]);
    const double alpha = bussi_alpha(ke, system_dof(sys.atoms_of(s)), units::boltzmann * sys.temperature[s], c,
                                     sys.stream[s], static_cast<uint64_t>(step));
    st[kAlpha] = alpha;
    st[kThermostatWork] += (alpha * alpha - 1.0) * ke;
    for (int i = sys.first[s]; i < sys.first[s + 1]; ++i) {
      a.vx[i] *= alpha;
      a.vy[i] *= alpha;
      a.vz[i] *= alpha;
    }
  }
}

}  // namespace quasar::md
