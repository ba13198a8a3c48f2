#pragma once
// The pair gradients of the polarization energy (polarization_term.cpp) as explicit formulas, written
// once for the CPU and the CUDA kernels (polar_kernels.cu), in field_forms.hpp's style. For a pair
// (i, k) with s = r_i - r_k and the dipoles held fixed, the CPU differentiates
//   P = U(M_i, D_k) + U(A_i, M_k) + su [U(up_i, ud_k) + U(ud_i, up_k)],
// D = sp ud + sd up (A likewise), U the interaction of two moment sets through a radial kernel; P is
// symmetric in i and k, so that atom i alone can gather dP/dr_i and dP/dM_i (the moments'
// coefficients for its frame) over its partners: no pair writes another atom's sums.
// Each interaction is written out from the derivative tensors' closed form in B_1..B_4
// (multipole_pair.hpp: T_a = -B1 s_a, T_ab = B2 s_a s_b - B1 d_ab, ...) as dot products, so that no
// tensor is stored. A quadrupole's own trace drops out, as in Tinker's formulas (the generic code adds
// it through the shifted kernel, which cancels it), so that the forms equal the generic tensors to
// rounding (amoeba_polar_forms_test).
#include <cmath>

#include "quasar/potential/amoeba/field_forms.hpp"
#include "quasar/potential/amoeba/induce_forms.hpp"

namespace quasar::amoeba {

// B_0..B_5 of one kernel (B_0 and B_5 unused: the pairs here need B_1..B_4, B_5 for none).
struct PolarRadial {
  double b[6] = {0, 0, 0, 0, 0, 0};
};

QUASAR_HD PolarRadial thole_polar_radial(double r, double a, double damp) {
  const double r2 = r * r;
  PolarRadial k;
  double b = 1 / r;  // coulomb_radial's recursion, so that the values are the same bits
  for (int n = 0; n < 5; ++n) {
    k.b[n] = b;
    b *= (2 * n + 1) / r2;
  }
  if (damp == 0) return k;
  const double u = r / damp, x = a * u * u * u, e = ::exp(-x);
  k.b[1] *= 1 - e;
  k.b[2] *= 1 - (1 + x) * e;
  k.b[3] *= 1 - (1 + x + 0.6 * x * x) * e;
  k.b[4] *= 1 - (1 + x + (18.0 / 35) * x * x + (9.0 / 35) * x * x * x) * e;
  return k;
}

// Ewald's real-space kernel erfc(alpha r)/r less the Coulomb one (ewald_real_radial, scale 0).
QUASAR_HD PolarRadial ewald_polar_radial(double r, double alpha) {
  const double r2 = r * r, a2 = alpha * alpha, e = ::exp(-a2 * r2) / (alpha * ::sqrt(M_PI));
  PolarRadial k;
  double b = ::erfc(alpha * r) / r, c = 1 / r, power = 1;
  for (int n = 0; n < 5; ++n) {
    if (n > 0) {
      power *= 2 * a2;
      b = ((2 * n - 1) * b + power * e) / r2;
    }
    k.b[n] = b - c;
    c *= (2 * n + 1) / r2;
  }
  return k;
}

QUASAR_HD double polar_dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// M_i (Tinker's 13) in the potential of a dipole d at k: adds dU/ds to g and dU/dM_i to dm, returns U.
// The potential's derivatives, with ds = d.s (the receiver's own trace left out, as it cancels
// against the shifted kernel's term):
//   phi = B1 ds, phi_a = B1 d_a - B2 s_a ds, phi_ab = B3 s_a s_b ds - B2 (s_a d_b + s_b d_a),
//   phi_abe = -B4 s_a s_b s_e ds + B3 (s_a s_b d_e + s_a s_e d_b + s_b s_e d_a + ds (s_a d_be + s_b d_ae))
//             - B2 (d_ae d_b + d_be d_a).
QUASAR_HD double multipole_in_dipole(const double* M, const Vec3& d, const Vec3& s, const PolarRadial& k, double* g,
                                     double* dm) {
  const double* b = k.b;
  const double ds = polar_dot(d, s);
  const Vec3 di{M[1], M[2], M[3]};
  const double* Q = M + 4;
  Vec3 Qs{0, 0, 0}, sQ{0, 0, 0}, Qd{0, 0, 0}, dQ{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) {
      Qs[a] += Q[3 * a + c] * s[c];
      sQ[a] += s[c] * Q[3 * c + a];
      Qd[a] += Q[3 * a + c] * d[c];
      dQ[a] += d[c] * Q[3 * c + a];
    }
  const double sQs = polar_dot(s, Qs), sQd = polar_dot(s, Qd), dQs = polar_dot(d, Qs);
  const double dis = polar_dot(di, s), did = polar_dot(di, d);
  for (int a = 0; a < 3; ++a) {
    dm[1 + a] += b[1] * d[a] - b[2] * s[a] * ds;
    for (int c = 0; c < 3; ++c) dm[4 + 3 * a + c] += b[3] * s[a] * s[c] * ds - b[2] * (s[a] * d[c] + s[c] * d[a]);
  }
  dm[0] += b[1] * ds;
  for (int e = 0; e < 3; ++e) {
    // q phi_e + d_i,a phi_ae + Q_ab phi_abe.
    const double phi_e = b[1] * d[e] - b[2] * s[e] * ds;
    const double dphi = b[3] * dis * s[e] * ds - b[2] * (dis * d[e] + did * s[e] + ds * di[e]);
    const double qphi = -b[4] * sQs * ds * s[e] +
                        b[3] * (sQs * d[e] + s[e] * (sQd + dQs) + ds * (sQ[e] + Qs[e])) - b[2] * (Qd[e] + dQ[e]);
    g[e] += M[0] * phi_e + dphi + qphi;
  }
  return M[0] * b[1] * ds + b[1] * did - b[2] * dis * ds + b[3] * sQs * ds - b[2] * (sQd + dQs);
}

// A dipole A at i in the potential of the moments M at k (Tinker's 13; the source's own trace left
// out): adds dU/ds to g, returns U = A . grad phi, with w = (Q + Q^T) s, ds = d.s, sQs = s.Q.s:
//   grad phi = -q B1 s + B1 d - B2 s ds + B2 w - B3 s sQs (field_forms.hpp's field, negated).
QUASAR_HD double dipole_in_multipole(const Vec3& A, const double* M, const Vec3& s, const PolarRadial& k, double* g) {
  const double* b = k.b;
  const Vec3 d{M[1], M[2], M[3]};
  const double* Q = M + 4;
  Vec3 w{0, 0, 0}, AQ{0, 0, 0};  // (Q + Q^T) s, (Q + Q^T) A
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) {
      w[a] += (Q[3 * a + c] + Q[3 * c + a]) * s[c];
      AQ[a] += (Q[3 * a + c] + Q[3 * c + a]) * A[c];
    }
  const double sQs = 0.5 * polar_dot(w, s), ds = polar_dot(d, s), As = polar_dot(A, s), Ad = polar_dot(A, d),
               Aw = polar_dot(A, w);
  for (int e = 0; e < 3; ++e)
    g[e] += -M[0] * (b[1] * A[e] - b[2] * As * s[e]) +
            (-b[2] * Ad * s[e] + b[3] * As * ds * s[e] - b[2] * ds * A[e] - b[2] * As * d[e]) +
            (-b[3] * Aw * s[e] + b[2] * AQ[e] + b[4] * As * sQs * s[e] - b[3] * sQs * A[e] - b[3] * As * w[e]);
  return -M[0] * b[1] * As + b[1] * Ad - b[2] * As * ds + b[2] * Aw - b[3] * As * sQs;
}

// A dipole v at i in the potential of a dipole u at k: adds dU/ds to g, returns
// U = B1 v.u - B2 (v.s)(u.s).
QUASAR_HD double dipole_in_dipole(const Vec3& v, const Vec3& u, const Vec3& s, const PolarRadial& k, double* g) {
  const double* b = k.b;
  const double vs = polar_dot(v, s), us = polar_dot(u, s), vu = polar_dot(v, u);
  for (int e = 0; e < 3; ++e) g[e] += b[3] * vs * us * s[e] - b[2] * (vs * u[e] + vu * s[e] + us * v[e]);
  return b[1] * vu - b[2] * vs * us;
}

// One kernel's share of dP/ds, dP/dM_i and P for the pair, the scales sp, sd, su (1 for Ewald's part).
QUASAR_HD double polar_pair_part(const double* Mi, const double* Mk, const Vec3& udi, const Vec3& upi,
                                 const Vec3& udk, const Vec3& upk, const Vec3& s, const PolarRadial& k, double sp,
                                 double sd, double su, bool mutual, double* g, double* dm) {
  double pair = multipole_in_dipole(Mi, udk * sp + upk * sd, s, k, g, dm);
  pair += dipole_in_multipole(udi * sp + upi * sd, Mk, s, k, g);
  if (mutual && su != 0) {
    pair += dipole_in_dipole(upi, udk * su, s, k, g);
    pair += dipole_in_dipole(udi, upk * su, s, k, g);
  }
  return pair;
}

// What atom i gathers: f dP/dr_i summed over its partners (grad), f dP/dM_i (dM), its half of each
// pair's virial -s (x) f dP/dr_i (virial, row-major), and the pairs with a higher partner that
// interact with a nonzero p-scale (Tinker's count, as the CPU counts each pair once). Pairs of two
// unpolarizable atoms are left out, as the CPU's loop leaves them.
struct PolarSums {
  double grad[3] = {0, 0, 0}, dM[13] = {}, virial[9] = {};
  int pairs = 0;
};
QUASAR_HD void polar_pairs_at(const InduceArgs& a, int i, const double* M, const double* ud, const double* up,
                              bool mutual, double f, PolarSums& out) {
  const bool ewald = a.ewald_alpha > 0;
  const Vec3 ri = load3(a.position, i), udi = load3(ud, i), upi = load3(up, i);
  const double* Mi = M + 13 * static_cast<long>(i);
  InducePartners it(a, i);
  int k, sc;
  double r;
  Vec3 s;
  while (it.next(k, sc)) {
    if (a.alpha[i] == 0 && a.alpha[k] == 0) continue;
    if (!it.separation(ri, k, a.cutoff, s, r)) continue;
    const double sd = sc < 0 ? 1.0 : a.scale_d[sc], sp = sc < 0 ? 1.0 : a.scale_p[sc];
    const double su = sc < 0 ? 1.0 : a.scale_u[sc];
    const double* Mk = M + 13 * static_cast<long>(k);
    const Vec3 udk = load3(ud, k), upk = load3(up, k);
    double g[3] = {0, 0, 0}, dm[13] = {};
    double pair = polar_pair_part(Mi, Mk, udi, upi, udk, upk, s, thole_polar_radial(r, it.thole(k), it.damp(k)),
                                  sp, sd, su, mutual, g, dm);
    if (ewald)
      pair += polar_pair_part(Mi, Mk, udi, upi, udk, upk, s, ewald_polar_radial(r, a.ewald_alpha), 1, 1, 1, mutual,
                              g, dm);
    if (k > i && sp != 0 && pair != 0) ++out.pairs;
    for (int c = 0; c < 3; ++c) out.grad[c] += f * g[c];
    for (int c = 0; c < 13; ++c) out.dM[c] += f * dm[c];
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y) out.virial[3 * x + y] -= s[x] * (f * g[y]) / 2;
  }
}

}  // namespace quasar::amoeba
