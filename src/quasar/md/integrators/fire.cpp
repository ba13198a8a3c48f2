#include "quasar/md/integrators/fire.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"

namespace quasar::md {

namespace {
constexpr const char* kStepName = "minimisation step";
constexpr int kSums = 3;
}  // namespace

Fire::Fire(const MinimizeSettings& m, const IntegratorSettings& s, Backend backend, int num_atoms)
    : Integrator(s, backend, num_atoms), m_(m), cell_factor_(std::max(1, num_atoms)), dt_(m.dt),
      atoms_part_(backend, 9 * static_cast<std::size_t>(num_atoms)), sums_device_(backend, kSums),
      partial_(backend, kSums * (static_cast<std::size_t>(num_atoms) / 256 + 1)) {
  if (!(m_.dt > 0)) throw Error("the FIRE timestep must be positive");
  if (!(m_.max_move > 0)) throw Error("the largest FIRE move must be positive");
}

gpu::FireArrays Fire::arrays() {
  double* p = atoms_part_.data();
  const std::size_t n = static_cast<std::size_t>(num_atoms_);
  return {p, p + n, p + 2 * n, p + 3 * n, p + 4 * n, p + 5 * n, p + 6 * n, p + 7 * n, p + 8 * n};
}

std::vector<double> Fire::velocities() const {
  const std::size_t n = static_cast<std::size_t>(num_atoms_);
  std::vector<double> v(3 * n);
  atoms_part_.download(v.data(), 3 * n, 3 * n);
  return v;
}

Mat3 Fire::deformation() const {
  Mat3 d = identity3();
  if (m_.relax_cell)
    for (int c = 0; c < 9; ++c) d(c / 3, c % 3) += xc_[c] / cell_factor_;
  return d;
}

void Fire::start(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out) {
  if (atoms.size() != num_atoms_) throw Error("FIRE: the state has another number of atoms");
  box0_ = atoms.box();
  atoms_part_.set_zero();
  std::fill(xc_, xc_ + 9, 0.0);
  std::fill(vc_, vc_ + 9, 0.0);
  dt_ = m_.dt;
  alpha_ = 0.25;
  positive_ = 0;
  // The reference coordinates start as the positions.
  const std::size_t n = static_cast<std::size_t>(num_atoms_);
  atoms_part_.copy_from(atoms.x);
  atoms_part_.resize(9 * n);
  gpu::FireArrays f = arrays();
  if (atoms.backend() == Backend::Cuda) {
    device::copy_on_device(f.y, atoms.y.data(), n * sizeof(double));
    device::copy_on_device(f.z, atoms.z.data(), n * sizeof(double));
  } else {
    std::copy(atoms.y.data(), atoms.y.data() + n, f.y);
    std::copy(atoms.z.data(), atoms.z.data() + n, f.z);
  }
  result_ = {};
  started_ = true;
  evaluate(step, false, 0.0, atoms, lists, force_field, out);
}

void Fire::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                   ComputeRequest) {
  if (!started_) start(0, atoms, lists, force_field, out);
  const bool gpu = atoms.backend() == Backend::Cuda;
  const int n = num_atoms_;
  const int cell = m_.relax_cell ? 9 : 0;
  gpu::FireArrays f = arrays();
  // Power of the last evaluation's forces on the velocities: atoms first, then the cell.
  double p = sums_.power;
  for (int c = 0; c < cell; ++c) p += vc_[c] * gc_[c];
  const bool reset = !(p > 0);
  if (!reset) {
    if (++positive_ > 5) {
      dt_ = std::min(1.1 * dt_, 10 * m_.dt);
      alpha_ *= 0.99;
    }
  } else {
    positive_ = 0;
    dt_ = std::max(0.5 * dt_, 0.02 * m_.dt);
    alpha_ = 0.25;
  }
  const double dt = dt_, half_dt = 0.5 * dt;
  // Kick (after going back half a step and stopping when the power turned negative); |v|^2.
  double vn = 0;
  if (gpu) {
    gpu::fire_kick(n, f, reset, half_dt, dt, sums_device_.data(), partial_.data());
    vn = sums_device_.to_vector()[0];
  } else {
    for (int i = 0; i < n; ++i) {
      if (reset) {
        f.x[i] -= half_dt * f.vx[i];
        f.y[i] -= half_dt * f.vy[i];
        f.z[i] -= half_dt * f.vz[i];
        f.vx[i] = f.vy[i] = f.vz[i] = 0;
      }
      f.vx[i] += dt * f.gx[i];
      f.vy[i] += dt * f.gy[i];
      f.vz[i] += dt * f.gz[i];
      vn += f.vx[i] * f.vx[i];
      vn += f.vy[i] * f.vy[i];
      vn += f.vz[i] * f.vz[i];
    }
  }
  double fn = sums_.force_norm2;
  for (int c = 0; c < cell; ++c) {
    if (reset) {
      xc_[c] -= half_dt * vc_[c];
      vc_[c] = 0;
    }
    vc_[c] += dt * gc_[c];
  }
  sums_.velocity_norm2 = vn;
  for (int c = 0; c < cell; ++c) {
    vn += vc_[c] * vc_[c];
    fn += gc_[c] * gc_[c];
  }
  vn = std::sqrt(vn);
  fn = std::sqrt(fn);
  // Mix the velocities towards the force; the largest move.
  const bool mix = fn > 0;
  const double c1 = 1 - alpha_, c2 = alpha_ * vn / fn;
  double largest = 0;
  if (gpu) {
    gpu::fire_mix(n, f, mix, c1, c2, dt, sums_device_.data(), partial_.data());
    largest = sums_device_.to_vector()[0];
  } else {
    for (int i = 0; i < n; ++i) {
      if (mix) {
        f.vx[i] = c1 * f.vx[i] + c2 * f.gx[i];
        f.vy[i] = c1 * f.vy[i] + c2 * f.gy[i];
        f.vz[i] = c1 * f.vz[i] + c2 * f.gz[i];
      }
      largest = abs_max(dt * f.vx[i], largest);
      largest = abs_max(dt * f.vy[i], largest);
      largest = abs_max(dt * f.vz[i], largest);
    }
  }
  sums_.largest_move = largest;
  for (int c = 0; c < cell; ++c) {
    if (mix) vc_[c] = c1 * vc_[c] + c2 * gc_[c];
    largest = abs_max(dt * vc_[c], largest);
  }
  const double limit = largest > m_.max_move ? m_.max_move / largest : 1.0;
  const double move_by = limit * dt;
  for (int c = 0; c < cell; ++c) xc_[c] += move_by * vc_[c];
  evaluate(step, true, move_by, atoms, lists, force_field, out);
  result_.steps = step;
}

void Fire::evaluate(long step, bool move, double move_by, AtomState& atoms, NeighborLists& lists,
                    ForceField& force_field, ForceOutput& out) {
  const bool gpu = atoms.backend() == Backend::Cuda;
  const bool cell = m_.relax_cell;
  const int n = num_atoms_;
  const double skin = lists.skin();
  const double infinite = std::numeric_limits<double>::infinity();
  gpu::FireArrays f = arrays();
  const Mat3 d = deformation();
  Box b = box0_;
  b.set_matrix(box0_.h * d);
  const Vec3 origin = box0_.origin;
  // Place the atoms; a non-finite position stops before the lists see it.
  AtomsRef a = atoms.ref();
  if (gpu) {
    gpu::fire_place(a, f, move, move_by, origin, d, {faults_.slots(), fault_when(step, kAfterDrift), infinite});
  } else {
    for (int i = 0; i < n; ++i) {
      if (move) {
        f.x[i] += move_by * f.vx[i];
        f.y[i] += move_by * f.vy[i];
        f.z[i] += move_by * f.vz[i];
      }
      const Vec3 p = fire_position({f.x[i], f.y[i], f.z[i]}, origin, d);
      a.x[i] = p.x;
      a.y[i] = p.y;
      a.z[i] = p.z;
      AtomFault fault;
      find_nonfinite(p.x, p.y, p.z, kBadPosition, fault);
      faults_.note(step, kAfterDrift, a.id[i], fault);
    }
  }
  faults_.throw_if_any(atoms, skin, kStepName);
  atoms.set_box(b);
  lists.update(atoms, 0);
  force_field.compute(atoms, lists.refs(), {true, true, false}, out);
  // The lists may have wrapped atoms into the cell: carry that into the reference coordinates.
  const Mat3 dinv = inverse(d), dt = transpose(d);
  a = atoms.ref();
  if (gpu) {
    gpu::fire_forces(a, f, origin, dinv, dt, sums_device_.data(), partial_.data(),
                     {faults_.slots(), fault_when(step, kAfterForces), infinite});
    const std::vector<double> s = sums_device_.to_vector();
    sums_.max_force = s[0];
    sums_.power = s[1];
    sums_.force_norm2 = s[2];
  } else {
    Sums s;
    for (int i = 0; i < n; ++i) {
      const Vec3 fi{a.fx[i], a.fy[i], a.fz[i]};
      AtomFault fault;
      find_nonfinite(fi.x, fi.y, fi.z, kBadForce, fault);
      faults_.note(step, kAfterForces, a.id[i], fault);
      const Vec3 xr = fire_reference({a.x[i], a.y[i], a.z[i]}, origin, dinv);
      f.x[i] = xr.x;
      f.y[i] = xr.y;
      f.z[i] = xr.z;
      const Vec3 g = fi * dt;  // dE/dx = -(d F)
      f.gx[i] = g.x;
      f.gy[i] = g.y;
      f.gz[i] = g.z;
      s.max_force = abs_max(fi.x, abs_max(fi.y, abs_max(fi.z, s.max_force)));
      s.power += f.vx[i] * g.x;
      s.power += f.vy[i] * g.y;
      s.power += f.vz[i] * g.z;
      s.force_norm2 += g.x * g.x;
      s.force_norm2 += g.y * g.y;
      s.force_norm2 += g.z * g.z;
    }
    sums_.max_force = s.max_force;
    sums_.power = s.power;
    sums_.force_norm2 = s.force_norm2;
  }
  faults_.throw_if_any(atoms, skin, kStepName);
  const double energy = out.energy();
  if (!std::isfinite(energy)) throw Error(md::describe({step, -1, {kBadEnergy, energy}}, atoms, skin, kStepName));
  MinimizeResult& r = result_;
  r.max_force = sums_.max_force;
  const double p0 = m_.pressure / units::nktv2p;  // eV/Å^3
  const double vol = b.volume();
  r.energy = energy + (cell ? p0 * vol : 0.0);
  if (cell) {
    Mat3 w = out.virial();
    r.max_stress = 0;
    for (int k = 0; k < 3; ++k) w(k, k) -= p0 * vol;
    for (int c = 0; c < 9; ++c) r.max_stress = std::max(r.max_stress, std::abs(w(c / 3, c % 3)) / vol * units::nktv2p);
    const Mat3 g = transpose(dinv) * w;
    for (int c = 0; c < 9; ++c) gc_[c] = g(c / 3, c % 3) / cell_factor_;
  }
  r.converged = r.max_force < m_.fmax && (!cell || r.max_stress < m_.pressure_tol);
}

MinimizeResult minimize_fire(AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                             const MinimizeSettings& s) {
  Fire fire(s, IntegratorSettings{}, atoms.backend(), atoms.size());
  fire.start(0, atoms, lists, force_field, out);
  for (long step = 1; !fire.converged() && step <= s.max_steps; ++step)
    fire.advance(step, atoms, lists, force_field, out, {true, true, false});
  return fire.result();
}

}  // namespace quasar::md
