#pragma once
// Per-atom integrator updates shared by the CPU loops and the CUDA kernels (metal units: v in Å/ps,
// f in eV/Å, m in amu).
#include <cmath>
#include <cstdint>

#include "quasar/core/atoms.hpp"
#include "quasar/core/random.hpp"
#include "quasar/core/units.hpp"

namespace quasar::md {

struct StepParams {
  double dt;             // ps
  double kt;             // eV, thermostat target
  double langevin_c1;    // exp(-gamma dt)
  uint64_t seed;
  uint64_t step;
};

// A kick by the force f over half of dt: v += dt/2 f/m. The multiple-time-step integrator gives
// each level's force and dt = its period times the inner step.
QUASAR_HD void kick(AtomsRef& a, int i, double fx, double fy, double fz, double dt) {
  const double s = 0.5 * dt * units::ftm2v / a.type_mass[a.type[i]];
  a.vx[i] += s * fx;
  a.vy[i] += s * fy;
  a.vz[i] += s * fz;
}

// Velocity Verlet half kick by the atoms' forces: v += dt/2 f/m.
QUASAR_HD void half_kick(AtomsRef& a, int i, double dt) { kick(a, i, a.fx[i], a.fy[i], a.fz[i], dt); }

QUASAR_HD void drift(AtomsRef& a, int i, double dt) {
  a.x[i] += dt * a.vx[i];
  a.y[i] += dt * a.vy[i];
  a.z[i] += dt * a.vz[i];
}

// Exact Ornstein-Uhlenbeck step of the velocity over dt (c1 = exp(-gamma dt)) towards kt, with
// normals drawn from (seed, step, index) so that any backend and any atom order draw the same
// numbers. Returns the kinetic energy it added (eV), for the conserved quantity.
QUASAR_HD double langevin_o(AtomsRef& a, int i, double c1, double kt, uint64_t seed, uint64_t step, uint32_t index) {
  const double m = a.type_mass[a.type[i]];
  const double sigma = sqrt((1.0 - c1 * c1) * kt / (m * units::mvv2e));
  double g[3];
  normal3(seed, step, index, 0, g);
  const double v0 = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
  a.vx[i] = c1 * a.vx[i] + sigma * g[0];
  a.vy[i] = c1 * a.vy[i] + sigma * g[1];
  a.vz[i] = c1 * a.vz[i] + sigma * g[2];
  const double v1 = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
  return 0.5 * m * units::mvv2e * (v1 - v0);
}

// One system: the run's seed and the atom's input index key the normals.
QUASAR_HD double langevin_o(AtomsRef& a, int i, const StepParams& p) {
  return langevin_o(a, i, p.langevin_c1, p.kt, p.seed, p.step, static_cast<uint32_t>(a.id[i]));
}

// BAOAB's middle: A (half drift), O, A (half drift). Returns the kinetic energy O added.
QUASAR_HD double baoab_aoa(AtomsRef& a, int i, const StepParams& p) {
  drift(a, i, 0.5 * p.dt);
  const double de = langevin_o(a, i, p);
  drift(a, i, 0.5 * p.dt);
  return de;
}

// BAOAB up to the force evaluation: B (half kick), A (half drift), O, A (half drift).
QUASAR_HD double baoab_first_half(AtomsRef& a, int i, const StepParams& p) {
  half_kick(a, i, p.dt);
  return baoab_aoa(a, i, p);
}

// A batch of independent systems (an ensemble, md/ensemble.hpp): what each system has of its own,
// read by the integrators' batch loops and kernels (md/integrators/systems.hpp). Atom i belongs to
// system a.system[i], whose atoms are [first[s], first[s + 1]) in input order and in every sorted order.
struct SystemsRef {
  int count = 0;
  const int* first = nullptr;             // count + 1 offsets
  const double* temperature = nullptr;    // K, the thermostat's target
  const uint64_t* stream = nullptr;       // the seed of the system's random numbers
  const int* active = nullptr;            // 0: finished, the system's atoms stay where they are
  // The first fault of each system (FaultRecord: two words per system, `when` first). A system whose
  // fault was recorded by an earlier launch (an earlier step or site) no longer moves.
  const unsigned long long* fault = nullptr;

  // Whether system s moves at the check site `when` (fault_when of md/safety.hpp).
  QUASAR_HD bool moves(int s, unsigned long long when) const {
    return active[s] != 0 && fault[2 * s] >= when;
  }
  QUASAR_HD int atoms_of(int s) const { return first[s + 1] - first[s]; }
  // The atom's index within its system: with the system's stream, the key of its random numbers, as
  // the input index and the seed are for one system (so a system draws what it would alone).
  QUASAR_HD uint32_t index_in(const AtomsRef& a, int i, int s) const {
    return static_cast<uint32_t>(a.id[i] - first[s]);
  }
};

// Degrees of freedom of a system of n atoms (as Integrator's: momentum removed, at least 1).
QUASAR_HD double system_dof(int n) {
  const double d = 3.0 * n - 3.0;
  return d < 1 ? 1.0 : d;
}

// Kinetic energy tensor contributions m v_a v_b (eV): xx, yy, zz, xy, xz, yz.
QUASAR_HD void kinetic_tensor(const AtomsRef& a, int i, double k[6]) {
  const double m = a.type_mass[a.type[i]] * units::mvv2e;
  k[0] = m * a.vx[i] * a.vx[i];
  k[1] = m * a.vy[i] * a.vy[i];
  k[2] = m * a.vz[i] * a.vz[i];
  k[3] = m * a.vx[i] * a.vy[i];
  k[4] = m * a.vx[i] * a.vz[i];
  k[5] = m * a.vy[i] * a.vz[i];
}

// A gamma(shape, 1) variate (Marsaglia-Tsang), from counter-based normals and uniforms on
// channel `ch`: deterministic for (seed, step).
QUASAR_HD double gamma_variate(double shape, uint64_t seed, uint64_t step, uint32_t ch) {
  const double boost_shape = shape < 1.0 ? shape + 1.0 : shape;
  const double d = boost_shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (uint32_t attempt = 0;; ++attempt) {
    uint32_t w[4];
    Philox::draw(seed, step, 0xFFFFFFF0u - ch, attempt, w);
    double g0, g1;
    normal_pair(w, g0, g1);
    const double v = (1.0 + c * g0) * (1.0 + c * g0) * (1.0 + c * g0);
    if (v <= 0) continue;
    const double u = uniform_open(w[3]);
    if (log(u) < 0.5 * g0 * g0 + d - d * v + d * log(v)) {
      double x = d * v;
      if (shape < 1.0) {
        Philox::draw(seed, step, 0xFFFFFF00u - ch, attempt, w);
        x *= pow(uniform_open(w[0]), 1.0 / shape);
      }
      return x;
    }
  }
}

// Bussi-Donadio-Parrinello velocity rescaling factor for kinetic energy ke with `dof` degrees of
// freedom, target kt, c = exp(-dt/tau).
QUASAR_HD double bussi_alpha(double ke, double dof, double kt, double c, uint64_t seed, uint64_t step) {
  if (ke <= 0) return 1.0;
  const double ke_target = 0.5 * dof * kt;
  uint32_t w[4];
  Philox::draw(seed, step, 0xFFFFFFFFu, 7, w);
  double r1, unused;
  normal_pair(w, r1, unused);
  const double sum_r2 = dof > 1 ? 2.0 * gamma_variate(0.5 * (dof - 1), seed, step, 1) : 0.0;
  const double factor = ke_target / (dof * ke);
  double alpha2 = c + (1 - c) * factor * (r1 * r1 + sum_r2) + 2 * r1 * sqrt(c * (1 - c) * factor);
  double alpha = sqrt(alpha2 > 0 ? alpha2 : 0.0);
  if (r1 + sqrt(c / ((1 - c) * factor)) < 0) alpha = -alpha;
  return alpha;
}

// FIRE's generalised coordinates: the atoms' reference positions x (and, with the cell, the
// deformation gradient d, kept on the host); an atom sits at origin + (x - origin) d.
QUASAR_HD Vec3 fire_position(Vec3 x, Vec3 origin, const Mat3& d) { return origin + (x - origin) * d; }
QUASAR_HD Vec3 fire_reference(Vec3 p, Vec3 origin, const Mat3& dinv) { return origin + (p - origin) * dinv; }
// max(|a|, b), for the largest force and move.
QUASAR_HD double abs_max(double a, double b) { return fabs(a) > b ? fabs(a) : b; }

}  // namespace quasar::md
