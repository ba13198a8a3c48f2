#include "quasar/md/integrator.hpp"

#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/launch.hpp"

namespace quasar::md {

Integrator::Integrator(const IntegratorSettings& s, Backend backend, int num_atoms)
    : s_(s), backend_(backend), num_atoms_(num_atoms), dof_(3.0 * num_atoms - 3.0), state_(backend, kStateSize),
      step_work_(backend, 1), faults_(backend), system_state_(backend) {
#ifndef QUASAR_HAVE_CUDA
  if (backend == Backend::Cuda) throw_no_cuda("GPU integrator");
#endif
  if (!(s_.dt > 0)) throw Error("the timestep must be positive");
  if (dof_ < 1) dof_ = 1;
}

double Integrator::max_move(const NeighborLists& lists) {
  // One step that moves an atom as far as the list lets atoms move between builds (half the skin)
  // means the dynamics is no longer resolved; without a skin there is no such limit.
  const double skin = lists.skin();
  return skin > 0 ? 0.5 * skin : std::numeric_limits<double>::infinity();
}

double Integrator::reservoir_energy() const {
  const auto v = state_.to_vector();
  return v[kThermostatWork] + v[kBarostatWork];
}

void Integrator::set_state(const std::vector<double>& v) {
  if (v.size() != kStateSize)
    throw Error("integrator state: " + std::to_string(v.size()) + " numbers, expected " + std::to_string(kStateSize));
  state_.assign(v);
  restored_ = true;
}

void Integrator::bind_systems(const AtomState& atoms) {
  if (!integrates_systems())
    throw Error("integrator '" + name() + "' does not integrate batches of systems (nve, langevin and bussi do)");
  if (!atoms.is_batch()) throw Error("bind_systems: the state holds one system");
  if (atoms.backend() != backend_) throw Error("bind_systems: the atoms live on another backend");
  faults_.track_systems(atoms.system_offsets());
  system_state_.assign(std::vector<double>(static_cast<std::size_t>(atoms.num_systems()) * kStateSize, 0.0));
}

void Integrator::set_system_state(const std::vector<double>& v) {
  if (v.size() != system_state_.size())
    throw Error("integrator state: " + std::to_string(v.size()) + " numbers for the systems, expected " +
                std::to_string(system_state_.size()));
  system_state_.assign(v);
  restored_ = true;
}

std::vector<double> Integrator::system_reservoir_energy() const {
  const auto v = system_state_.to_vector();
  std::vector<double> out(v.size() / kStateSize);
  for (std::size_t s = 0; s < out.size(); ++s) out[s] = v[s * kStateSize + kThermostatWork] + v[s * kStateSize + kBarostatWork];
  return out;
}

void reduce_kinetic(AtomState& atoms, double* dest, device::FixedPointSums* fixed) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::kinetic(a, dest, fixed);
    return;
  }
  double sum[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < a.n; ++i) {
    double k[6];
    kinetic_tensor(a, i, k);
    for (int c = 0; c < 6; ++c) sum[c] += k[c];
  }
  for (int c = 0; c < 6; ++c) dest[c] = sum[c];
}

}  // namespace quasar::md
