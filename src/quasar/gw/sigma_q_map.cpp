// BerkeleyGW's map of Sigma's q-points onto the dielectric file (see sigma_q_map.hpp).
#include "quasar/gw/sigma_q_map.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "quasar/core/error.hpp"
#include "quasar/gw/berkeleygw_symmetry.hpp"

namespace quasar::gw {

std::vector<IntMatrix3> q_map_operations(const std::vector<IntMatrix3>& given, const Wavefunctions& w,
                                         const std::function<void(const std::string&)>& say) {
  if (!given.empty()) {
    if (say) say("q map: BerkeleyGW's, by the last of the " + std::to_string(given.size()) + " operations given (berkeleygw_symmetries)");
    return given;
  }
  const BerkeleyGwSymmetries b = berkeleygw_symmetries(w.lattice, w.atom_positions, w.atomic_numbers, w.fft_grid);
  if (say)
    say("q map: BerkeleyGW's, by the last of the crystal's " + std::to_string(b.operations.size()) + " operations in " +
        (b.exact ? "BerkeleyGW's EPM order" : "Quasar's order (" + b.reason + "; give berkeleygw_symmetries to follow BerkeleyGW)"));
  return reciprocal_matrices(b.operations);
}

std::vector<IntMatrix3> q_map_rotations(const Wavefunctions& w, const std::vector<IntMatrix3>& given) {
  std::vector<IntMatrix3> out;
  for (const IntMatrix3& m : given) out.push_back(reciprocal_matrices({CrystalOperation{m, {}}}).front());  // R = M^-T
  if (given.empty())
    for (const CrystalOperation& o : berkeleygw_symmetries(w.lattice, w.atom_positions, w.atomic_numbers, w.fft_grid).operations)
      out.push_back(o.rotation);
  return out;
}

std::vector<CrystalOperation> crystal_operations_of(const Wavefunctions& w) {
  EpmInput in;
  in.path = "the inner mean field";
  in.lattice = w.lattice;
  for (std::size_t i = 0; i < w.atom_positions.size(); ++i) in.atoms.push_back({w.atom_positions[i], w.atomic_numbers[i]});
  return crystal_operations(in);
}

Vec3d reduced_qpoint(Vec3d x) {
  for (double& c : x) c -= std::floor(c + 1e-9);
  return x;
}

Vec3d first_sorted(const Matrix3& metric, const Vec3d& q) {
  double shortest = 1e300;
  Vec3d first{};
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b)
      for (int c = -2; c <= 2; ++c) {
        const Vec3d p{q[0] + a, q[1] + b, q[2] + c};
        const double l = norm2(metric, p);
        if (l < shortest - 1e-12) shortest = l, first = p;  // strict: the first in (G1, G2, G3) order wins ties
      }
  return first;
}

Vec3d head_image(const std::vector<IntMatrix3>& operations, const std::vector<Vec3d>& dielectric_qpoints,
                 const Matrix3& metric, const Vec3d& q, const Vec3d& fallback) {
  Vec3d head = fallback;
  for (const Vec3d& qi : dielectric_qpoints) {
    if (norm2(metric, qi) < 1e-12) continue;
    for (const IntMatrix3& m : operations) {
      Vec3d v{};
      bool same = true;
      for (int i = 0; i < 3; ++i) {
        v[i] = m[i][0] * qi[0] + m[i][1] * qi[1] + m[i][2] * qi[2];
        const double d = v[i] - q[i];
        same = same && std::abs(d - std::round(d)) < 1e-6;
      }
      if (same) head = v;
    }
  }
  return head;
}

RotatedIndex rotated_index(const IntMatrix3& last, const std::vector<CrystalOperation>& crystal,
                           const std::vector<GVector>& gvectors) {
  const CrystalOperation* op = nullptr;
  for (const CrystalOperation& c : crystal) {
    bool inverse = true;  // R^T M = 1
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        int e = 0;
        for (int i = 0; i < 3; ++i) e += c.rotation[i][a] * last[i][b];
        inverse = inverse && e == (a == b ? 1 : 0);
      }
    if (inverse) op = &c;
  }
  if (!op) throw Error("sigma: the last symmetry operation given is not one of the crystal's");
  RotatedIndex out;
  out.from.resize(gvectors.size());
  out.phase.resize(gvectors.size());
  for (std::size_t g = 0; g < gvectors.size(); ++g) {
    const GVector& G = gvectors[g];
    GVector r{};
    for (int a = 0; a < 3; ++a) r[a] = op->rotation[0][a] * G[0] + op->rotation[1][a] * G[1] + op->rotation[2][a] * G[2];
    const auto it = std::find(gvectors.begin(), gvectors.end(), r);
    if (it == gvectors.end())
      throw Error("sigma: the q -> 0 dielectric matrix's G-vectors are not closed under the crystal's operations");
    out.from[g] = static_cast<std::size_t>(it - gvectors.begin());
    const double x = G[0] * op->translation[0] + G[1] * op->translation[1] + G[2] * op->translation[2];
    out.phase[g] = std::cos(2 * std::numbers::pi * x);
  }
  return out;
}

}  // namespace quasar::gw
