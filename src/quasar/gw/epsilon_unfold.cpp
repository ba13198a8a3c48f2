// eps^-1 unfolded from the dielectric file's q-points by the crystal's operations (epsilon_unfold.hpp).
#include "quasar/gw/epsilon_unfold.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <string>

#include "quasar/core/error.hpp"

namespace quasar::gw {

namespace {

constexpr double kSortTolerance = 1e-12;  // as Epsilon's G-vector sort (epsilon.cpp)

Vec3d times(const IntMatrix3& m, const Vec3d& x) {
  Vec3d y{};
  for (int i = 0; i < 3; ++i) y[i] = m[i][0] * x[0] + m[i][1] * x[1] + m[i][2] * x[2];
  return y;
}
GVector times(const IntMatrix3& m, const GVector& x) {
  GVector y{};
  for (int i = 0; i < 3; ++i) y[i] = m[i][0] * x[0] + m[i][1] * x[1] + m[i][2] * x[2];
  return y;
}

std::string text(const Vec3d& q) {
  char b[96];
  std::snprintf(b, sizeof b, "(%.6f, %.6f, %.6f)", q[0], q[1], q[2]);
  return b;
}

}  // namespace

bool integer_difference(const Vec3d& a, const Vec3d& b, GVector& out) {
  for (int d = 0; d < 3; ++d) {
    const double x = a[d] - b[d];
    out[d] = static_cast<int>(std::lround(x));
    if (std::abs(x - out[d]) > 1e-6) return false;
  }
  return true;
}

IntMatrix3 reciprocal_rotation(const CrystalOperation& op) {
  const auto& r = op.rotation;
  const int det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                  r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  if (det != 1 && det != -1) throw Error("gw: a crystal operation's rotation has determinant " + std::to_string(det));
  // P = (R^-1)^T: P_ij = cofactor_ij(R) / det.
  IntMatrix3 p{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int a = (i + 1) % 3, b = (i + 2) % 3, c = (j + 1) % 3, d = (j + 2) % 3;
      p[i][j] = (r[a][c] * r[b][d] - r[a][d] * r[b][c]) * det;
    }
  return p;
}

EpsilonOfQ rotate_epsilon(const EpsilonOfQ& source, const CrystalOperation& op, const Vec3d& q, const Matrix3& metric,
                          const std::vector<GVector>& sphere) {
  if (source.q0) throw Error("gw: eps^-1 at q -> 0 is not unfolded to other q-points");
  const IntMatrix3 p = reciprocal_rotation(op);
  GVector g0{};
  if (!integer_difference(times(p, source.q), q, g0))
    throw Error("gw: the operation does not map q = " + text(source.q) + " onto " + text(q));
  const std::size_t n = source.size();
  // Each target G = P G_s + G0 with its source index and |q+G|^2, sorted as Epsilon sorts.
  struct Target {
    double length;
    GVector g;
    std::size_t from;
  };
  std::vector<GVector> allowed = sphere;
  std::sort(allowed.begin(), allowed.end());
  std::vector<Target> targets;
  targets.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    GVector g = times(p, source.gvectors[i]);
    for (int d = 0; d < 3; ++d) g[d] += g0[d];
    if (!allowed.empty() && !std::binary_search(allowed.begin(), allowed.end(), g))
      throw Error("gw: eps^-1 rotated from q = " + text(source.q) + " onto q = " + text(q) + " reaches G = (" +
                  std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) +
                  "), outside the mean field's G-vectors (the set is not closed under the operation)");
    targets.push_back({norm2(metric, {q[0] + g[0], q[1] + g[1], q[2] + g[2]}), g, i});
  }
  std::stable_sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) {
    if (std::abs(a.length - b.length) > kSortTolerance) return a.length < b.length;
    return a.g < b.g;
  });
  EpsilonOfQ out;
  out.q = q;
  out.fft_grid = source.fft_grid;
  std::vector<std::complex<double>> phase(n);
  for (std::size_t i = 0; i < n; ++i) {
    const GVector& g = targets[i].g;
    out.gvectors.push_back(g);
    if (!source.coulomb.empty()) out.coulomb.push_back(source.coulomb[targets[i].from]);
    // exp(-2 pi i G.t); the pair (G, G') takes phase(G) phase(G')^*.
    phase[i] = std::polar(1.0, -2 * std::numbers::pi * (g[0] * op.translation[0] + g[1] * op.translation[1] + g[2] * op.translation[2]));
  }
  auto rotate = [&](const std::vector<std::complex<double>>& m) {
    std::vector<std::complex<double>> r;
    if (m.size() != n * n) return r;
    r.resize(n * n);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < n; ++i)
        r[i + j * n] = phase[i] * std::conj(phase[j]) * m[targets[i].from + targets[j].from * n];
    return r;
  };
  out.chi = rotate(source.chi);
  out.epsilon = rotate(source.epsilon);
  out.epsilon_inverse = rotate(source.epsilon_inverse);
  out.hermiticity_error = source.hermiticity_error;
  return out;
}

UnfoldSource unfold_source(const EpsilonResult& file, const Vec3d& q, const std::vector<CrystalOperation>& crystal,
                           const std::vector<IntMatrix3>& berkeleygw) {
  std::vector<IntMatrix3> ps;
  for (const CrystalOperation& c : crystal) ps.push_back(reciprocal_rotation(c));
  UnfoldSource out;
  for (std::size_t ip = 0; ip < file.q.size(); ++ip) {
    const EpsilonOfQ& e = file.q[ip];
    if (e.q0) continue;
    GVector g0{};
    if (berkeleygw.empty()) {
      for (std::size_t o = 0; o < ps.size(); ++o)
        if (integer_difference(times(ps[o], e.q), q, g0)) return {true, ip, o};
      continue;
    }
    for (std::size_t k = 0; k < berkeleygw.size(); ++k) {
      if (!integer_difference(times(berkeleygw[k], e.q), q, g0)) continue;
      const auto it = std::find(ps.begin(), ps.end(), berkeleygw[k]);
      if (it == ps.end())
        throw Error("sigma: operation " + std::to_string(k + 1) + " of the symmetry list (berkeleygw_symmetries) is not one of the crystal's");
      out = {true, ip, static_cast<std::size_t>(it - ps.begin())};
    }
  }
  return out;
}

std::vector<EpsilonOfQ> unfold_epsilon(const EpsilonResult& file, const std::vector<Vec3d>& qpoints,
                                       const std::vector<CrystalOperation>& crystal,
                                       const std::vector<IntMatrix3>& berkeleygw, const Matrix3& metric,
                                       const std::vector<GVector>& sphere) {
  std::vector<EpsilonOfQ> out;
  auto present = [&](const Vec3d& q) {
    GVector d{};
    for (const EpsilonOfQ& e : file.q)
      if (!e.q0 && integer_difference(q, e.q, d)) return true;
    for (const EpsilonOfQ& e : out)
      if (integer_difference(q, e.q, d)) return true;
    return false;
  };
  for (const Vec3d& q : qpoints) {
    GVector d{};
    if (integer_difference(q, {0, 0, 0}, d) || present(q)) continue;
    const UnfoldSource src = unfold_source(file, q, crystal, berkeleygw);
    if (!src.found)
      throw Error("sigma: the dielectric matrices lack q = " + text(q) + " and no " +
                  (berkeleygw.empty() ? "operation of the crystal" : "operation of the symmetry list") +
                  " maps one of their q-points onto it: add it (or a point of its star) to epsilon.inp");
    out.push_back(rotate_epsilon(file.q[src.point], crystal[src.operation], q, metric, sphere));
  }
  return out;
}

}  // namespace quasar::gw
