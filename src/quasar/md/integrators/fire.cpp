#include "quasar/md/fire.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/md/safety.hpp"

namespace quasar::md {

MinimizeResult minimize_fire(AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                             const MinimizeSettings& s) {
  const int n = atoms.size();
  const std::size_t na = 3 * static_cast<std::size_t>(n);
  const bool cell = s.relax_cell;
  const Box box0 = atoms.box();
  const double cell_factor = std::max(1, n);
  const double p0 = s.pressure / units::nktv2p;  // eV/Å^3
  // Generalised coordinates: reference positions (3n), then cell_factor * strain (9) with the cell.
  std::vector<double> x(na + (cell ? 9 : 0), 0.0), v(x.size(), 0.0), f(x.size(), 0.0);
  {
    const auto hx = atoms.x.to_vector(), hy = atoms.y.to_vector(), hz = atoms.z.to_vector();
    for (int i = 0; i < n; ++i) {
      x[3 * i] = hx[i];
      x[3 * i + 1] = hy[i];
      x[3 * i + 2] = hz[i];
    }
  }
  MinimizeResult r;
  // A non-finite position, force or energy stops the minimisation, naming the step and the atom.
  const std::vector<long> ids = atoms.id.to_vector();
  auto stop_if_nonfinite = [&](const std::vector<double>& x3, const std::vector<double>& y3,
                               const std::vector<double>& z3, uint32_t kind, long step) {
    if (const auto fault = find_nonfinite_rows(x3.data(), y3.data(), z3.data(), ids.data(), n, kind, step))
      throw Error(describe(*fault, atoms, lists.skin(), "minimisation step"));
  };
  // Positions and cell of generalised coordinates X; forces and convergence measures at X.
  auto evaluate = [&](const std::vector<double>& X, long step) {
    Mat3 d = identity3();
    if (cell)
      for (int c = 0; c < 9; ++c) d(c / 3, c % 3) += X[na + c] / cell_factor;
    Box b = box0;
    b.set_matrix(box0.h * d);
    std::vector<double> px(n), py(n), pz(n);
    for (int i = 0; i < n; ++i) {
      const Vec3 rel = Vec3{X[3 * i], X[3 * i + 1], X[3 * i + 2]} - box0.origin;
      const Vec3 p = box0.origin + rel * d;
      px[i] = p.x;
      py[i] = p.y;
      pz[i] = p.z;
    }
    stop_if_nonfinite(px, py, pz, kBadPosition, step);
    atoms.set_box(b);
    atoms.x.assign(px);
    atoms.y.assign(py);
    atoms.z.assign(pz);
    lists.update(atoms, 0);
    force_field.compute(atoms, lists.refs(), {true, true, false}, out);
    const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
    stop_if_nonfinite(fx, fy, fz, kBadForce, step);
    if (!std::isfinite(out.energy()))
      throw Error(describe({step, -1, {kBadEnergy, out.energy()}}, atoms, lists.skin(), "minimisation step"));
    // The lists may have wrapped atoms into the cell: carry that into the reference positions.
    const auto wx = atoms.x.to_vector(), wy = atoms.y.to_vector(), wz = atoms.z.to_vector();
    const Mat3 dinv = inverse(d);
    r.max_force = 0;
    for (int i = 0; i < n; ++i) {
      const Vec3 fi{fx[i], fy[i], fz[i]};
      const Vec3 xr = box0.origin + (Vec3{wx[i], wy[i], wz[i]} - box0.origin) * dinv;
      x[3 * i] = xr.x;
      x[3 * i + 1] = xr.y;
      x[3 * i + 2] = xr.z;
      const Vec3 g = fi * transpose(d);  // dE/dX = -(D F)
      f[3 * i] = g.x;
      f[3 * i + 1] = g.y;
      f[3 * i + 2] = g.z;
      r.max_force = std::max({r.max_force, std::abs(fi.x), std::abs(fi.y), std::abs(fi.z)});
    }
    const double vol = b.volume();
    r.energy = out.energy() + (cell ? p0 * vol : 0.0);
    if (cell) {
      Mat3 w = out.virial();
      r.max_stress = 0;
      for (int a = 0; a < 3; ++a) w(a, a) -= p0 * vol;
      for (int c = 0; c < 9; ++c)
        r.max_stress = std::max(r.max_stress, std::abs(w(c / 3, c % 3)) / vol * units::nktv2p);
      const Mat3 g = transpose(dinv) * w;
      for (int c = 0; c < 9; ++c) f[na + c] = g(c / 3, c % 3) / cell_factor;
    }
    return r.max_force < s.fmax && (!cell || r.max_stress < s.pressure_tol);
  };

  double dt = s.dt, alpha = 0.25;
  const double dt_max = 10 * s.dt, dt_min = 0.02 * s.dt;
  int positive = 0;
  r.converged = evaluate(x, 0);
  for (r.steps = 0; !r.converged && r.steps < s.max_steps; ++r.steps) {
    double p = 0, vn = 0, fn = 0;
    for (std::size_t k = 0; k < x.size(); ++k) p += v[k] * f[k];
    if (p > 0) {
      if (++positive > 5) {
        dt = std::min(1.1 * dt, dt_max);
        alpha *= 0.99;
      }
    } else {
      positive = 0;
      dt = std::max(0.5 * dt, dt_min);
      alpha = 0.25;
      for (std::size_t k = 0; k < x.size(); ++k) {
        x[k] -= 0.5 * dt * v[k];
        v[k] = 0;
      }
    }
    for (std::size_t k = 0; k < x.size(); ++k) v[k] += dt * f[k];
    for (std::size_t k = 0; k < x.size(); ++k) {
      vn += v[k] * v[k];
      fn += f[k] * f[k];
    }
    vn = std::sqrt(vn);
    fn = std::sqrt(fn);
    if (fn > 0)
      for (std::size_t k = 0; k < x.size(); ++k) v[k] = (1 - alpha) * v[k] + alpha * vn / fn * f[k];
    double largest = 0;
    for (double vk : v) largest = std::max(largest, std::abs(dt * vk));
    const double limit = largest > s.max_move ? s.max_move / largest : 1.0;
    for (std::size_t k = 0; k < x.size(); ++k) x[k] += limit * dt * v[k];
    r.converged = evaluate(x, r.steps + 1);
  }
  return r;
}

}  // namespace quasar::md
