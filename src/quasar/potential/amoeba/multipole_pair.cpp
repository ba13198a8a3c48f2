#include "quasar/potential/amoeba/multipole_pair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace quasar::amoeba {

namespace {

// One term of a tensor component: coef (-1)^(n-k) B_m s_x^px s_y^py s_z^pz, m = n - k.
struct Monomial {
  int m, px, py, pz;
  double coef;
};

// Per order, the components with sorted indices (the tensors are symmetric) as sums of monomials,
// and each flat index's sorted representative.
struct PairingTable {
  std::array<std::vector<int>, kMaxTensorOrder + 1> representative;
  std::array<std::vector<std::vector<Monomial>>, kMaxTensorOrder + 1> terms;  // by flat index of a representative
};

void add_pairings(const std::vector<int>& idx, unsigned used, int pairs, std::array<int, 3> power,
                  std::map<std::array<int, 4>, double>& acc) {
  const int n = static_cast<int>(idx.size());
  int first = -1;
  for (int j = 0; j < n; ++j)
    if (!(used & (1u << j))) {
      first = j;
      break;
    }
  if (first < 0) {
    const int m = n - pairs;
    acc[{m, power[0], power[1], power[2]}] += (m % 2 == 0) ? 1.0 : -1.0;
    return;
  }
  const unsigned with_first = used | (1u << first);
  std::array<int, 3> unpaired = power;
  ++unpaired[static_cast<std::size_t>(idx[static_cast<std::size_t>(first)])];
  add_pairings(idx, with_first, pairs, unpaired, acc);
  for (int j = first + 1; j < n; ++j)
    if (!(used & (1u << j)) && idx[static_cast<std::size_t>(j)] == idx[static_cast<std::size_t>(first)])
      add_pairings(idx, with_first | (1u << j), pairs + 1, power, acc);
}

const PairingTable& pairing_table() {
  static const PairingTable table = [] {
    PairingTable t;
    for (int n = 0; n <= kMaxTensorOrder; ++n) {
      int size = 1;
      for (int j = 0; j < n; ++j) size *= 3;
      t.representative[n].resize(static_cast<std::size_t>(size));
      t.terms[n].resize(static_cast<std::size_t>(size));
      for (int flat = 0; flat < size; ++flat) {
        std::vector<int> idx(static_cast<std::size_t>(n));
        for (int j = n - 1, f = flat; j >= 0; --j, f /= 3) idx[static_cast<std::size_t>(j)] = f % 3;
        std::vector<int> sorted = idx;
        std::sort(sorted.begin(), sorted.end());
        int rep = 0;
        for (int v : sorted) rep = 3 * rep + v;
        t.representative[n][static_cast<std::size_t>(flat)] = rep;
        if (rep != flat) continue;
        std::map<std::array<int, 4>, double> acc;
        add_pairings(idx, 0u, 0, {0, 0, 0}, acc);
        for (const auto& [key, coef] : acc)
          if (coef != 0) t.terms[n][static_cast<std::size_t>(flat)].push_back({key[0], key[1], key[2], key[3], coef});
      }
    }
    return t;
  }();
  return table;
}

double power(double x, int p) {
  double r = 1;
  for (int j = 0; j < p; ++j) r *= x;
  return r;
}

}  // namespace

Radial coulomb_radial(double r) {
  Radial out;
  const double r2 = r * r;
  double b = 1 / r;
  for (int n = 0; n < 8; ++n) {
    out.b[static_cast<std::size_t>(n)] = b;
    b *= (2 * n + 1) / r2;
  }
  return out;
}

Radial ewald_real_radial(double r, double alpha, double scale) {
  Radial out;
  const Radial coulomb = coulomb_radial(r);
  const double r2 = r * r, a2 = alpha * alpha, e = std::exp(-a2 * r2) / (alpha * std::sqrt(M_PI));
  double b = std::erfc(alpha * r) / r, power = 1;
  for (int n = 0; n < 8; ++n) {
    if (n > 0) {
      power *= 2 * a2;
      b = ((2 * n - 1) * b + power * e) / r2;
    }
    out.b[static_cast<std::size_t>(n)] = b - (1 - scale) * coulomb.b[static_cast<std::size_t>(n)];
  }
  return out;
}

Radial thole_radial(double r, double a, double damp) {
  Radial out = coulomb_radial(r);
  out.b[0] = std::numeric_limits<double>::quiet_NaN();
  for (int n = 5; n < 8; ++n) out.b[static_cast<std::size_t>(n)] = std::numeric_limits<double>::quiet_NaN();
  if (damp == 0) return out;
  const double u = r / damp, x = a * u * u * u, e = std::exp(-x);
  out.b[1] *= 1 - e;
  out.b[2] *= 1 - (1 + x) * e;
  out.b[3] *= 1 - (1 + x + 0.6 * x * x) * e;
  out.b[4] *= 1 - (1 + x + (18.0 / 35) * x * x + (9.0 / 35) * x * x * x) * e;
  return out;
}

void pair_tensors(const double s[3], const Radial& radial, const std::array<int, 3>& orders, PairTensors& out) {
  const PairingTable& table = pairing_table();
  double pw[3][kMaxTensorOrder + 1];
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p <= kMaxTensorOrder; ++p) pw[c][p] = power(s[c], p);
  for (int shift = 0; shift < 3; ++shift) {
    out.order[shift] = orders[static_cast<std::size_t>(shift)];
    for (int n = 0; n <= orders[static_cast<std::size_t>(shift)]; ++n) {
      auto& t = out.t[shift][static_cast<std::size_t>(n)];
      const auto& rep = table.representative[static_cast<std::size_t>(n)];
      const auto& terms = table.terms[static_cast<std::size_t>(n)];
      for (std::size_t flat = 0; flat < rep.size(); ++flat) {
        if (rep[flat] != static_cast<int>(flat)) continue;
        double v = 0;
        for (const Monomial& mo : terms[flat])
          v += mo.coef * radial.b[static_cast<std::size_t>(mo.m + shift)] * pw[0][mo.px] * pw[1][mo.py] * pw[2][mo.pz];
        t[flat] = v;
      }
      for (std::size_t flat = 0; flat < rep.size(); ++flat) t[flat] = t[static_cast<std::size_t>(rep[flat])];
    }
  }
}

void source_potential(const Moments& m, const PairTensors& t, int order, int shift, bool reversed, Potential3& out) {
  const double tr = trace(m);
  const bool quad = m[4] != 0 || m[5] != 0 || m[6] != 0 || m[8] != 0 || m[9] != 0 || m[12] != 0 || m[7] != 0 ||
                    m[10] != 0 || m[11] != 0;
  const bool dip = m[1] != 0 || m[2] != 0 || m[3] != 0;
  static const int offset[4] = {0, 1, 4, 13};
  for (int n = 0; n <= order; ++n) {
    const auto& tn = t.t[shift][static_cast<std::size_t>(n)];
    const auto& tn1 = t.t[shift][static_cast<std::size_t>(n + 1)];
    const auto& tn2 = t.t[shift][static_cast<std::size_t>(n + 2)];
    const auto& tr_n = t.t[shift + 1][static_cast<std::size_t>(n)];
    // T(-s) = (-1)^order T(s).
    const double sn = (reversed && n % 2) ? -1.0 : 1.0;
    int size = 1;
    for (int j = 0; j < n; ++j) size *= 3;
    for (int I = 0; I < size; ++I) {
      double v = m[0] != 0 ? m[0] * tn[static_cast<std::size_t>(I)] : 0.0;
      if (dip) {
        double dv = 0;
        for (int c = 0; c < 3; ++c) dv += m[static_cast<std::size_t>(1 + c)] * tn1[static_cast<std::size_t>(3 * I + c)];
        v -= reversed ? -dv : dv;
      }
      if (quad) {
        double qv = 0;
        for (int c = 0; c < 9; ++c) qv += m[static_cast<std::size_t>(4 + c)] * tn2[static_cast<std::size_t>(9 * I + c)];
        v += qv + tr * tr_n[static_cast<std::size_t>(I)];
      }
      out.v[offset[n] + I] = sn * v;
    }
  }
}

double receive(const Moments& m, const Potential3& phi, const Potential3& shifted, double* grad, double* dm) {
  // Zero moments are skipped: a kernel leaves undefined (NaN) what no pair of these moments uses.
  auto mul = [](double moment, double v) { return moment != 0 ? moment * v : 0.0; };
  const double tr = trace(m);
  double u = mul(m[0], phi.v[0]) + mul(tr, shifted.v[0]);
  for (int c = 1; c < 13; ++c) u += mul(m[static_cast<std::size_t>(c)], phi.v[c]);
  if (grad)
    for (int e = 0; e < 3; ++e) {
      double g = mul(m[0], phi.v[1 + e]) + mul(tr, shifted.v[1 + e]);
      for (int a = 0; a < 3; ++a) g += mul(m[static_cast<std::size_t>(1 + a)], phi.v[4 + 3 * a + e]);
      for (int c = 0; c < 9; ++c) g += mul(m[static_cast<std::size_t>(4 + c)], phi.v[13 + 9 * e + c]);
      grad[e] = g;
    }
  if (dm) {
    for (int c = 0; c < 13; ++c) dm[c] = phi.v[c];
    for (int a = 0; a < 3; ++a) dm[4 + 4 * a] += shifted.v[0];
  }
  return u;
}

}  // namespace quasar::amoeba
