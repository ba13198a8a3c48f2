// Confidence lengths from the data (confidence.hpp).
#include "quasar/potential/shepard/confidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "quasar/potential/shepard/interpolant_parts.hpp"

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

namespace {

// What the leave-one-out prediction at each data point j reads: the replicas of the other points
// nearest to Z_j, each with its weight's distance term and its Taylor value there.
struct Neighbourhoods {
  int k = 0;                    // entries per data point
  std::vector<double> measure;  // [j k + e]: |dZ|^2 (two-part weight) or sum_l |dZ_l|^(2p) (one-part)
  std::vector<double> value;    // T_r(Z_j)
  std::vector<int> point;       // the replica's data point
  std::vector<double> spacing;  // [j]: the distance to the `spacing`-th nearest other data point
};

// Distances in Z weigh pair l by metric[l] (the same for pairs that the group exchanges).
Neighbourhoods neighbourhoods(const DataSet& set, int neighbours, int spacing, const std::vector<double>& metric) {
  const Interpolant f = Interpolant::from(set);
  const int n = f.data_points, group = f.group, nb = f.pairs, replicas = f.points;
  const std::size_t unb = static_cast<std::size_t>(nb);
  std::vector<double> zr(static_cast<std::size_t>(replicas) * unb);
  for (int r = 0; r < replicas; ++r) replica_z(f, r, &zr[static_cast<std::size_t>(r) * unb]);
  std::vector<std::vector<double>> z(static_cast<std::size_t>(n), std::vector<double>(unb));
  for (int i = 0; i < n; ++i) inverse_distances(set.points[static_cast<std::size_t>(i)].positions.data(), set.atoms(), z[static_cast<std::size_t>(i)].data());
  Neighbourhoods h;
  h.k = std::min(neighbours, (n - 1) * group);
  const std::size_t k = static_cast<std::size_t>(h.k);
  h.measure.resize(static_cast<std::size_t>(n) * k);
  h.value.resize(static_cast<std::size_t>(n) * k);
  h.point.resize(static_cast<std::size_t>(n) * k);
  h.spacing.resize(static_cast<std::size_t>(n));
  const bool one_part = set.parameters.weight == WeightKind::OnePart;
  device::parallel_ranges(n, device::threads_for(n, 1), [&](int, long begin, long end) {
    std::vector<std::pair<double, int>> d2;
    std::vector<double> nearest, own(unb);
    for (long j = begin; j < end; ++j) {
      const double* zj = z[static_cast<std::size_t>(j)].data();
      d2.clear();
      nearest.assign(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
      for (int r = 0; r < replicas; ++r) {
        if (r / group == j) continue;
        const double* zrr = &zr[static_cast<std::size_t>(r) * unb];
        double s = 0;
        for (int l = 0; l < nb; ++l) s += std::pow(metric[static_cast<std::size_t>(l)] * (zj[l] - zrr[l]), 2);
        d2.push_back({s, r});
        nearest[static_cast<std::size_t>(r / group)] = std::min(nearest[static_cast<std::size_t>(r / group)], s);
      }
      // The nearest k, in order (ties by replica index: the same choice every run).
      std::partial_sort(d2.begin(), d2.begin() + static_cast<std::ptrdiff_t>(k), d2.end());
      for (std::size_t e = 0; e < k; ++e) {
        const int r = d2[e].second, i = r / group;
        const int* source = &f.pair_source[static_cast<std::size_t>(r % group) * unb];
        const double* zi = z[static_cast<std::size_t>(i)].data();
        double m = 0;
        for (int l = 0; l < nb; ++l) {  // Z_j in point i's own pair order: the replica's pair l is its pair source[l]
          own[static_cast<std::size_t>(source[l])] = zj[l];
          if (one_part) m += power(std::abs(metric[static_cast<std::size_t>(l)] * (zj[l] - zi[source[l]])), 2 * set.parameters.p);
        }
        const std::size_t at = static_cast<std::size_t>(j) * k + e;
        h.measure[at] = one_part ? m : d2[e].first;
        h.value[at] = taylor(set, i, z[static_cast<std::size_t>(i)], own.data());
        h.point[at] = i;
      }
      nearest.erase(nearest.begin() + j);
      const std::size_t which = static_cast<std::size_t>(std::min(spacing, n - 1) - 1);
      std::nth_element(nearest.begin(), nearest.begin() + static_cast<std::ptrdiff_t>(which), nearest.end());
      h.spacing[static_cast<std::size_t>(j)] = std::sqrt(nearest[which]);
    }
  });
  return h;
}

// The prediction of point j by its neighbourhood, point i's weights with 1/d_i^2 = inv_d2[i]: the
// interpolation's steps over those replicas (relative weights, wtol, renormalisation; at a
// coinciding point those points alone). `ratio`: scratch of k values.
double predict(const Neighbourhoods& h, int j, const std::vector<double>& inv_d2, const Parameters& p,
               std::vector<double>& ratio) {
  const std::size_t k = static_cast<std::size_t>(h.k), base = static_cast<std::size_t>(j) * k;
  ratio.resize(k);
  double u_min = std::numeric_limits<double>::infinity();
  for (std::size_t e = 0; e < k; ++e) {
    const double g = inv_d2[static_cast<std::size_t>(h.point[base + e])], m = h.measure[base + e];
    double u;
    if (p.weight == WeightKind::TwoPart) {
      const double s = m * g;
      u = power(s, p.p) + power(s, p.q);
    } else {
      u = m * power(g, p.p);  // sum |dZ_l / d|^(2p)
    }
    ratio[e] = u;
    u_min = std::min(u_min, u);
  }
  double total = 0;
  for (std::size_t e = 0; e < k; ++e) total += (ratio[e] = u_min == 0 ? (ratio[e] == 0 ? 1.0 : 0.0) : u_min / ratio[e]);
  double v = 0, kept = 0;
  for (std::size_t e = 0; e < k; ++e)
    if (ratio[e] / total > p.wtol) v += ratio[e] * h.value[base + e], kept += ratio[e];
  return v / kept;
}

// The RMS of x over the entries that `counted` marks.
double rms(const std::vector<double>& x, const std::vector<char>& counted) {
  double s = 0;
  long n = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    if (counted[j]) s += x[j] * x[j], ++n;
  return std::sqrt(s / static_cast<double>(n));
}

std::vector<double> errors(const DataSet& set, const Neighbourhoods& h, const std::vector<double>& inv_d2) {
  std::vector<double> e(set.points.size()), scratch;
  for (std::size_t j = 0; j < e.size(); ++j) e[j] = set.points[j].energy - predict(h, static_cast<int>(j), inv_d2, set.parameters, scratch);
  return e;
}

// The pairs' weights in the distance: (g / sigma_l)^exponent, sigma_l the spread (standard
// deviation) of Z_l over every replica of the set, g their geometric mean. The replicas hold every
// image, so pairs that the group exchanges get the same weight.
std::vector<double> pair_metric(const DataSet& set, double exponent) {
  const Interpolant f = Interpolant::from(set);
  const std::size_t nb = static_cast<std::size_t>(f.pairs);
  std::vector<double> z(nb), sum(nb, 0.0), sum2(nb, 0.0), metric(nb);
  for (int r = 0; r < f.points; ++r) {
    replica_z(f, r, z.data());
    for (std::size_t l = 0; l < nb; ++l) sum[l] += z[l], sum2[l] += z[l] * z[l];
  }
  double mean_log = 0;
  for (std::size_t l = 0; l < nb; ++l) {
    const double mean = sum[l] / f.points;
    metric[l] = std::sqrt(std::max(sum2[l] / f.points - mean * mean, 1e-30));
    mean_log += std::log(metric[l]) / static_cast<double>(nb);
  }
  for (double& x : metric) x = std::pow(std::exp(mean_log) / x, exponent);
  return metric;
}

}  // namespace

std::vector<double> leave_one_out_errors(const DataSet& set, const std::vector<double>& lengths, int neighbours) {
  if (set.points.size() < 2) throw Error("shepard leave-one-out: needs at least two data points");
  if (lengths.size() != set.points.size()) throw Error("shepard leave-one-out: one length per data point");
  if (neighbours < 1) throw Error("shepard leave-one-out: neighbours must be positive");
  std::vector<double> inv_d2;
  for (double d : lengths) {
    if (!(d > 0)) throw Error("shepard leave-one-out: lengths must be positive");
    inv_d2.push_back(1 / (d * d));
  }
  return errors(set, neighbourhoods(set, neighbours, 1, std::vector<double>(static_cast<std::size_t>(set.pairs()), 1.0)), inv_d2);
}

FittedLengths fitted_confidence(DataSet& set, const FittedSettings& s) {
  if (!(s.min_length > 0) || !(s.max_length >= s.min_length) || !(s.fallback > 0) || s.neighbours < 1 || s.spacing < 1 ||
      !(s.window >= 0) || !(s.pair_exponent >= 0) || !(s.tolerance >= 0))
    throw Error("shepard fitted confidence: lengths, neighbours and spacing must be positive, max_length >= min_length, "
                "window, pair_exponent and tolerance >= 0");
  const int n = static_cast<int>(set.points.size()), nb = set.pairs();
  FittedLengths out;
  std::vector<double> metric(static_cast<std::size_t>(nb), 1.0);
  auto assign = [&](const std::vector<double>& d) {
    for (int i = 0; i < n; ++i) {
      std::vector<double>& length = set.points[static_cast<std::size_t>(i)].confidence;
      length.resize(static_cast<std::size_t>(nb));
      for (int l = 0; l < nb; ++l)
        length[static_cast<std::size_t>(l)] = std::clamp(d[static_cast<std::size_t>(i)] / metric[static_cast<std::size_t>(l)], s.min_length, s.max_length);
    }
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    out.median_length = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  };
  const double fallback = std::clamp(s.fallback, s.min_length, s.max_length);
  if (n < std::max(2, s.min_points)) {
    assign(std::vector<double>(static_cast<std::size_t>(n), fallback));
    return out;
  }
  metric = pair_metric(set, s.pair_exponent);
  const Neighbourhoods h = neighbourhoods(set, s.neighbours, s.spacing, metric);
  std::vector<double> sorted = h.spacing;
  std::sort(sorted.begin(), sorted.end());
  out.spacing = sorted[sorted.size() / 2];
  if (!(out.spacing > 0)) {  // most points coincide: nothing to scale by
    std::fill(metric.begin(), metric.end(), 1.0);
    assign(std::vector<double>(static_cast<std::size_t>(n), fallback));
    return out;
  }
  double lowest = set.points.front().energy;
  for (const DataPoint& p : set.points) lowest = std::min(lowest, p.energy);
  std::vector<char> counted(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    out.counted += counted[static_cast<std::size_t>(j)] = s.window == 0 || set.points[static_cast<std::size_t>(j)].energy <= lowest + s.window;
  if (out.counted < s.min_points) {
    std::fill(counted.begin(), counted.end(), 1);
    out.counted = n;
  }
  // The candidates: exponents 0 .. 1 by quarters, scales from h/32 to 32 h by factors of 2^(1/8).
  struct Candidate {
    double scale, exponent, rms = std::numeric_limits<double>::infinity();
  };
  constexpr int kScales = 81;  // per exponent, rising
  std::vector<Candidate> grid;
  for (int e = 0; e <= 4; ++e)
    for (int k = 0; k < kScales; ++k) grid.push_back({out.spacing * std::exp2((k - kScales / 2) / 8.0), e / 4.0});
  auto lengths_of = [&](const Candidate& c) {
    std::vector<double> d(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      d[static_cast<std::size_t>(i)] =
          std::clamp(c.scale * std::pow(h.spacing[static_cast<std::size_t>(i)] / out.spacing, c.exponent), s.min_length, s.max_length);
    return d;
  };
  auto inverse_squares = [](const std::vector<double>& d) {
    std::vector<double> g;
    for (double x : d) g.push_back(1 / (x * x));
    return g;
  };
  const long m = static_cast<long>(grid.size());
  device::parallel_ranges(m, device::threads_for(m, 1), [&](int, long begin, long end) {
    for (long c = begin; c < end; ++c) {
      const double r = rms(errors(set, h, inverse_squares(lengths_of(grid[static_cast<std::size_t>(c)]))), counted);
      if (std::isfinite(r)) grid[static_cast<std::size_t>(c)].rms = r;
    }
  });
  // From the least RMS down to shorter scales (the same exponent) while the RMS stays within
  // `tolerance` of it: once a point's near neighbours all lie within one length (s < 1), their
  // relative weights barely depend on it (v ~ s^-p), so the error levels off towards long lengths,
  // where the least is won by a rounding while configurations away from the data (which
  // leave-one-out does not test) get the weights of far points. (Only down to the first that is
  // not: very short lengths level off too, each point's nearest expansion alone, v ~ s^-q.)
  std::size_t at = 0;
  for (std::size_t c = 1; c < grid.size(); ++c)
    if (grid[c].rms < grid[at].rms) at = c;
  const double bound = grid[at].rms * (1 + s.tolerance);
  while (at % kScales != 0 && grid[at - 1].rms <= bound) --at;
  const Candidate* best = &grid[at];
  out.scale = best->scale;
  out.exponent = best->exponent;
  out.leave_one_out_rms = best->rms;
  assign(lengths_of(*best));
  return out;
}

}  // namespace quasar::shepard
