// Z-matrix coordinates and their Cartesians, by the natural extension reference frame (Parsons et
// al. 2005): each atom from its bond, angle and dihedral atoms.
#include "quasar/potential/shepard/zmatrix.hpp"

#include <algorithm>
#include <cmath>

namespace quasar::shepard {

namespace {

constexpr double kDegree = 3.14159265358979323846 / 180;

struct V {
  double x, y, z;
};
V operator-(V a, V b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V operator+(V a, V b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V operator*(double s, V a) { return {s * a.x, s * a.y, s * a.z}; }
double dot(V a, V b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V cross(V a, V b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double norm(V a) { return std::sqrt(dot(a, a)); }

V at(const double* x, int row) {  // 1-based
  const double* p = x + 3 * (row - 1);
  return {p[0], p[1], p[2]};
}

}  // namespace

std::string ZCoordinate::name() const {
  return (kind == ZKind::Bond ? "r" : kind == ZKind::Angle ? "theta" : "phi") + std::to_string(row);
}

const char* ZCoordinate::units() const { return kind == ZKind::Bond ? "Å" : "degree"; }

std::vector<ZCoordinate> zmatrix_coordinates(int rows) {
  std::vector<ZCoordinate> out;
  for (int row = 2; row <= rows; ++row) {
    out.push_back({row, ZKind::Bond});
    if (row >= 3) out.push_back({row, ZKind::Angle});
    if (row >= 4) out.push_back({row, ZKind::Dihedral});
  }
  return out;
}

std::string zmatrix_problem(const std::vector<ZMatrixRow>& rows) {
  if (rows.size() < 3) return "a Z-matrix of " + std::to_string(rows.size()) + " rows; at least 3 are needed";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const int row = static_cast<int>(k) + 1;
    const ZMatrixRow& z = rows[k];
    const std::string which = "row " + std::to_string(row) + ": ";
    const int needed = std::min(row - 1, 3);
    const int refs[3] = {z.bond, z.angle, z.dihedral};
    for (int r = 0; r < 3; ++r) {
      if (r >= needed && refs[r] != 0) return which + "has a reference it cannot have (row " + std::to_string(row) +
                                              " takes " + std::to_string(needed) + ")";
      if (r < needed && (refs[r] < 1 || refs[r] >= row))
        return which + "its references must be earlier rows (1 to " + std::to_string(row - 1) + ")";
      for (int s = 0; s < r && r < needed; ++s)
        if (refs[s] == refs[r]) return which + "its bond, angle and dihedral atoms must be distinct rows";
    }
  }
  return "";
}

std::string zmatrix_cartesians(const std::vector<ZMatrixRow>& rows, const double* q, double* x) {
  const int n = static_cast<int>(rows.size());
  int c = 0;  // the next coordinate of q
  for (int row = 1; row <= n; ++row) {
    const ZMatrixRow& z = rows[static_cast<std::size_t>(row - 1)];
    V p{0, 0, 0};
    if (row == 2) {
      p = at(x, z.bond) + V{0, 0, q[c++]};
    } else if (row >= 3) {
      const double r = q[c], theta = q[c + 1] * kDegree, phi = row >= 4 ? q[c + 2] * kDegree : 0.0;
      c += row >= 4 ? 3 : 2;
      // The chain dihedral - angle - bond - this atom; row 3's dihedral atom is a point on +x from its
      // angle atom (rows 1 and 2 lie on the z axis).
      const V bond = at(x, z.bond), angle = at(x, z.angle);
      const V dihedral = row >= 4 ? at(x, z.dihedral) : angle + V{1, 0, 0};
      const V axis = bond - angle;
      const double length = norm(axis);
      if (!(length > 1e-6)) return "row " + std::to_string(row) + ": its bond and angle atoms coincide";
      const V bc = (1 / length) * axis;
      const V normal = cross(angle - dihedral, bc);
      const double size = norm(normal);
      if (!(size > 1e-8 * norm(angle - dihedral)))
        return "row " + std::to_string(row) + ": its bond, angle and dihedral atoms are collinear";
      const V nz = (1 / size) * normal, ny = cross(nz, bc);
      p = bond + (-r * std::cos(theta)) * bc + (r * std::sin(theta) * std::cos(phi)) * ny +
          (r * std::sin(theta) * std::sin(phi)) * nz;
    }
    double* out = x + 3 * (row - 1);
    out[0] = p.x;
    out[1] = p.y;
    out[2] = p.z;
    for (int a = 1; a < row; ++a)
      if (!(norm(p - at(x, a)) > 1e-6))
        return "rows " + std::to_string(a) + " and " + std::to_string(row) + ": the atoms coincide";
  }
  return "";
}

void zmatrix_values(const std::vector<ZMatrixRow>& rows, const double* x, double* q) {
  int c = 0;
  for (int row = 2; row <= static_cast<int>(rows.size()); ++row) {
    const ZMatrixRow& z = rows[static_cast<std::size_t>(row - 1)];
    const V p = at(x, row), bond = at(x, z.bond);
    q[c++] = norm(p - bond);
    if (row < 3) continue;
    const V angle = at(x, z.angle), u = p - bond, v = angle - bond;
    q[c++] = std::atan2(norm(cross(u, v)), dot(u, v)) / kDegree;
    if (row < 4) continue;
    // IUPAC torsion of p - bond - angle - dihedral.
    const V b1 = bond - p, b2 = angle - bond, b3 = at(x, z.dihedral) - angle;
    const V n1 = cross(b1, b2), n2 = cross(b2, b3);
    q[c++] = std::atan2(norm(b2) * dot(b1, n2), dot(n1, n2)) / kDegree;
  }
}

}  // namespace quasar::shepard
