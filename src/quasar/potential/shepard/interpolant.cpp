// The interpolation itself: weights, pruning, Taylor terms and their Cartesian gradient.
#include <algorithm>
#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

Interpolant Interpolant::from(const DataSet& set) {
  if (std::string p = set.problem(); !p.empty()) throw Error("shepard data set: " + p);
  if (set.points.empty()) throw Error("shepard data set: it has no data points to interpolate");
  Interpolant f;
  f.atoms = set.atoms();
  f.pairs = set.pairs();
  f.internal = set.internal();
  f.group = static_cast<int>(set.permutations.size());
  f.data_points = static_cast<int>(set.points.size());
  f.points = f.data_points * f.group;
  f.parameters = set.parameters;
  const std::size_t nb = static_cast<std::size_t>(f.pairs), ni = static_cast<std::size_t>(f.internal),
                    np = static_cast<std::size_t>(f.points), nd = set.points.size(), ng = set.permutations.size();
  f.pair_source.resize(ng * nb);
  for (std::size_t g = 0; g < ng; ++g) {
    const auto& perm = set.permutations[g];
    int l = 0;
    for (int a = 0; a < f.atoms; ++a)
      for (int b = a + 1; b < f.atoms; ++b, ++l)
        f.pair_source[g * nb + static_cast<std::size_t>(pair_index(perm[static_cast<std::size_t>(a)],
                                                                   perm[static_cast<std::size_t>(b)], f.atoms))] = l;
  }
  f.z0.resize(np * nb);
  f.inv_d.resize(np * nb);
  f.u.resize(nd * nb * ni);
  f.zeta0.resize(nd * ni);
  f.energy.resize(nd);
  f.gradient.resize(nd * ni);
  f.hessian.resize(nd * ni * ni);
  std::vector<double> z(nb);
  for (std::size_t i = 0; i < nd; ++i) {
    const DataPoint& d = set.points[i];
    inverse_distances(d.positions.data(), f.atoms, z.data());
    for (std::size_t g = 0; g < ng; ++g)
      for (std::size_t l = 0; l < nb; ++l) {
        const std::size_t from = static_cast<std::size_t>(f.pair_source[g * nb + l]), r = i * ng + g;
        f.z0[r * nb + l] = z[from];
        f.inv_d[r * nb + l] = 1.0 / d.confidence[from];
      }
    std::copy(d.u.begin(), d.u.end(), f.u.begin() + static_cast<std::ptrdiff_t>(i * nb * ni));
    for (std::size_t k = 0; k < ni; ++k) {
      double s = 0;
      for (std::size_t m = 0; m < nb; ++m) s += d.u[m * ni + k] * z[m];
      f.zeta0[i * ni + k] = s;
    }
    f.energy[i] = d.energy;
    std::copy(d.gradient.begin(), d.gradient.end(), f.gradient.begin() + static_cast<std::ptrdiff_t>(i * ni));
    std::copy(d.hessian.begin(), d.hessian.end(), f.hessian.begin() + static_cast<std::ptrdiff_t>(i * ni * ni));
  }
  return f;
}

namespace {

// s^e, by multiplication when e is a small whole number (p = 2, q = 12: the usual case).
double power(double s, double e) {
  if (e == std::floor(e) && e >= 0 && e <= 64) {
    double out = 1, base = s;
    for (unsigned n = static_cast<unsigned>(e); n; n >>= 1, base *= base)
      if (n & 1u) out *= base;
    return out;
  }
  return std::pow(s, e);
}

// (du/dZ_l) / u for point r with differences dz, into out (pairs values).
void weight_log_derivative(const Interpolant& f, int r, const double* dz, double u, double* out) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs), base = static_cast<std::size_t>(r) * nb;
  const Parameters& p = f.parameters;
  if (p.weight == WeightKind::TwoPart) {
    double s = 0;
    for (std::size_t l = 0; l < nb; ++l) {
      const double t = dz[l] * f.inv_d[base + l];
      s += t * t;
    }
    // (p s^(p-1) + q s^(q-1)) / (s^p + s^q) = (p + q t) / (s (1 + t)), t = s^(q-p); q / s when t overflows.
    const double t = power(s, p.q - p.p);
    const double dlog_ds = std::isinf(t) ? p.q / s : (p.p + p.q * t) / (s * (1 + t));
    for (std::size_t l = 0; l < nb; ++l) out[l] = dlog_ds * 2 * dz[l] * f.inv_d[base + l] * f.inv_d[base + l];
    return;
  }
  for (std::size_t l = 0; l < nb; ++l) {
    const double t = dz[l] * f.inv_d[base + l];
    const double g = 2 * p.p * power(std::abs(t), 2 * p.p - 1) * f.inv_d[base + l];
    out[l] = (t < 0 ? -g : g) / u;
  }
}

}  // namespace

double weight_denominator(const Interpolant& f, int r, const double* z, double* dz) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs), base = static_cast<std::size_t>(r) * nb;
  const Parameters& p = f.parameters;
  if (p.weight == WeightKind::TwoPart) {
    double s = 0;
    for (std::size_t l = 0; l < nb; ++l) {
      dz[l] = z[l] - f.z0[base + l];
      const double t = dz[l] * f.inv_d[base + l];
      s += t * t;
    }
    return power(s, p.p) + power(s, p.q);
  }
  double u = 0;
  for (std::size_t l = 0; l < nb; ++l) {
    dz[l] = z[l] - f.z0[base + l];
    u += power(std::abs(dz[l] * f.inv_d[base + l]), 2 * p.p);
  }
  return u;
}

void select_neighbours(const Interpolant& f, const double* z, std::vector<int>& set, Workspace& ws) {
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

double interpolate(const Interpolant& f, const double* x, std::span<const int> set, double* grad, Workspace& ws) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs), ni = static_cast<std::size_t>(f.internal),
                    ns = set.size();
  if (ns == 0) throw Error("shepard: no data point in the neighbour set");
  ws.z.resize(nb);
  inverse_distances(x, f.atoms, ws.z.data());
  ws.scaled.resize(ns);
  ws.taylor.resize(ns);
  ws.dz_taylor.resize(ns * nb);
  ws.dz_weight.resize(ns * nb);
  ws.dzeta.resize(ni);
  std::vector<double> dz(nb), hd(ni);
  double u_min = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < ns; ++j) {
    const int r = set[j];
    const std::size_t rz = static_cast<std::size_t>(r / f.group);  // the data point
    const int* source = &f.pair_source[static_cast<std::size_t>(r % f.group) * nb];
    const double u = weight_denominator(f, r, ws.z.data(), dz.data());
    ws.scaled[j] = u;
    u_min = std::min(u_min, u);
    // zeta - zeta(i) = U^T (Z - Z(i)); T = E + g.dzeta + dzeta.H.dzeta / 2.
    for (std::size_t k = 0; k < ni; ++k) ws.dzeta[k] = 0;
    for (std::size_t l = 0; l < nb; ++l) {
      const double* row = &f.u[(rz * nb + static_cast<std::size_t>(source[l])) * ni];
      for (std::size_t k = 0; k < ni; ++k) ws.dzeta[k] += row[k] * dz[l];
    }
    double t = f.energy[rz];
    for (std::size_t k = 0; k < ni; ++k) {
      const double* h = &f.hessian[(rz * ni + k) * ni];
      double s = 0;
      for (std::size_t m = 0; m < ni; ++m) s += h[m] * ws.dzeta[m];
      hd[k] = f.gradient[rz * ni + k] + s;  // dT/dzeta
      t += ws.dzeta[k] * (f.gradient[rz * ni + k] + 0.5 * s);
    }
    ws.taylor[j] = t;
    if (!grad) continue;
    double* tz = &ws.dz_taylor[j * nb];  // dT/dZ = U dT/dzeta
    for (std::size_t l = 0; l < nb; ++l) {
      const double* row = &f.u[(rz * nb + static_cast<std::size_t>(source[l])) * ni];
      double s = 0;
      for (std::size_t k = 0; k < ni; ++k) s += row[k] * hd[k];
      tz[l] = s;
    }
    if (u > 0) weight_log_derivative(f, r, dz.data(), u, &ws.dz_weight[j * nb]);
  }
  // Relative weights over the set: at a data point the points there share the weight equally
  // (their Taylor terms agree; the other weights and every weight's derivative vanish there).
  const bool at_point = u_min == 0;
  double total = 0;
  for (std::size_t j = 0; j < ns; ++j) {
    ws.scaled[j] = at_point ? (ws.scaled[j] == 0 ? 1.0 : 0.0) : u_min / ws.scaled[j];
    total += ws.scaled[j];
  }
  double v = 0;
  for (std::size_t j = 0; j < ns; ++j) v += (ws.scaled[j] /= total) * ws.taylor[j];
  if (!grad) return v;
  // dV/dZ = sum_j w_j [dT_j/dZ - (T_j - V) (du_j/dZ) / u_j]; then dV/dx = B^T dV/dZ.
  ws.dvdz.assign(nb, 0.0);
  for (std::size_t j = 0; j < ns; ++j) {
    const double w = ws.scaled[j];
    if (w == 0) continue;
    const double* tz = &ws.dz_taylor[j * nb];
    const double* wz = &ws.dz_weight[j * nb];
    const double spread = at_point ? 0.0 : ws.taylor[j] - v;
    for (std::size_t l = 0; l < nb; ++l) ws.dvdz[l] += w * (tz[l] - spread * (at_point ? 0.0 : wz[l]));
  }
  const int n = f.atoms;
  std::fill(grad, grad + 3 * n, 0.0);
  int l = 0;
  for (int a = 0; a < n; ++a)
    for (int c = a + 1; c < n; ++c, ++l) {
      const double zl = ws.z[static_cast<std::size_t>(l)], scale = ws.dvdz[static_cast<std::size_t>(l)] * zl * zl * zl;
      for (int k = 0; k < 3; ++k) {
        const double g = -(x[3 * a + k] - x[3 * c + k]) * scale;  // dZ/dx_a = -r / R^3
        grad[3 * a + k] += g;
        grad[3 * c + k] -= g;
      }
    }
  return v;
}

double evaluate(const Interpolant& f, const double* x, double* grad, Workspace& ws) {
  ws.z.resize(static_cast<std::size_t>(f.pairs));
  inverse_distances(x, f.atoms, ws.z.data());
  select_neighbours(f, ws.z.data(), ws.set, ws);
  return interpolate(f, x, ws.set, grad, ws);
}

double evaluate(const Interpolant& f, const double* x, double* grad) {
  Workspace ws;
  return evaluate(f, x, grad, ws);
}

void check_batch(const Interpolant& f, std::span<const double> configs, std::span<const double> energies,
                 std::span<const double> gradients) {
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  if (configs.size() % n3 != 0 || configs.size() / n3 != energies.size())
    throw Error("shepard: expected " + std::to_string(n3) + " coordinates per configuration and one energy each");
  if (!gradients.empty() && gradients.size() != configs.size())
    throw Error("shepard: the gradients need as many values as the configurations");
}

void evaluate_batch(const Interpolant& f, std::span<const double> configs, std::span<double> energies,
                    std::span<double> gradients) {
  check_batch(f, configs, energies, gradients);
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  device::parallel_ranges(static_cast<long>(energies.size()), device::threads_for(static_cast<long>(energies.size()), 4),
                          [&](int, long begin, long end) {
                            Workspace ws;
                            for (long c = begin; c < end; ++c) {
                              const std::size_t at = static_cast<std::size_t>(c) * n3;
                              energies[static_cast<std::size_t>(c)] =
                                  evaluate(f, configs.data() + at, gradients.empty() ? nullptr : gradients.data() + at, ws);
                            }
                          });
}

void check_groups(const Interpolant& f, std::span<const double> configs, std::span<const int> offsets,
                  std::span<const int> centres, std::span<const double> energies, std::span<const double> gradients) {
  check_batch(f, configs, energies, gradients);
  if (offsets.size() != centres.size() + 1 || offsets.front() != 0 ||
      offsets.back() != static_cast<int>(energies.size()))
    throw Error("shepard: group offsets must run from 0 to the number of configurations, one more than the centres");
  for (std::size_t g = 0; g < centres.size(); ++g)
    if (offsets[g + 1] < offsets[g] || centres[g] < offsets[g] || centres[g] >= offsets[g + 1])
      throw Error("shepard: group " + std::to_string(g) + " is empty or its centre lies outside it");
}

void evaluate_groups(const Interpolant& f, std::span<const double> configs, std::span<const int> offsets,
                     std::span<const int> centres, std::span<double> energies, std::span<double> gradients) {
  check_groups(f, configs, offsets, centres, energies, gradients);
  const long groups = static_cast<long>(centres.size());
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  device::parallel_ranges(groups, device::threads_for(groups, 1), [&](int, long begin, long end) {
    Workspace ws;
    std::vector<int> set;
    for (long g = begin; g < end; ++g) {
      const std::size_t gs = static_cast<std::size_t>(g);
      ws.z.resize(static_cast<std::size_t>(f.pairs));
      inverse_distances(configs.data() + static_cast<std::size_t>(centres[gs]) * n3, f.atoms, ws.z.data());
      select_neighbours(f, ws.z.data(), set, ws);
      for (int c = offsets[gs]; c < offsets[gs + 1]; ++c) {
        const std::size_t at = static_cast<std::size_t>(c) * n3;
        energies[static_cast<std::size_t>(c)] =
            interpolate(f, configs.data() + at, set, gradients.empty() ? nullptr : gradients.data() + at, ws);
      }
    }
  });
}

}  // namespace quasar::shepard
