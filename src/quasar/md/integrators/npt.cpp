#include "quasar/md/integrators/npt.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/launch.hpp"

namespace quasar::md {

CellRescalingNpt::CellRescalingNpt(const IntegratorSettings& s, Backend backend, int num_atoms)
    : Bussi(s, backend, num_atoms), kinetic_(backend, 6) {
  if (!(s_.tau_p > 0) || !(s_.compressibility > 0) || s_.barostat_every < 1)
    throw Error("npt needs positive tau_p, compressibility and barostat_every");
}

void CellRescalingNpt::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                               ForceOutput& out, ComputeRequest req) {
  verlet_step(step, atoms, lists, force_field, out, req);
  rescale(step, atoms, out);
  if (needs_virial(step)) barostat(step, atoms, out, lists.skin());
}

// The volume strain follows a Langevin equation driven by the pressure difference, integrated over
// the barostat interval with Euler-Maruyama; positions scale with the cell and velocities inversely.
// The anisotropic variant applies the same equation to each Cartesian axis with its own pressure
// component and noise.
void CellRescalingNpt::barostat(long step, AtomState& atoms, const ForceOutput& out, double skin) {
  reduce_kinetic(atoms, kinetic_.data(), out.deterministic ? &fixed_ : nullptr);
  const std::vector<double> kin = kinetic_.to_vector();
  const Mat3 w = out.virial();
  const Box& box = atoms.box();
  const double v = box.volume();
  const double kt = units::boltzmann * s_.temperature;
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
    gpu::scale(a, mu, inv);
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
