#include "quasar/md/integrator.hpp"

#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"

namespace quasar::md {

namespace {
double kt_of(double temperature) { return units::boltzmann * temperature; }
}  // namespace

Integrator::Integrator(const IntegratorSettings& s, Backend backend, int num_atoms)
    : s_(s), dof_(3.0 * num_atoms - 3.0), state_(backend, kStateSize), kinetic_(backend, 6), step_work_(backend, 1),
      faults_(backend) {
  const std::string& k = s_.kind;
  if (k != "nve" && k != "langevin" && k != "bussi" && k != "npt")
    throw Error("unknown integrator '" + k + "' (valid: nve, langevin, bussi, npt)");
  if (!(s_.dt > 0)) throw Error("the timestep must be positive");
  if (s_.thermostatted() && !(s_.tau_t > 0)) throw Error("the thermostat time constant must be positive");
  if (k == "npt" && (!(s_.tau_p > 0) || !(s_.compressibility > 0) || s_.barostat_every < 1))
    throw Error("npt needs positive tau_p, compressibility and barostat_every");
  if (dof_ < 1) dof_ = 1;
}

bool Integrator::needs_virial(long step) const { return s_.kind == "npt" && step % s_.barostat_every == 0; }

double Integrator::reservoir_energy() const {
  const auto v = state_.to_vector();
  return v[kThermostatWork] + v[kBarostatWork];
}

void reduce_kinetic(AtomState& atoms, double* dest, [[maybe_unused]] device::FixedPointSums* fixed) {
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    gpu::kinetic(a, dest, fixed);
    return;
#endif
  }
  double sum[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < a.n; ++i) {
    double k[6];
    kinetic_tensor(a, i, k);
    for (int c = 0; c < 6; ++c) sum[c] += k[c];
  }
  for (int c = 0; c < 6; ++c) dest[c] = sum[c];
}

void Integrator::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                         ForceOutput& out, ComputeRequest req) {
  const bool gpu = atoms.backend() == Backend::Cuda;
#ifndef QUASAR_HAVE_CUDA
  if (gpu) throw_no_cuda("GPU integrator");
#endif
  const double dt = s_.dt;
  const StepParams p{dt, kt_of(s_.temperature), std::exp(-dt / s_.tau_t), s_.seed, static_cast<uint64_t>(step)};
  // One step that moves an atom as far as the list lets atoms move between builds (half the skin)
  // means the dynamics is no longer resolved; without a skin there is no such limit.
  const double skin = lists.skin();
  const double max_move = skin > 0 ? 0.5 * skin : std::numeric_limits<double>::infinity();
  [[maybe_unused]] const FaultCheck moved{faults_.slots(), fault_when(step, kAfterDrift), max_move};
  AtomsRef a = atoms.ref();
  [[maybe_unused]] device::FixedPointSums* fixed = out.deterministic ? &fixed_ : nullptr;
  if (s_.kind == "langevin") {
    if (gpu) {
#ifdef QUASAR_HAVE_CUDA
      gpu::baoab_first_half(a, p, state_.data() + kThermostatWork, moved, fixed, step_work_.data());
#endif
    } else {
      double work = 0;
      for (int i = 0; i < a.n; ++i) {
        const Vec3 before{a.x[i], a.y[i], a.z[i]};
        work += baoab_first_half(a, i, p);
        faults_.note(step, kAfterDrift, a.id[i], check_moved(a, i, before, max_move));
      }
      state_[kThermostatWork] += work;
    }
  } else if (gpu) {
#ifdef QUASAR_HAVE_CUDA
    gpu::kick_drift(a, dt, moved);
#endif
  } else {
    for (int i = 0; i < a.n; ++i) {
      const Vec3 before{a.x[i], a.y[i], a.z[i]};
      half_kick(a, i, dt);
      drift(a, i, dt);
      faults_.note(step, kAfterDrift, a.id[i], check_moved(a, i, before, max_move));
    }
  }
  // On the CPU a bad atom stops the step before the list sees it.
  if (!gpu) faults_.throw_if_any(atoms, skin);
  lists.update(atoms, step);
  if (needs_virial(step)) req.virial = true;
  force_field.compute(atoms, lists.refs(), req, out);
  a = atoms.ref();  // the lists may have re-sorted the atoms
  if (gpu) {
#ifdef QUASAR_HAVE_CUDA
    gpu::half_kick(a, dt, {faults_.slots(), fault_when(step, kAfterForces), max_move});
#endif
  } else {
    for (int i = 0; i < a.n; ++i) {
      half_kick(a, i, dt);
      faults_.note(step, kAfterForces, a.id[i], check_kicked(a, i));
    }
    faults_.throw_if_any(atoms, skin);
  }
  if (s_.kind == "bussi" || s_.kind == "npt") {
    const double c = std::exp(-dt / s_.tau_t);
    if (gpu) {
#ifdef QUASAR_HAVE_CUDA
      gpu::bussi(a, state_.data(), dof_, p.kt, c, s_.seed, static_cast<uint64_t>(step), fixed);
#endif
    } else {
      reduce_kinetic(atoms, state_.data() + kKinetic);
      const double ke = 0.5 * (state_[kKinetic] + state_[kKinetic + 1] + state_[kKinetic + 2]);
      const double alpha = bussi_alpha(ke, dof_, p.kt, c, s_.seed, static_cast<uint64_t>(step));
      state_[kThermostatWork] += (alpha * alpha - 1.0) * ke;
      for (int i = 0; i < a.n; ++i) {
        a.vx[i] *= alpha;
        a.vy[i] *= alpha;
        a.vz[i] *= alpha;
      }
    }
  }
  if (needs_virial(step)) barostat(step, atoms, out, skin);
}

// Stochastic cell rescaling (Bernetti and Bussi, J. Chem. Phys. 153, 114107 (2020)): the volume
// strain follows a Langevin equation driven by the pressure difference, integrated over the
// barostat interval with Euler-Maruyama; positions scale with the cell and velocities inversely.
// The anisotropic variant applies the same equation to each Cartesian axis with its own pressure
// component and noise.
void Integrator::barostat(long step, AtomState& atoms, const ForceOutput& out, double skin) {
  reduce_kinetic(atoms, kinetic_.data(), out.deterministic ? &fixed_ : nullptr);
  const std::vector<double> kin = kinetic_.to_vector();
  const Mat3 w = out.virial();
  const Box& box = atoms.box();
  const double v = box.volume();
  const double kt = kt_of(s_.temperature);
  const double interval = s_.dt * s_.barostat_every;
  const double beta = s_.compressibility, tau = s_.tau_p;
  const double kt_over_v = kt / v * units::nktv2p;  // bar
  const double noise = std::sqrt(2.0 * kt_over_v * beta * interval / tau);
  double p_axis[3];
  for (int k = 0; k < 3; ++k) p_axis[k] = (kin[k] + w(k, k)) / v * units::nktv2p;
  if (!std::isfinite(p_axis[0] + p_axis[1] + p_axis[2])) {
    faults_.throw_if_any(atoms, skin);  // the GPU's recorded cause
    throw Error("the pressure is not finite at step " + std::to_string(step));
  }
  uint32_t r[4];
  Philox::draw(s_.seed, static_cast<uint64_t>(step), 0xFFFFFFFEu, 11, r);
  double g[4];
  normal_pair(r, g[0], g[1]);
  Philox::draw(s_.seed, static_cast<uint64_t>(step), 0xFFFFFFFEu, 12, r);
  normal_pair(r, g[2], g[3]);
  Vec3 mu{1, 1, 1};
  if (s_.anisotropic) {
    for (int k = 0; k < 3; ++k) {
      if (!box.periodic[k]) continue;
      const double de = -beta / tau * (s_.pressure - p_axis[k] - kt_over_v) * interval + noise * g[k];
      mu[k] = std::exp(de);
    }
  } else {
    // Isotropic in the periodic directions; a non-periodic direction (a slab's normal) keeps its size.
    int dims = 0;
    double p_sum = 0;
    for (int k = 0; k < 3; ++k)
      if (box.periodic[k]) {
        ++dims;
        p_sum += p_axis[k];
      }
    if (dims == 0) return;
    const double de = -beta / tau * (s_.pressure - p_sum / dims - kt_over_v) * interval + noise * g[0];
    for (int k = 0; k < 3; ++k) mu[k] = box.periodic[k] ? std::exp(de / dims) : 1.0;
  }
  // Work done on the system by the external pressure, for the conserved quantity.
  Box nb = box;
  Mat3 h = box.h;
  for (int r2 = 0; r2 < 3; ++r2) h.r[r2] = {h.r[r2].x * mu.x, h.r[r2].y * mu.y, h.r[r2].z * mu.z};
  nb.set_matrix(h);
  const Vec3 inv{1.0 / mu.x, 1.0 / mu.y, 1.0 / mu.z};
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    gpu::scale(a, mu, inv);
#endif
  } else {
    for (int i = 0; i < a.n; ++i) {
      a.x[i] = box.origin.x + mu.x * (a.x[i] - box.origin.x);
      a.y[i] = box.origin.y + mu.y * (a.y[i] - box.origin.y);
      a.z[i] = box.origin.z + mu.z * (a.z[i] - box.origin.z);
      a.vx[i] *= inv.x;
      a.vy[i] *= inv.y;
      a.vz[i] *= inv.z;
    }
  }
  // Kinetic energy change from the velocity scaling and P dV work both go to the reservoir.
  const double dke = 0.5 * (kin[0] * (inv.x * inv.x - 1) + kin[1] * (inv.y * inv.y - 1) + kin[2] * (inv.z * inv.z - 1));
  auto st = state_.to_vector();
  st[kBarostatWork] += dke - s_.pressure / units::nktv2p * (nb.volume() - v);
  state_.assign(st);
  atoms.set_box(nb);
}

}  // namespace quasar::md
