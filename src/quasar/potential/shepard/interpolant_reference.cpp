// The reference evaluation: each replica's weight and Taylor term one after another, in the order
// of the method's equations (scalar loops), against which the fast path (interpolant.cpp) is
// tested.
#include <algorithm>
#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "quasar/potential/shepard/interpolant_parts.hpp"

namespace quasar::shepard {

namespace {

// (du/dZ_l) / u for replica r with differences dz, into out (pairs values).
void weight_log_derivative(const Interpolant& f, int r, const double* dz, double u, double* out) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs);
  const double* inv_d = &f.point_inv_d[static_cast<std::size_t>(r / f.group) * static_cast<std::size_t>(f.width)];
  const int* source = &f.pair_source[static_cast<std::size_t>(r % f.group) * nb];
  const Parameters& p = f.parameters;
  if (p.weight == WeightKind::TwoPart) {
    double s = 0;
    for (std::size_t l = 0; l < nb; ++l) {
      const double t = dz[l] * inv_d[source[l]];
      s += t * t;
    }
    // (p s^(p-1) + q s^(q-1)) / (s^p + s^q) = (p + q t) / (s (1 + t)), t = s^(q-p); q / s when t overflows.
    const double t = power(s, p.q - p.p);
    const double dlog_ds = std::isinf(t) ? p.q / s : (p.p + p.q * t) / (s * (1 + t));
    for (std::size_t l = 0; l < nb; ++l) out[l] = dlog_ds * 2 * dz[l] * inv_d[source[l]] * inv_d[source[l]];
    return;
  }
  for (std::size_t l = 0; l < nb; ++l) {
    const double id = inv_d[source[l]], t = dz[l] * id;
    const double g = 2 * p.p * power(std::abs(t), 2 * p.p - 1) * id;
    out[l] = (t < 0 ? -g : g) / u;
  }
}

}  // namespace

double weight_denominator(const Interpolant& f, int r, const double* z, double* dz) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs),
                    base = static_cast<std::size_t>(r / f.group) * static_cast<std::size_t>(f.width);
  const int* source = &f.pair_source[static_cast<std::size_t>(r % f.group) * nb];
  const Parameters& p = f.parameters;
  if (p.weight == WeightKind::TwoPart) {
    double s = 0;
    for (std::size_t l = 0; l < nb; ++l) {
      const std::size_t m = base + static_cast<std::size_t>(source[l]);
      dz[l] = z[l] - f.point_z[m];
      const double t = dz[l] * f.point_inv_d[m];
      s += t * t;
    }
    return power(s, p.p) + power(s, p.q);
  }
  double u = 0;
  for (std::size_t l = 0; l < nb; ++l) {
    const std::size_t m = base + static_cast<std::size_t>(source[l]);
    dz[l] = z[l] - f.point_z[m];
    u += power(std::abs(dz[l] * f.point_inv_d[m]), 2 * p.p);
  }
  return u;
}

void select_neighbours_reference(const Interpolant& f, const double* z, std::vector<int>& set, Workspace& ws) {
  const std::size_t np = static_cast<std::size_t>(f.points);
  ws.scaled.resize(np);
  ws.dzeta.resize(static_cast<std::size_t>(f.pairs));
  double u_min = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < np; ++r) {
    ws.scaled[r] = weight_denominator(f, static_cast<int>(r), z, ws.dzeta.data());
    u_min = std::min(u_min, ws.scaled[r]);
  }
  set.clear();
  if (u_min == 0) {  // at a data point (or one of its replicas): those points alone
    for (std::size_t r = 0; r < np; ++r)
      if (ws.scaled[r] == 0) set.push_back(static_cast<int>(r));
    return;
  }
  // Relative weights w_r = v_r / sum v = (u_min / u_r) / sum (u_min / u), each ratio in [0, 1].
  double total = 0;
  for (std::size_t r = 0; r < np; ++r) total += (ws.scaled[r] = u_min / ws.scaled[r]);
  for (std::size_t r = 0; r < np; ++r)
    if (ws.scaled[r] / total > f.parameters.wtol) set.push_back(static_cast<int>(r));
}

double interpolate_reference(const Interpolant& f, const double* x, std::span<const int> set, double* grad,
                             Workspace& ws) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs), ni = static_cast<std::size_t>(f.internal),
                    w = static_cast<std::size_t>(f.width), ns = set.size();
  if (ns == 0) throw Error("shepard: no data point in the neighbour set");
  ws.z.resize(nb);
  inverse_distances(x, f.atoms, ws.z.data());
  ws.scaled.resize(ns);
  ws.taylor.resize(ns);
  ws.dz_taylor.resize(ns * nb);
  ws.dz_weight.resize(ns * nb);
  ws.dzeta.resize(ni);
  std::vector<double> dz(nb), hd(ni);
  for (std::size_t j = 0; j < ns; ++j) {
    const int r = set[j];
    const std::size_t rz = static_cast<std::size_t>(r / f.group);  // the data point
    const int* source = &f.pair_source[static_cast<std::size_t>(r % f.group) * nb];
    const double u = weight_denominator(f, r, ws.z.data(), dz.data());
    ws.scaled[j] = u;
    // zeta - zeta(i) = U^T (Z - Z(i)); T = E + g.dzeta + dzeta.H.dzeta / 2.
    for (std::size_t k = 0; k < ni; ++k) ws.dzeta[k] = 0;
    for (std::size_t l = 0; l < nb; ++l) {
      const double* row = &f.u[(rz * nb + static_cast<std::size_t>(source[l])) * w];
      for (std::size_t k = 0; k < ni; ++k) ws.dzeta[k] += row[k] * dz[l];
    }
    double t = f.energy[rz];
    for (std::size_t k = 0; k < ni; ++k) {
      const double* h = &f.hessian[(rz * ni + k) * w];
      double s = 0;
      for (std::size_t m = 0; m < ni; ++m) s += h[m] * ws.dzeta[m];
      hd[k] = f.gradient[rz * w + k] + s;  // dT/dzeta
      t += ws.dzeta[k] * (f.gradient[rz * w + k] + 0.5 * s);
    }
    ws.taylor[j] = t;
    if (!grad) continue;
    double* tz = &ws.dz_taylor[j * nb];  // dT/dZ = U dT/dzeta
    for (std::size_t l = 0; l < nb; ++l) {
      const double* row = &f.u[(rz * nb + static_cast<std::size_t>(source[l])) * w];
      double s = 0;
      for (std::size_t k = 0; k < ni; ++k) s += row[k] * hd[k];
      tz[l] = s;
    }
    if (u > 0) weight_log_derivative(f, r, dz.data(), u, &ws.dz_weight[j * nb]);
  }
  bool at_point = false;
  const double v = weigh_terms(ns, ws, at_point);
  if (!grad) return v;
  // dV/dZ = sum_j w_j [dT_j/dZ - (T_j - V) (du_j/dZ) / u_j]; then dV/dx = B^T dV/dZ.
  ws.dvdz.assign(nb, 0.0);
  for (std::size_t j = 0; j < ns; ++j) {
    const double wj = ws.scaled[j];
    if (wj == 0) continue;
    const double* tz = &ws.dz_taylor[j * nb];
    const double* wz = &ws.dz_weight[j * nb];
    const double spread = at_point ? 0.0 : ws.taylor[j] - v;
    for (std::size_t l = 0; l < nb; ++l) ws.dvdz[l] += wj * (tz[l] - spread * (at_point ? 0.0 : wz[l]));
  }
  add_cartesian_gradient(f, x, ws.z.data(), ws.dvdz.data(), grad);
  return v;
}

double evaluate_reference(const Interpolant& f, const double* x, double* grad) {
  Workspace ws;
  ws.z.resize(static_cast<std::size_t>(f.pairs));
  inverse_distances(x, f.atoms, ws.z.data());
  select_neighbours_reference(f, ws.z.data(), ws.set, ws);
  return interpolate_reference(f, x, ws.set, grad, ws);
}

}  // namespace quasar::shepard
