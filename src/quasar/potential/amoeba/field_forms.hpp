#pragma once
// The electric fields of the induced-dipole solver as explicit formulas, written once for the CPU and
// the CUDA kernels (induce_kernels.cu): the field at a receiver of a source's charge, dipole and
// quadrupole, and of a dipole, through a radial kernel given by B_1..B_3 (B_{n+1} = -(1/r) dB_n/dr,
// multipole_pair.hpp), for s = r_receiver - r_source:
//   E = q B1 s + B2 s (d.s) - B1 d + B3 s (s.Q.s) - B2 (Q + Q^T) s.
// The quadrupole's trace drops out as it does in Tinker's formulas (the generic tensors add it back
// through the shifted kernel, which cancels the contraction of the quadrupole's own indices), so the
// forms equal pair_tensors + source_potential to rounding (field_forms_test). The kernels: Coulomb,
// Thole-damped (thole_radial) and Ewald's real-space erfc kernel less the Coulomb one
// (ewald_real_radial with scale 0), the part that every pair within the real-space cutoff takes
// unscaled in addition to its scaled Thole kernel.
#include <cmath>

#include "quasar/core/hd.hpp"
#include "quasar/core/vec.hpp"

namespace quasar::amoeba {

struct FieldRadial {
  double b1 = 0, b2 = 0, b3 = 0;
};

QUASAR_HD FieldRadial coulomb_field_radial(double r) {
  const double r2 = r * r;
  FieldRadial k;
  k.b1 = (1 / r) * (1 / r2);  // coulomb_radial's recursion, so that the values are the same bits
  k.b2 = k.b1 * (3 / r2);
  k.b3 = k.b2 * (5 / r2);
  return k;
}

// Thole's damping (a, damp = (alpha_i alpha_k)^(1/6), 0 for none): B_1..B_3 times lambda_3..lambda_7.
QUASAR_HD FieldRadial thole_field_radial(double r, double a, double damp) {
  FieldRadial k = coulomb_field_radial(r);
  if (damp == 0) return k;
  const double u = r / damp, x = a * u * u * u, e = ::exp(-x);
  k.b1 *= 1 - e;
  k.b2 *= 1 - (1 + x) * e;
  k.b3 *= 1 - (1 + x + 0.6 * x * x) * e;
  return k;
}

// Ewald's real-space kernel erfc(alpha r)/r less the Coulomb kernel.
QUASAR_HD FieldRadial ewald_field_radial(double r, double alpha) {
  const FieldRadial c = coulomb_field_radial(r);
  const double r2 = r * r, a2 = alpha * alpha, e = ::exp(-a2 * r2) / (alpha * ::sqrt(M_PI));
  double b = ::erfc(alpha * r) / r, power = 1, out[4];
  for (int n = 1; n <= 3; ++n) {
    power *= 2 * a2;
    b = ((2 * n - 1) * b + power * e) / r2;
    out[n] = b;
  }
  return {out[1] - c.b1, out[2] - c.b2, out[3] - c.b3};
}

// The field of a dipole u at s from it.
QUASAR_HD Vec3 dipole_field(const Vec3& u, const Vec3& s, const FieldRadial& k) {
  const double us = u.x * s.x + u.y * s.y + u.z * s.z;
  return s * (k.b2 * us) - u * k.b1;
}

// The field of the moments M (Tinker's 13: charge, dipole, quadrupole / 3 as a full matrix) at s
// from them. A zero moment is skipped, as source_potential does.
QUASAR_HD Vec3 multipole_field(const double* M, const Vec3& s, const FieldRadial& k) {
  Vec3 f{0, 0, 0};
  if (M[0] != 0) f += s * (M[0] * k.b1);
  if (M[1] != 0 || M[2] != 0 || M[3] != 0) f += dipole_field(Vec3{M[1], M[2], M[3]}, s, k);
  const double* Q = M + 4;
  bool quad = false;
  for (int c = 0; c < 9; ++c) quad = quad || Q[c] != 0;
  if (quad) {
    Vec3 qs{0, 0, 0};  // (Q + Q^T) s
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) qs[a] += (Q[3 * a + b] + Q[3 * b + a]) * s[b];
    const double sqs = 0.5 * (qs.x * s.x + qs.y * s.y + qs.z * s.z);
    f += s * (k.b3 * sqs) - qs * k.b2;
  }
  return f;
}

// One pair's kernels: the Thole-damped one, and with Ewald sums (alpha > 0) the real-space kernel
// less the Coulomb one.
struct FieldKernels {
  FieldRadial thole, ewald;
  bool has_ewald = false;
};
QUASAR_HD FieldKernels field_kernels(double r, double thole_a, double damp, double ewald_alpha) {
  FieldKernels k;
  k.thole = thole_field_radial(r, thole_a, damp);
  k.has_ewald = ewald_alpha > 0;
  if (k.has_ewald) k.ewald = ewald_field_radial(r, ewald_alpha);
  return k;
}

// The direct fields at a receiver of a source's moments M at s from it: the Thole part scaled by the
// pair's d (field_d) and p (field_p) factors, the Ewald part unscaled (induced_dipoles.cpp's
// direct_fields).
QUASAR_HD void direct_pair_fields(const double* M, const Vec3& s, const FieldKernels& k, double sd, double sp,
                                  Vec3& field_d, Vec3& field_p) {
  const Vec3 t = multipole_field(M, s, k.thole);
  field_d += t * sd;
  field_p += t * sp;
  if (k.has_ewald) {
    const Vec3 w = multipole_field(M, s, k.ewald);
    field_d += w;
    field_p += w;
  }
}

// The mutual field at a receiver of a dipole u at s from it: the Thole part scaled by the pair's u
// factor, the Ewald part unscaled (induced_dipoles.cpp's DipoleField).
QUASAR_HD Vec3 mutual_pair_field(const Vec3& u, const Vec3& s, const FieldKernels& k, double su) {
  Vec3 f = dipole_field(u, s, k.thole) * su;
  if (k.has_ewald) f += dipole_field(u, s, k.ewald);
  return f;
}

}  // namespace quasar::amoeba
