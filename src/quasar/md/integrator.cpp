#include "quasar/md/integrator.hpp"

#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/launch.hpp"

namespace quasar::md {

Integrator::Integrator(const IntegratorSettings& s, Backend backend, int num_atoms)
    : s_(s), backend_(backend), num_atoms_(num_atoms), dof_(3.0 * num_atoms - 3.0), state_(backend, kStateSize),
      step_work_(backend, 1), faults_(backend) {
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
