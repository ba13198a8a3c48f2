#pragma once
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar {

struct Vec3 {
  double x = 0, y = 0, z = 0;
  QUASAR_HD double& operator[](int k) { return k == 0 ? x : (k == 1 ? y : z); }
  QUASAR_HD double operator[](int k) const { return k == 0 ? x : (k == 1 ? y : z); }
};

QUASAR_HD Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
QUASAR_HD Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
QUASAR_HD Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
QUASAR_HD Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
QUASAR_HD Vec3 operator*(Vec3 a, double s) { return {s * a.x, s * a.y, s * a.z}; }
QUASAR_HD Vec3& operator+=(Vec3& a, Vec3 b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
QUASAR_HD Vec3& operator-=(Vec3& a, Vec3 b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }
QUASAR_HD double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
QUASAR_HD double norm2(Vec3 a) { return dot(a, a); }
QUASAR_HD Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// 3x3 matrix stored by rows. A cell matrix holds the lattice vectors a, b, c as its rows, so a
// position is r = s * H for fractional (row) coordinates s.
struct Mat3 {
  Vec3 r[3];
  QUASAR_HD double operator()(int i, int j) const { return r[i][j]; }
  QUASAR_HD double& operator()(int i, int j) { return r[i][j]; }
};

QUASAR_HD Mat3 identity3() { return {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}; }
// Row vector times matrix: s * M.
QUASAR_HD Vec3 operator*(Vec3 s, const Mat3& m) { return s.x * m.r[0] + s.y * m.r[1] + s.z * m.r[2]; }
QUASAR_HD Mat3 operator*(const Mat3& a, const Mat3& b) {
  return {{a.r[0] * b, a.r[1] * b, a.r[2] * b}};
}
QUASAR_HD Mat3 operator*(double s, const Mat3& a) { return {{s * a.r[0], s * a.r[1], s * a.r[2]}}; }
QUASAR_HD Mat3 operator+(const Mat3& a, const Mat3& b) {
  return {{a.r[0] + b.r[0], a.r[1] + b.r[1], a.r[2] + b.r[2]}};
}
QUASAR_HD Mat3 transpose(const Mat3& m) {
  return {{{m.r[0].x, m.r[1].x, m.r[2].x}, {m.r[0].y, m.r[1].y, m.r[2].y}, {m.r[0].z, m.r[1].z, m.r[2].z}}};
}
QUASAR_HD double det(const Mat3& m) { return dot(m.r[0], cross(m.r[1], m.r[2])); }
QUASAR_HD Mat3 inverse(const Mat3& m) {
  // Columns of the inverse are the cross products of the rows, divided by the determinant.
  const double inv = 1.0 / det(m);
  Vec3 c0 = inv * cross(m.r[1], m.r[2]), c1 = inv * cross(m.r[2], m.r[0]), c2 = inv * cross(m.r[0], m.r[1]);
  return {{{c0.x, c1.x, c2.x}, {c0.y, c1.y, c2.y}, {c0.z, c1.z, c2.z}}};
}
QUASAR_HD double trace(const Mat3& m) { return m.r[0].x + m.r[1].y + m.r[2].z; }

}  // namespace quasar
