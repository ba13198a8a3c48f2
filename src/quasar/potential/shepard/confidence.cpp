// Confidence lengths from the data (confidence.hpp).
#include "quasar/potential/shepard/confidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

namespace {

// One test of point i's expansion: the cubes |dZ_l|^3 and the error seen.
struct Observation {
  std::vector<double> cubes;
  double error = 0;
};

// Second-order expansion of data point i at coordinates z (pairs values).
double taylor(const DataSet& set, int i, const std::vector<double>& zi, const double* z) {
  const DataPoint& d = set.points[static_cast<std::size_t>(i)];
  const int nb = set.pairs(), ni = set.internal();
  std::vector<double> dzeta(static_cast<std::size_t>(ni), 0.0);
  for (int l = 0; l < nb; ++l)
    for (int k = 0; k < ni; ++k)
      dzeta[static_cast<std::size_t>(k)] += d.u[static_cast<std::size_t>(l * ni + k)] * (z[l] - zi[static_cast<std::size_t>(l)]);
  double t = d.energy;
  for (int k = 0; k < ni; ++k) {
    double s = 0;
    for (int m = 0; m < ni; ++m) s += d.hessian[static_cast<std::size_t>(k * ni + m)] * dzeta[static_cast<std::size_t>(m)];
    t += dzeta[static_cast<std::size_t>(k)] * (d.gradient[static_cast<std::size_t>(k)] + 0.5 * s);
  }
  return t;
}

// Solves the symmetric positive definite system a x = b (n x n, row-major) by Cholesky, in place.
void solve_spd(std::vector<double>& a, std::vector<double>& b, int n) {
  auto at = [n](int r, int c) { return static_cast<std::size_t>(r * n + c); };
  for (int j = 0; j < n; ++j) {
    double d = a[at(j, j)];
    for (int k = 0; k < j; ++k) d -= a[at(j, k)] * a[at(j, k)];
    if (!(d > 0)) throw Error("shepard confidence: the posterior's normal matrix is not positive definite");
    a[at(j, j)] = std::sqrt(d);
    for (int r = j + 1; r < n; ++r) {
      double s = a[at(r, j)];
      for (int k = 0; k < j; ++k) s -= a[at(r, k)] * a[at(j, k)];
      a[at(r, j)] = s / a[at(j, j)];
    }
  }
  for (int r = 0; r < n; ++r) {
    double s = b[static_cast<std::size_t>(r)];
    for (int k = 0; k < r; ++k) s -= a[at(r, k)] * b[static_cast<std::size_t>(k)];
    b[static_cast<std::size_t>(r)] = s / a[at(r, r)];
  }
  for (int r = n - 1; r >= 0; --r) {
    double s = b[static_cast<std::size_t>(r)];
    for (int k = r + 1; k < n; ++k) s -= a[at(k, r)] * b[static_cast<std::size_t>(k)];
    b[static_cast<std::size_t>(r)] = s / a[at(r, r)];
  }
}

}  // namespace

void bayes_confidence(DataSet& set, const ConfidenceSettings& s) {
  if (!(s.energy > 0) || !(s.min_length > 0) || !(s.max_length >= s.min_length) || !(s.prior_weight > 0) || !(s.noise > 0) || !(s.floor > 0) ||
      !(s.fallback > 0) || s.neighbours < 0)
    throw Error("shepard confidence: energy, noise, prior weight, floor and lengths must be positive, max_length >= min_length");
  const int n = static_cast<int>(set.points.size()), nb = set.pairs();
  if (n == 0) return;
  if (n == 1) {
    set.points[0].confidence.assign(static_cast<std::size_t>(nb), std::clamp(s.fallback, s.min_length, s.max_length));
    return;
  }
  const Interpolant f = Interpolant::from(set);  // every image of every point's Z
  const int group = f.group;
  const int want = std::min(s.neighbours > 0 ? s.neighbours : 2 * nb, n - 1);
  std::vector<std::vector<double>> z(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(nb)));
  for (int i = 0; i < n; ++i) inverse_distances(set.points[static_cast<std::size_t>(i)].positions.data(), set.atoms(), z[static_cast<std::size_t>(i)].data());

  // The observations of every point: its nearest neighbours' errors.
  std::vector<std::vector<Observation>> seen(static_cast<std::size_t>(n));
  device::parallel_ranges(n, device::threads_for(n, 1), [&](int, long begin, long end) {
    for (long i = begin; i < end; ++i) {
      const std::vector<double>& zi = z[static_cast<std::size_t>(i)];
      std::vector<std::pair<double, int>> nearest;  // (distance^2, replica) of each other point's nearest image
      std::vector<double> zr(static_cast<std::size_t>(nb));
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        double best = std::numeric_limits<double>::infinity();
        int best_r = 0;
        for (int g = 0; g < group; ++g) {
          const int r = j * group + g;
          replica_z(f, r, zr.data());
          double d2 = 0;
          for (int l = 0; l < nb; ++l) d2 += std::pow(zr[static_cast<std::size_t>(l)] - zi[static_cast<std::size_t>(l)], 2);
          if (d2 < best) best = d2, best_r = r;
        }
        nearest.push_back({best, best_r});
      }
      std::partial_sort(nearest.begin(), nearest.begin() + want, nearest.end());
      for (int k = 0; k < want; ++k) {
        const int r = nearest[static_cast<std::size_t>(k)].second;
        replica_z(f, r, zr.data());
        Observation o;
        o.error = std::abs(f.energy[static_cast<std::size_t>(r / group)] - taylor(set, static_cast<int>(i), zi, zr.data()));
        for (int l = 0; l < nb; ++l) o.cubes.push_back(std::pow(std::abs(zr[static_cast<std::size_t>(l)] - zi[static_cast<std::size_t>(l)]), 3));
        seen[static_cast<std::size_t>(i)].push_back(std::move(o));
      }
    }
  });
  // The prior's centre: the typical third-order coefficient of the whole set.
  std::vector<double> ratios;
  for (const auto& obs : seen)
    for (const Observation& o : obs) {
      double c = 0;
      for (double x : o.cubes) c += x;
      if (c > 0) ratios.push_back(o.error / c);
    }
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
  double a0 = ratios.empty() ? 0 : ratios[ratios.size() / 2];
  if (!(a0 > 0)) a0 = s.energy / std::pow(s.fallback, 3);  // every expansion exact so far: the fallback length
  const double floor_error = 1e-12 * s.energy;
  for (int i = 0; i < n; ++i) {
    // Posterior mode: minimise sum_j ((e_j - x_j.a) / sigma_j)^2 + w sum_l ((a_l - a0) / a0)^2, sigma_j = noise e_j.
    std::vector<double> normal(static_cast<std::size_t>(nb * nb), 0.0), rhs(static_cast<std::size_t>(nb), 0.0);
    for (const Observation& o : seen[static_cast<std::size_t>(i)]) {
      const double sigma = s.noise * std::max(o.error, floor_error), inv2 = 1 / (sigma * sigma);
      for (int l = 0; l < nb; ++l) {
        rhs[static_cast<std::size_t>(l)] += o.cubes[static_cast<std::size_t>(l)] * o.error * inv2;
        for (int m = 0; m < nb; ++m)
          normal[static_cast<std::size_t>(l * nb + m)] += o.cubes[static_cast<std::size_t>(l)] * o.cubes[static_cast<std::size_t>(m)] * inv2;
      }
    }
    for (int l = 0; l < nb; ++l) {
      normal[static_cast<std::size_t>(l * nb + l)] += s.prior_weight / (a0 * a0);
      rhs[static_cast<std::size_t>(l)] += s.prior_weight / a0;
    }
    solve_spd(normal, rhs, nb);
    std::vector<double>& d = set.points[static_cast<std::size_t>(i)].confidence;
    d.resize(static_cast<std::size_t>(nb));
    for (int l = 0; l < nb; ++l) {
      const double a = std::max(rhs[static_cast<std::size_t>(l)], s.floor * a0);
      d[static_cast<std::size_t>(l)] = std::clamp(std::cbrt(s.energy / a), s.min_length, s.max_length);
    }
  }
}

}  // namespace quasar::shepard
