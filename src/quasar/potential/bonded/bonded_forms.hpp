#pragma once
// The functional forms of bonded terms, written once for the CPU reference loop and the kernels
// (QUASAR_HD). A form takes one entry's geometry and gives the entry's energy, the force on each of
// its atoms and its virial W_ab = sum over its atoms of r_a f_b, with the arithmetic of LAMMPS's
// style of the same name, so that results agree with LAMMPS to rounding.
#include <cmath>

#include "quasar/core/atoms.hpp"
#include "quasar/core/hd.hpp"

namespace quasar {

// The atoms of one entry (current indices) and the displacements between them.
template <int kArity>
struct BondedGeometry {
  const AtomsRef& a;
  int idx[kArity];
  // r_p - r_q at the nearest image (bonded atoms lie far closer than half the cell), through the
  // cell of the entry's first atom. A displacement within the cell is left exactly as subtracted.
  QUASAR_HD Vec3 delta(int p, int q) const {
    const int i = idx[p], j = idx[q];
    Vec3 d{a.x[i] - a.x[j], a.y[i] - a.y[j], a.z[i] - a.z[j]};
    const Box& box = a.box_of(idx[0]);
    const Vec3 s = d * box.hinv;
    int n[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k)
      if (box.periodic[k]) n[k] = static_cast<int>(rint(s[k]));
    if (n[0] || n[1] || n[2]) d = d - box.shift(n[0], n[1], n[2]);
    return d;
  }
};

// LAMMPS bond_style harmonic: E = K (r - r0)^2. Coefficients as a data file gives them: K (eV/Å^2), r0 (Å).
struct HarmonicBondForm {
  static constexpr int kArity = 2;
  static constexpr const char* kStyle = "harmonic";
  static constexpr int kCoeffs = 2;
  static constexpr const char* kCoeffNames = "K (eV/Å^2) and r0 (Å)";
  struct Coeff {
    double k, r0;
  };
  static Coeff coeff_of(const double* c) { return {c[0], c[1]}; }

  const Coeff* coeff;  // per bond type, on the atoms' backend
  QUASAR_HD double operator()(int type, const BondedGeometry<2>& g, Vec3 (&f)[2], double (&w)[9]) const {
    const Coeff c = coeff[type];
    const Vec3 d = g.delta(0, 1);
    const double r = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    const double dr = r - c.r0;
    const double rk = c.k * dr;
    const double fbond = r > 0.0 ? -2.0 * rk / r : 0.0;
    f[0] = Vec3{d.x * fbond, d.y * fbond, d.z * fbond};
    f[1] = Vec3{-f[0].x, -f[0].y, -f[0].z};
    const double dv[3] = {d.x, d.y, d.z};
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) w[3 * p + q] = dv[p] * dv[q] * fbond;
    return rk * dr;
  }
};

// LAMMPS angle_style harmonic: E = K (theta - theta0)^2 at the middle atom of (i, j, k).
// Coefficients as a data file gives them: K (eV/rad^2), theta0 (degrees).
struct HarmonicAngleForm {
  static constexpr int kArity = 3;
  static constexpr const char* kStyle = "harmonic";
  static constexpr int kCoeffs = 2;
  static constexpr const char* kCoeffNames = "K (eV/rad^2) and theta0 (degrees)";
  struct Coeff {
    double k, theta0;  // theta0 in radians
  };
  static Coeff coeff_of(const double* c) { return {c[0], c[1] / 180.0 * 3.14159265358979323846}; }

  const Coeff* coeff;
  QUASAR_HD double operator()(int type, const BondedGeometry<3>& g, Vec3 (&f)[3], double (&w)[9]) const {
    const Coeff cf = coeff[type];
    const Vec3 d1 = g.delta(0, 1), d2 = g.delta(2, 1);
    const double rsq1 = d1.x * d1.x + d1.y * d1.y + d1.z * d1.z, r1 = sqrt(rsq1);
    const double rsq2 = d2.x * d2.x + d2.y * d2.y + d2.z * d2.z, r2 = sqrt(rsq2);
    double c = d1.x * d2.x + d1.y * d2.y + d1.z * d2.z;
    c /= r1 * r2;
    c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
    // 1/sin(theta), bounded near straight angles as LAMMPS bounds it.
    double s = sqrt(1.0 - c * c);
    if (s < 0.001) s = 0.001;
    s = 1.0 / s;
    const double dtheta = acos(c) - cf.theta0;
    const double tk = cf.k * dtheta;
    const double a = -2.0 * tk * s;
    const double a11 = a * c / rsq1, a12 = -a / (r1 * r2), a22 = a * c / rsq2;
    f[0] = Vec3{a11 * d1.x + a12 * d2.x, a11 * d1.y + a12 * d2.y, a11 * d1.z + a12 * d2.z};
    f[2] = Vec3{a22 * d2.x + a12 * d1.x, a22 * d2.y + a12 * d1.y, a22 * d2.z + a12 * d1.z};
    f[1] = Vec3{-f[0].x - f[2].x, -f[0].y - f[2].y, -f[0].z - f[2].z};
    const double u[3] = {d1.x, d1.y, d1.z}, v[3] = {d2.x, d2.y, d2.z};
    const double f1[3] = {f[0].x, f[0].y, f[0].z}, f3[3] = {f[2].x, f[2].y, f[2].z};
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) w[3 * p + q] = u[p] * f1[q] + v[p] * f3[q];
    return tk * dtheta;
  }
};

}  // namespace quasar
