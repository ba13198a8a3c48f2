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
// unscaled in addition to its scaled Thole kernel. Written over the scalar T (mixed_arith.hpp):
// double, or float in the GPU's mixed32 mode.
#include <cmath>
#include <type_traits>

#include "quasar/core/hd.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/mixed_arith.hpp"

namespace quasar::amoeba {

template <class T>
struct FieldRadialOf {
  T b1 = 0, b2 = 0, b3 = 0;
};
using FieldRadial = FieldRadialOf<double>;

template <class T>
QUASAR_HD FieldRadialOf<T> coulomb_field_radial(T r) {
  const T r2 = r * r;
  FieldRadialOf<T> k;
  k.b1 = (1 / r) * (1 / r2);  // coulomb_radial's recursion, so that the values are the same bits
  k.b2 = k.b1 * (3 / r2);
  k.b3 = k.b2 * (5 / r2);
  return k;
}

// Thole's damping (a, damp = (alpha_i alpha_k)^(1/6), 0 for none): B_1..B_3 times lambda_3..lambda_7.
template <class T>
QUASAR_HD FieldRadialOf<T> thole_field_radial(T r, T a, T damp) {
  FieldRadialOf<T> k = coulomb_field_radial(r);
  if (damp == 0) return k;
  const T u = r / damp, x = a * u * u * u, e = exp_of(-x);
  k.b1 *= 1 - e;
  k.b2 *= 1 - (1 + x) * e;
  k.b3 *= 1 - (1 + x + static_cast<T>(0.6) * x * x) * e;
  return k;
}

// Ewald's real-space kernel erfc(alpha r)/r (B_1..B_3, by ewald_real_radial's recursion).
template <class T>
QUASAR_HD FieldRadialOf<T> erfc_field_radial(T r, T alpha) {
  const T r2 = r * r, a2 = alpha * alpha, e = exp_of(-a2 * r2) / (alpha * sqrt_of(static_cast<T>(M_PI)));
  T b = erfc_of(alpha * r) / r, power = 1, out[4];
  for (int n = 1; n <= 3; ++n) {
    power *= 2 * a2;
    b = (static_cast<T>(2 * n - 1) * b + power * e) / r2;
    out[n] = b;
  }
  return {out[1], out[2], out[3]};
}

// Ewald's real-space kernel erfc(alpha r)/r less the Coulomb kernel.
template <class T>
QUASAR_HD FieldRadialOf<T> ewald_field_radial(T r, T alpha) {
  const FieldRadialOf<T> c = coulomb_field_radial(r), w = erfc_field_radial(r, alpha);
  return {w.b1 - c.b1, w.b2 - c.b2, w.b3 - c.b3};
}

// The whole kernel of a pair with Ewald sums in mixed32: erfc less (1 - scale lambda_n) of Coulomb's
// (Tinker's form), one kernel per scale. The double code sums the scaled Thole kernel and the
// erfc-less-Coulomb one in separate contractions; in float those two cancel to erfc(alpha r)/r,
// 1e-7 of either at the cutoff, so that the pair would keep nothing of it (a pair's energy came out
// exactly 0 in float): here 1 - scale lambda_n = 1 - scale + scale (1 - lambda_n) is formed first,
// the damping's own tail e (1 + x ...) exact, and nothing cancels beyond alpha r = 1. Below, erfc
// and Coulomb themselves differ by about (alpha r)^(2n+1) of either at order n (2e-4 for B_3 at
// alpha r = 0.3, bonded pairs): those pairs (a few per atom) take the kernel in double, rounded.
// amoeba_mixed_elec_forms_test measures the whole kernel: 3.2e-6 of erfc's B_n, where the split float
// sum lost 1.8e-2 of it.
template <class T>
QUASAR_HD FieldRadialOf<T> ewald_thole_field_radial(double r, double alpha, double a, double damp, double scale) {
  if (alpha * r < 1) {
    const FieldRadialOf<double> w = ewald_field_radial(r, alpha), t = thole_field_radial(r, a, damp);
    return {static_cast<T>(w.b1 + scale * t.b1), static_cast<T>(w.b2 + scale * t.b2),
            static_cast<T>(w.b3 + scale * t.b3)};
  }
  const T rt = static_cast<T>(r), st = static_cast<T>(scale);
  const FieldRadialOf<T> c = coulomb_field_radial(rt), w = erfc_field_radial(rt, static_cast<T>(alpha));
  T tail1 = 0, tail2 = 0, tail3 = 0;  // 1 - lambda_3, 1 - lambda_5, 1 - lambda_7
  if (damp != 0) {
    const T u = rt / static_cast<T>(damp), x = static_cast<T>(a) * u * u * u, e = exp_of(-x);
    tail1 = e;
    tail2 = (1 + x) * e;
    tail3 = (1 + x + static_cast<T>(0.6) * x * x) * e;
  }
  return {w.b1 - (1 - st + st * tail1) * c.b1, w.b2 - (1 - st + st * tail2) * c.b2,
          w.b3 - (1 - st + st * tail3) * c.b3};
}

// The field of a dipole u at s from it.
template <class T>
QUASAR_HD V3<T> dipole_field(const V3<T>& u, const V3<T>& s, const FieldRadialOf<T>& k) {
  const T us = u.x * s.x + u.y * s.y + u.z * s.z;
  return s * (k.b2 * us) - u * k.b1;
}

// The field of the moments M (Tinker's 13: charge, dipole, quadrupole / 3 as a full matrix) at s
// from them. A zero moment is skipped, as source_potential does.
template <class T>
QUASAR_HD V3<T> multipole_field(const T* M, const V3<T>& s, const FieldRadialOf<T>& k) {
  using V = V3<T>;
  V f{0, 0, 0};
  if (M[0] != 0) f += s * (M[0] * k.b1);
  if (M[1] != 0 || M[2] != 0 || M[3] != 0) f += dipole_field(V{M[1], M[2], M[3]}, s, k);
  const T* Q = M + 4;
  bool quad = false;
  for (int c = 0; c < 9; ++c) quad = quad || Q[c] != 0;
  if (quad) {
    V qs{0, 0, 0};  // (Q + Q^T) s
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) qs[a] += (Q[3 * a + b] + Q[3 * b + a]) * s[b];
    const T sqs = static_cast<T>(0.5) * (qs.x * s.x + qs.y * s.y + qs.z * s.z);
    f += s * (k.b3 * sqs) - qs * k.b2;
  }
  return f;
}

// One pair's kernels: the Thole-damped one, and with Ewald sums (alpha > 0) the real-space kernel
// less the Coulomb one.
template <class T>
struct FieldKernelsOf {
  FieldRadialOf<T> thole, ewald;
  bool has_ewald = false;
};
using FieldKernels = FieldKernelsOf<double>;
// At a separation r formed in double (the double path; mixed32 takes ewald_thole_field_radial with
// Ewald sums).
template <class T>
QUASAR_HD FieldKernelsOf<T> field_kernels(double r, double thole_a, double damp, double ewald_alpha) {
  FieldKernelsOf<T> k;
  k.thole = thole_field_radial(static_cast<T>(r), static_cast<T>(thole_a), static_cast<T>(damp));
  k.has_ewald = ewald_alpha > 0;
  if (k.has_ewald) k.ewald = ewald_field_radial(static_cast<T>(r), static_cast<T>(ewald_alpha));
  return k;
}
QUASAR_HD FieldKernels field_kernels(double r, double thole_a, double damp, double ewald_alpha) {
  return field_kernels<double>(r, thole_a, damp, ewald_alpha);
}

// The direct fields at a receiver of a source's moments M at s from it: the Thole part scaled by the
// pair's d (field_d) and p (field_p) factors, the Ewald part unscaled (induced_dipoles.cpp's
// direct_fields). Sum: a Vec3 (double) or a fixed-point sum (mixed_arith.hpp).
template <class T, class Sum>
QUASAR_HD void direct_pair_fields(const T* M, const V3<T>& s, const FieldKernelsOf<T>& k, T sd, T sp, Sum& field_d,
                                  Sum& field_p) {
  const V3<T> t = multipole_field(M, s, k.thole);
  field_d += t * sd;
  field_p += t * sp;
  if (k.has_ewald) {
    const V3<T> w = multipole_field(M, s, k.ewald);
    field_d += w;
    field_p += w;
  }
}

// mixed32's direct fields of a pair (Sum: fixed-point sums): with Ewald sums one whole kernel per
// scale (ewald_thole_field_radial; one contraction where sd = sp), without the Thole kernel scaled.
template <class Sum>
QUASAR_HD void direct_pair_fields_mixed(const float* M, const Vec3F& s, double r, double a, double damp,
                                        double alpha, double sd, double sp, Sum& field_d, Sum& field_p) {
  if (alpha > 0) {
    const Vec3F fd = multipole_field(M, s, ewald_thole_field_radial<float>(r, alpha, a, damp, sd));
    field_d += fd;
    field_p += sp == sd ? fd : multipole_field(M, s, ewald_thole_field_radial<float>(r, alpha, a, damp, sp));
  } else {
    const FieldKernelsOf<float> k = field_kernels<float>(r, a, damp, 0);
    direct_pair_fields(M, s, k, static_cast<float>(sd), static_cast<float>(sp), field_d, field_p);
  }
}

// The mutual field at a receiver of a dipole u at s from it: the Thole part scaled by the pair's u
// factor, the Ewald part unscaled (induced_dipoles.cpp's DipoleField).
template <class T>
QUASAR_HD V3<T> mutual_pair_field(const V3<T>& u, const V3<T>& s, const FieldKernelsOf<T>& k, T su) {
  V3<T> f = dipole_field(u, s, k.thole) * su;
  if (k.has_ewald) f += dipole_field(u, s, k.ewald);
  return f;
}
// mixed32's: with Ewald sums one whole kernel (ewald_thole_field_radial).
QUASAR_HD Vec3F mutual_pair_field_mixed(const Vec3F& u, const Vec3F& s, double r, double a, double damp,
                                        double alpha, double su) {
  if (alpha > 0) return dipole_field(u, s, ewald_thole_field_radial<float>(r, alpha, a, damp, su));
  return dipole_field(u, s, thole_field_radial(static_cast<float>(r), static_cast<float>(a), static_cast<float>(damp))) *
         static_cast<float>(su);
}

}  // namespace quasar::amoeba
