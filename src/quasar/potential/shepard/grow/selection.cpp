// Choosing new data points among visited configurations (selection.hpp).
#include "quasar/potential/shepard/grow/selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/coordinates.hpp"

namespace quasar::shepard {

namespace {

// Z of every configuration, pairs values each.
std::vector<double> coordinates_of(const Interpolant& f, std::span<const double> configs) {
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms), nb = static_cast<std::size_t>(f.pairs);
  if (configs.size() % n3 != 0) throw Error("shepard selection: expected " + std::to_string(n3) + " coordinates per configuration");
  const std::size_t m = configs.size() / n3;
  std::vector<double> z(m * nb);
  for (std::size_t c = 0; c < m; ++c) inverse_distances(configs.data() + c * n3, f.atoms, z.data() + c * nb);
  return z;
}

// The weight v = 1/u at squared scaled distance s (two-part: s = sum (dZ/d)^2) or from the scaled
// differences t (one-part), with the parameters of the data set; infinite at s = 0.
double weight_of(const Parameters& p, const double* dz, int nb, double inv_d) {
  if (p.weight == WeightKind::TwoPart) {
    double s = 0;
    for (int l = 0; l < nb; ++l) s += (dz[l] * inv_d) * (dz[l] * inv_d);
    return 1 / (std::pow(s, p.p) + std::pow(s, p.q));
  }
  double u = 0;
  for (int l = 0; l < nb; ++l) u += std::pow(std::abs(dz[l] * inv_d), 2 * p.p);
  return 1 / u;
}

}  // namespace

double interpolation_variance(const Interpolant& f, const double* x, Workspace& ws) {
  const double v = evaluate(f, x, nullptr, ws);  // leaves each kept point's T_i and w_i in ws
  double spread = 0;
  for (std::size_t j = 0; j < ws.set.size(); ++j) spread += ws.scaled[j] * (ws.taylor[j] - v) * (ws.taylor[j] - v);
  return spread;
}

std::vector<int> select_by_variance(const Interpolant& f, std::span<const double> configs, int count, double length) {
  const std::vector<double> z = coordinates_of(f, configs);
  const std::size_t nb = static_cast<std::size_t>(f.pairs), n3 = static_cast<std::size_t>(3 * f.atoms);
  const long m = static_cast<long>(configs.size() / n3);
  std::vector<double> spread(static_cast<std::size_t>(m));
  device::parallel_ranges(m, device::threads_for(m, 4), [&](int, long begin, long end) {
    Workspace ws;
    for (long c = begin; c < end; ++c)
      spread[static_cast<std::size_t>(c)] = interpolation_variance(f, configs.data() + static_cast<std::size_t>(c) * n3, ws);
  });
  std::vector<int> order(static_cast<std::size_t>(m));
  for (long c = 0; c < m; ++c) order[static_cast<std::size_t>(c)] = static_cast<int>(c);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return spread[static_cast<std::size_t>(a)] > spread[static_cast<std::size_t>(b)];
  });
  std::vector<int> chosen;
  for (int c : order) {
    if (static_cast<int>(chosen.size()) >= count) break;
    if (!(spread[static_cast<std::size_t>(c)] > 0)) break;
    bool apart = true;
    for (int k : chosen) {
      double d2 = 0;
      for (std::size_t l = 0; l < nb; ++l) d2 += std::pow(z[static_cast<std::size_t>(c) * nb + l] - z[static_cast<std::size_t>(k) * nb + l], 2);
      apart = apart && d2 >= length * length;
    }
    if (apart) chosen.push_back(c);
  }
  return chosen;
}

std::vector<int> select_by_h_weight(const Interpolant& f, const std::vector<std::vector<int>>& group,
                                    std::span<const double> configs, int count, double length) {
  if (!(length > 0)) throw Error("shepard selection: the h-weight's confidence length must be > 0");
  const std::vector<double> z = coordinates_of(f, configs);
  const int nb = f.pairs, n = f.atoms;
  const std::size_t m = z.size() / static_cast<std::size_t>(nb);
  // Pair l of configuration m's image under a permutation: the pair its atoms are renamed to.
  std::vector<std::vector<int>> image;
  for (const auto& perm : group) {
    std::vector<int> to(static_cast<std::size_t>(nb));
    int l = 0;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b, ++l)
        to[static_cast<std::size_t>(pair_index(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)], n))] = l;
    image.push_back(std::move(to));
  }
  if (image.empty()) image.push_back([&] {
      std::vector<int> id(static_cast<std::size_t>(nb));
      for (int l = 0; l < nb; ++l) id[static_cast<std::size_t>(l)] = l;
      return id;
    }());
  // data[k] = sum_r v_r(Z_k); kernel[k m + c] = v_c(Z_k) summed over c's images.
  std::vector<double> data(m, 0.0), kernel(m * m, 0.0);
  const double inv_d = 1 / length;
  device::parallel_ranges(static_cast<long>(m), device::threads_for(static_cast<long>(m), 1), [&](int, long begin, long end) {
    std::vector<double> dz(static_cast<std::size_t>(nb));
    for (long k = begin; k < end; ++k) {
      const double* zk = &z[static_cast<std::size_t>(k) * static_cast<std::size_t>(nb)];
      double sum = 0;
      for (int r = 0; r < f.points; ++r) {
        const double u = weight_denominator(f, r, zk, dz.data());
        sum += u == 0 ? std::numeric_limits<double>::infinity() : 1 / u;
      }
      data[static_cast<std::size_t>(k)] = sum;
      for (std::size_t c = 0; c < m; ++c) {
        const double* zc = &z[c * static_cast<std::size_t>(nb)];
        double v = 0;
        for (const auto& to : image) {
          for (int l = 0; l < nb; ++l) dz[static_cast<std::size_t>(l)] = zk[l] - zc[to[static_cast<std::size_t>(l)]];
          v += weight_of(f.parameters, dz.data(), nb, inv_d);
        }
        kernel[static_cast<std::size_t>(k) * m + c] = v;
      }
    }
  });
  std::vector<int> chosen;
  std::vector<char> taken(m, 0);
  for (int pick = 0; pick < count && pick < static_cast<int>(m); ++pick) {
    double best = -1;
    std::size_t best_c = 0;
    for (std::size_t c = 0; c < m; ++c) {
      if (taken[c]) continue;
      double h = 0;
      for (std::size_t k = 0; k < m; ++k) {
        const double v = kernel[k * m + c];
        if (std::isinf(v)) h += std::isinf(data[k]) ? 0.5 : 1.0;  // k is c's image (or c itself)
        else if (!std::isinf(data[k])) h += v / (v + data[k] + 1);
      }
      if (h > best) best = h, best_c = c;
    }
    if (best <= 0) break;
    chosen.push_back(static_cast<int>(best_c));
    taken[best_c] = 1;
    for (std::size_t k = 0; k < m; ++k) data[k] += kernel[k * m + best_c];
  }
  return chosen;
}

}  // namespace quasar::shepard
