#pragma once
// The direct evaluation of n2p2's symmetry functions that nnp_symmetry_test.cpp checks the code
// against (written from the formulas, in long double; the facts it follows are listed there), and the
// models and neighbour clusters of those tests.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "quasar/potential/nnp/descriptor.hpp"

namespace quasar::nnp::test_sf {

inline constexpr double kBohr = 0.529177210903;  // Å

// In long double, so that the comparison measures the rounding of the code under test.
using Real = long double;
inline const Real kPi = std::acos(Real(-1));

inline Real core_direct(WindowCore c, Real x) {
  switch (c) {
    case WindowCore::P1: return 1 - 3 * x * x + 2 * std::pow(x, 3);
    case WindowCore::P2: return 1 - 10 * std::pow(x, 3) + 15 * std::pow(x, 4) - 6 * std::pow(x, 5);
    case WindowCore::P3: return 1 - 35 * std::pow(x, 4) + 84 * std::pow(x, 5) - 70 * std::pow(x, 6) + 20 * std::pow(x, 7);
    case WindowCore::P4:
      return 1 - 126 * std::pow(x, 5) + 420 * std::pow(x, 6) - 540 * std::pow(x, 7) + 315 * std::pow(x, 8) -
             70 * std::pow(x, 9);
    case WindowCore::Exp: return std::exp(1 - 1 / (1 - x * x));
  }
  return 0;
}

inline Real cutoff_direct(const Model& m, Real r, Real rc) {
  if (r >= rc) return 0;
  switch (m.cutoff) {
    case CutoffKind::Hard: return 1;
    case CutoffKind::TanhU: return std::pow(std::tanh(1 - r / rc), 3);
    case CutoffKind::Tanh: return std::pow(std::tanh(1 - r / rc) / std::tanh(Real(1)), 3);
    default: break;
  }
  const Real ri = m.cutoff_alpha * rc;
  if (r < ri) return 1;
  const Real x = (r - ri) / (rc - ri);
  switch (m.cutoff) {
    case CutoffKind::Cos: return (1 + std::cos(kPi * x)) / 2;
    case CutoffKind::Exp: return core_direct(WindowCore::Exp, x);
    default: return core_direct(WindowCore(int(m.cutoff) - int(CutoffKind::Poly1) + 1), x);
  }
}

// The window C(x; l, r), zero unless l < x < r; `alt`: the suffix a.
inline Real window_direct(Real x, Real l, Real r, WindowCore c, bool alt) {
  if (!(x > l && x < r)) return 0;
  Real y = std::abs(x - (l + r) / 2) / ((r - l) / 2);
  if (alt && c != WindowCore::Exp) y = y * (2 - y);
  return core_direct(c, y);
}

struct Atom3 {
  double x, y, z;
  int element;
};

// Every function of a centre of element `c` at the origin, in the model's units, and the scale of its
// rounding in double: the sum of the weights of its terms (at least 1; Z_j Z_k reaches 841 here).
struct Direct {
  std::vector<double> G, scale;
};
inline Direct direct_values(const Model& m, int c, const std::vector<Atom3>& nb) {
  auto Z = [&](int e) { return Real(m.elements[e].atomic_number); };
  auto norm = [](Real x, Real y, Real z) { return std::sqrt(x * x + y * y + z * z); };
  Direct out;
  for (const SymmetryFunction& f : m.elements[c].functions) {
    const bool weighted = f.type == 12 || f.type == 13 || f.type == 23 || f.type == 24 || f.type == 25;
    const bool compact = f.type >= 20;
    auto radial = [&](Real r) {
      if (compact) return window_direct(r, f.rlow, f.rc, f.core, f.core_alt);
      return std::exp(-f.eta * (r - f.rs) * (r - f.rs)) * cutoff_direct(m, r, f.rc);
    };
    Real sum = 0, weights = 0;
    if (f.type == 2 || f.type == 12 || f.type == 20 || f.type == 23) {
      for (const Atom3& a : nb)
        if (weighted || a.element == f.e1) {
          sum += (weighted ? Z(a.element) : 1) * radial(norm(a.x, a.y, a.z));
          weights += weighted ? Z(a.element) : 1;
        }
      out.G.push_back(double(sum));
      out.scale.push_back(std::max(1.0, double(weights)));
      continue;
    }
    // Angular: half the sum over ordered pairs j != k.
    const bool narrow = f.type == 3 || f.type == 13 || f.type == 21 || f.type == 24;
    const Real rs = (f.type == 3 || f.type == 9) ? std::max(f.rs, 0.0) : f.rs;
    for (std::size_t j = 0; j < nb.size(); ++j)
      for (std::size_t k = 0; k < nb.size(); ++k) {
        if (j == k) continue;
        const Atom3 &a = nb[j], &b = nb[k];
        if (!weighted && !((a.element == f.e1 && b.element == f.e2) || (a.element == f.e2 && b.element == f.e1)))
          continue;
        const Real ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
        const Real rij = norm(ax, ay, az), rik = norm(bx, by, bz), rjk = norm(bx - ax, by - ay, bz - az);
        const Real dot = ax * bx + ay * by + az * bz;
        const Real cross = norm(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx);
        const Real w = weighted ? Z(a.element) * Z(b.element) : 1;
        Real term;
        if (compact) {
          if (!(rij > f.rlow && rij < f.rc && rik > f.rlow && rik < f.rc)) continue;
          if (narrow && !(rjk > f.rlow && rjk < f.rc)) continue;
          const Real theta = std::atan2(cross, dot) * 180 / kPi;
          if (theta <= 0 || theta >= 180) continue;  // n2p2 drops collinear pairs
          if (theta < f.left || theta > f.right) continue;
          term = radial(rij) * radial(rik) * (narrow ? radial(rjk) : 1) *
                 window_direct(theta, f.left, f.right, f.core, false);
        } else {
          if (!(rij < f.rc && rik < f.rc) || (narrow && !(rjk < f.rc))) continue;
          const Real base = 1 + f.lambda * dot / (rij * rik);
          if (base <= 0) continue;
          Real gauss = (rij - rs) * (rij - rs) + (rik - rs) * (rik - rs);
          if (narrow) gauss += (rjk - rs) * (rjk - rs);
          term = std::pow(Real(2), 1 - Real(f.zeta)) * std::pow(base, Real(f.zeta)) * std::exp(-f.eta * gauss) *
                 cutoff_direct(m, rij, f.rc) * cutoff_direct(m, rik, f.rc) * (narrow ? cutoff_direct(m, rjk, f.rc) : 1);
        }
        sum += w * term / 2;
        weights += w / 2;
      }
    out.G.push_back(double(sum));
    out.scale.push_back(std::max(1.0, double(weights)));
  }
  return out;
}

// ---- models and clusters --------------------------------------------------------------------------

enum : int { H = 0, O = 1, Cu = 2 };

inline Model base_model() {
  Model m;
  for (auto [sym, z] : {std::pair{"H", 1}, std::pair{"O", 8}, std::pair{"Cu", 29}}) {
    ElementModel e;
    e.symbol = sym;
    e.atomic_number = z;
    m.elements.push_back(e);
  }
  return m;
}

inline SymmetryFunction exp_sf(int type, int e1, int e2, double eta, double rs, double rc, double lambda = 0, double zeta = 1) {
  SymmetryFunction f;
  f.type = type, f.e1 = e1, f.e2 = e2, f.eta = eta, f.rs = rs, f.rc = rc, f.lambda = lambda, f.zeta = zeta;
  return f;
}
inline SymmetryFunction compact_sf(int type, int e1, int e2, double rlow, double rc, double left = 0, double right = 0) {
  SymmetryFunction f;
  f.type = type, f.e1 = e1, f.e2 = e2, f.rlow = rlow, f.rc = rc, f.left = left, f.right = right;
  return f;
}

inline void add(Model& m, int centre, SymmetryFunction f) {
  f.centre = centre;
  m.elements[centre].functions.push_back(f);
}

// Every exponential type, with neighbour pairs of equal and unequal elements, lambda = +-1, integer
// and non-integer zeta, zero, positive and negative shifts; lengths in Å times `s`.
inline Model exp_model(CutoffKind kind, double alpha, double s = 1) {
  Model m = base_model();
  m.cutoff = kind;
  m.cutoff_alpha = alpha;
  auto e = [&](int type, int e1, int e2, double eta, double rs, double rc, double lambda = 0, double zeta = 1) {
    return exp_sf(type, e1, e2, eta * s * s, rs / s, rc / s, lambda, zeta);
  };
  add(m, H, e(2, H, -1, 0.3, 0, 5.0));
  add(m, H, e(2, O, -1, 0.8, 1.5, 4.5));
  add(m, H, e(2, Cu, -1, 0.05, 0, 6.0));
  add(m, H, e(12, -1, -1, 0.2, 0, 5.5));
  add(m, H, e(12, -1, -1, 0.5, 2.0, 4.0));
  add(m, H, e(3, H, H, 0.1, 0, 5.5, 1, 1));
  add(m, H, e(3, H, O, 0.05, 0.5, 6.0, -1, 2));
  add(m, H, e(3, O, Cu, 0.02, 0, 5.0, 1, 3.5));
  add(m, H, e(3, O, O, 0.03, -0.4, 5.0, -1, 4));
  add(m, H, e(9, H, O, 0.05, 0, 5.5, 1, 2));
  add(m, H, e(9, O, O, 0.01, 1.0, 6.0, -1, 1));
  add(m, H, e(9, Cu, Cu, 0.05, 0, 4.5, 1, 8));
  add(m, H, e(9, O, Cu, 0.03, -1.0, 5.0, -1, 2.5));
  add(m, H, e(13, -1, -1, 0.05, 0.3, 5.0, 1, 2));
  add(m, H, e(13, -1, -1, 0.01, -0.5, 6.0, -1, 1.5));
  add(m, O, e(2, H, -1, 0.4, 0.5, 5.0));
  add(m, O, e(3, H, H, 0.03, 0, 5.5, 1, 2));
  add(m, O, e(9, H, Cu, 0.01, 0, 6.0, -1, 1));
  return m;
}

// Every compact type with one core, windows beyond [0, 180] centred on 0 and 180, negative rlow.
inline Model compact_model(WindowCore core, bool alt, double s = 1) {
  Model m = base_model();
  auto c = [&](int type, int e1, int e2, double rlow, double rc, double left = 0, double right = 0) {
    SymmetryFunction f = compact_sf(type, e1, e2, rlow / s, rc / s, left, right);
    f.core = core;
    f.core_alt = alt;
    return f;
  };
  add(m, H, c(20, H, -1, 0, 4.0));
  add(m, H, c(20, O, -1, 1.5, 5.0));
  add(m, H, c(20, Cu, -1, -5.5, 5.5));
  add(m, H, c(23, -1, -1, 0.5, 4.5));
  add(m, H, c(23, -1, -1, 2.0, 6.0));
  add(m, H, c(21, H, O, 0, 5.0, 30, 110));
  add(m, H, c(21, O, O, 1.0, 6.0, -40, 40));
  add(m, H, c(21, H, Cu, 0.5, 6.0, 40, 140));
  add(m, H, c(21, Cu, Cu, 0, 5.5, 0, 180));
  add(m, H, c(22, H, H, 0, 5.0, 60, 150));
  add(m, H, c(22, O, Cu, 1.0, 6.0, 0, 90));
  add(m, H, c(22, O, O, 0.5, 5.5, 100, 260));
  add(m, H, c(24, -1, -1, 0, 5.0, 20, 140));
  add(m, H, c(24, -1, -1, 1.0, 6.0, -60, 60));
  add(m, H, c(25, -1, -1, 0.5, 5.5, 90, 180));
  add(m, H, c(25, -1, -1, 0, 4.5, 150, 210));
  add(m, Cu, c(20, O, -1, 0, 5.0));
  add(m, Cu, c(22, H, O, 0, 5.0, 45, 135));
  return m;
}

// The radii where some function of m is not smooth (hard cutoffs, inner cutoffs), in Å.
inline std::vector<double> boundaries(const Model& m, double s) {
  std::vector<double> b;
  for (const ElementModel& e : m.elements)
    for (const SymmetryFunction& f : e.functions) {
      b.push_back(f.rc * s);
      b.push_back(f.rlow * s);
      b.push_back(m.cutoff_alpha * f.rc * s);
    }
  return b;
}

// n neighbours of a centre at the origin in a ball of 6.5 Å (some beyond every cutoff), elements at
// random, no two atoms closer than 0.8 Å and no distance within 3e-3 Å of a boundary.
inline std::vector<Atom3> random_cluster(std::mt19937_64& rng, int n, const std::vector<double>& avoid) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> el(0, 2);
  auto far_from = [&](double r) {
    for (double b : avoid)
      if (std::abs(r - b) < 3e-3) return false;
    return r > 0.8;
  };
  std::vector<Atom3> nb;
  while (int(nb.size()) < n) {
    Atom3 a{6.5 * u(rng), 6.5 * u(rng), 6.5 * u(rng), el(rng)};
    const double r = std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    bool ok = r < 6.5 && far_from(r);
    for (const Atom3& b : nb)
      ok = ok && far_from(std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)));
    if (ok) nb.push_back(a);
  }
  return nb;
}

inline std::vector<NeighborEntry> entries(const std::vector<Atom3>& nb, double scale = 1) {
  std::vector<NeighborEntry> out;
  for (const Atom3& a : nb) {
    const double x = a.x * scale, y = a.y * scale, z = a.z * scale;
    out.push_back({x, y, z, std::sqrt(x * x + y * y + z * z), a.element});
  }
  return out;
}

inline std::vector<Atom3> scaled(std::vector<Atom3> nb, double f) {
  for (Atom3& a : nb) a.x *= f, a.y *= f, a.z *= f;
  return nb;
}

inline std::vector<double> values(const Descriptor& d, int c, const std::vector<NeighborEntry>& nb) {
  std::vector<double> G(d.count(c));
  d.values(c, nb, G.data());
  return G;
}

// The models of the tests: every cutoff kind with and without an inner cutoff, every core with and
// without the suffix a.
inline std::vector<Model> all_models(double s = 1) {
  std::vector<Model> models;
  for (int kind = 0; kind <= 8; ++kind)
    for (double alpha : {0.0, 0.35}) models.push_back(exp_model(CutoffKind(kind), alpha, s));
  for (int core = 1; core <= 5; ++core)
    for (bool alt : {false, true}) models.push_back(compact_model(WindowCore(core), alt, s));
  return models;
}

}  // namespace quasar::nnp::test_sf
