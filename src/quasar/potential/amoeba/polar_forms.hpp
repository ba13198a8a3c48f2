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
// rounding (amoeba_polar_forms_test). Written over the scalar T (mixed_arith.hpp): double, or float
// in the GPU's mixed32 mode.
#include <cmath>
#include <type_traits>

#include "quasar/potential/amoeba/field_forms.hpp"
#include "quasar/potential/amoeba/induce_forms.hpp"

namespace quasar::amoeba {

// B_0..B_5 of one kernel (B_0 and B_5 unused: the pairs here need B_1..B_4, B_5 for none).
template <class T>
struct PolarRadialOf {
  T b[6] = {0, 0, 0, 0, 0, 0};
};
using PolarRadial = PolarRadialOf<double>;

template <class T>
QUASAR_HD PolarRadialOf<T> thole_polar_radial(T r, T a, T damp) {
  const T r2 = r * r;
  PolarRadialOf<T> k;
  T b = 1 / r;  // coulomb_radial's recursion, so that the values are the same bits
  for (int n = 0; n < 5; ++n) {
    k.b[n] = b;
    b *= static_cast<T>(2 * n + 1) / r2;
  }
  if (damp == 0) return k;
  const T u = r / damp, x = a * u * u * u, e = exp_of(-x);
  k.b[1] *= 1 - e;
  k.b[2] *= 1 - (1 + x) * e;
  k.b[3] *= 1 - (1 + x + static_cast<T>(0.6) * x * x) * e;
  k.b[4] *= 1 - (1 + x + static_cast<T>(18.0 / 35) * x * x + static_cast<T>(9.0 / 35) * x * x * x) * e;
  return k;
}

// Ewald's real-space kernel erfc(alpha r)/r less the Coulomb one (ewald_real_radial, scale 0).
template <class T>
QUASAR_HD PolarRadialOf<T> ewald_polar_radial(T r, T alpha) {
  const T r2 = r * r, a2 = alpha * alpha, e = exp_of(-a2 * r2) / (alpha * sqrt_of(static_cast<T>(M_PI)));
  PolarRadialOf<T> k;
  T b = erfc_of(alpha * r) / r, c = 1 / r, power = 1;
  for (int n = 0; n < 5; ++n) {
    if (n > 0) {
      power *= 2 * a2;
      b = (static_cast<T>(2 * n - 1) * b + power * e) / r2;
    }
    k.b[n] = b - c;
    c *= static_cast<T>(2 * n + 1) / r2;
  }
  return k;
}

// mixed32's whole kernel of a pair with Ewald sums, B_1..B_4: erfc less (1 - scale lambda_n) of
// Coulomb's, formed as field_forms.hpp's ewald_thole_field_radial says why (in double below alpha r = 1).
template <class T>
QUASAR_HD PolarRadialOf<T> ewald_thole_polar_radial(double r, double alpha, double a, double damp, double scale) {
  PolarRadialOf<T> k;
  if (alpha * r < 1) {
    const PolarRadialOf<double> w = ewald_polar_radial(r, alpha), t = thole_polar_radial(r, a, damp);
    for (int n = 1; n < 5; ++n) k.b[n] = static_cast<T>(w.b[n] + scale * t.b[n]);
    return k;
  }
  const T rt = static_cast<T>(r), at = static_cast<T>(alpha), st = static_cast<T>(scale);
  const T r2 = rt * rt, a2 = at * at, e = exp_of(-a2 * r2) / (at * sqrt_of(static_cast<T>(M_PI)));
  T tail[5] = {0, 0, 0, 0, 0};  // 1 - lambda_3 ... 1 - lambda_9
  if (damp != 0) {
    const T u = rt / static_cast<T>(damp), x = static_cast<T>(a) * u * u * u, d = exp_of(-x);
    tail[1] = d;
    tail[2] = (1 + x) * d;
    tail[3] = (1 + x + static_cast<T>(0.6) * x * x) * d;
    tail[4] = (1 + x + static_cast<T>(18.0 / 35) * x * x + static_cast<T>(9.0 / 35) * x * x * x) * d;
  }
  T w = erfc_of(at * rt) / rt, c = 1 / rt, power = 1;
  for (int n = 1; n < 5; ++n) {
    power *= 2 * a2;
    w = (static_cast<T>(2 * n - 1) * w + power * e) / r2;
    c *= static_cast<T>(2 * n - 1) / r2;
    k.b[n] = w - (1 - st + st * tail[n]) * c;
  }
  return k;
}

template <class V>
QUASAR_HD auto polar_dot(const V& a, const V& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

// M_i (Tinker's 13) in the potential of a dipole d at k: adds dU/ds to g and dU/dM_i to dm, returns U.
// The potential's derivatives, with ds = d.s (the receiver's own trace left out, as it cancels
// against the shifted kernel's term):
//   phi = B1 ds, phi_a = B1 d_a - B2 s_a ds, phi_ab = B3 s_a s_b ds - B2 (s_a d_b + s_b d_a),
//   phi_abe = -B4 s_a s_b s_e ds + B3 (s_a s_b d_e + s_a s_e d_b + s_b s_e d_a + ds (s_a d_be + s_b d_ae))
//             - B2 (d_ae d_b + d_be d_a).
template <class T>
QUASAR_HD T multipole_in_dipole(const T* M, const V3<T>& d, const V3<T>& s, const PolarRadialOf<T>& k, T* g, T* dm) {
  using V = V3<T>;
  const T* b = k.b;
  const T ds = polar_dot(d, s);
  const V di{M[1], M[2], M[3]};
  const T* Q = M + 4;
  V Qs{0, 0, 0}, sQ{0, 0, 0}, Qd{0, 0, 0}, dQ{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) {
      Qs[a] += Q[3 * a + c] * s[c];
      sQ[a] += s[c] * Q[3 * c + a];
      Qd[a] += Q[3 * a + c] * d[c];
      dQ[a] += d[c] * Q[3 * c + a];
    }
  const T sQs = polar_dot(s, Qs), sQd = polar_dot(s, Qd), dQs = polar_dot(d, Qs);
  const T dis = polar_dot(di, s), did = polar_dot(di, d);
  for (int a = 0; a < 3; ++a) {
    dm[1 + a] += b[1] * d[a] - b[2] * s[a] * ds;
    for (int c = 0; c < 3; ++c) dm[4 + 3 * a + c] += b[3] * s[a] * s[c] * ds - b[2] * (s[a] * d[c] + s[c] * d[a]);
  }
  dm[0] += b[1] * ds;
  for (int e = 0; e < 3; ++e) {
    // q phi_e + d_i,a phi_ae + Q_ab phi_abe.
    const T phi_e = b[1] * d[e] - b[2] * s[e] * ds;
    const T dphi = b[3] * dis * s[e] * ds - b[2] * (dis * d[e] + did * s[e] + ds * di[e]);
    const T qphi = -b[4] * sQs * ds * s[e] +
                        b[3] * (sQs * d[e] + s[e] * (sQd + dQs) + ds * (sQ[e] + Qs[e])) - b[2] * (Qd[e] + dQ[e]);
    g[e] += M[0] * phi_e + dphi + qphi;
  }
  return M[0] * b[1] * ds + b[1] * did - b[2] * dis * ds + b[3] * sQs * ds - b[2] * (sQd + dQs);
}

// A dipole A at i in the potential of the moments M at k (Tinker's 13; the source's own trace left
// out): adds dU/ds to g, returns U = A . grad phi, with w = (Q + Q^T) s, ds = d.s, sQs = s.Q.s:
//   grad phi = -q B1 s + B1 d - B2 s ds + B2 w - B3 s sQs (field_forms.hpp's field, negated).
template <class T>
QUASAR_HD T dipole_in_multipole(const V3<T>& A, const T* M, const V3<T>& s, const PolarRadialOf<T>& k, T* g) {
  using V = V3<T>;
  const T* b = k.b;
  const V d{M[1], M[2], M[3]};
  const T* Q = M + 4;
  V w{0, 0, 0}, AQ{0, 0, 0};  // (Q + Q^T) s, (Q + Q^T) A
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) {
      w[a] += (Q[3 * a + c] + Q[3 * c + a]) * s[c];
      AQ[a] += (Q[3 * a + c] + Q[3 * c + a]) * A[c];
    }
  const T sQs = static_cast<T>(0.5) * polar_dot(w, s), ds = polar_dot(d, s), As = polar_dot(A, s),
          Ad = polar_dot(A, d), Aw = polar_dot(A, w);
  for (int e = 0; e < 3; ++e)
    g[e] += -M[0] * (b[1] * A[e] - b[2] * As * s[e]) +
            (-b[2] * Ad * s[e] + b[3] * As * ds * s[e] - b[2] * ds * A[e] - b[2] * As * d[e]) +
            (-b[3] * Aw * s[e] + b[2] * AQ[e] + b[4] * As * sQs * s[e] - b[3] * sQs * A[e] - b[3] * As * w[e]);
  return -M[0] * b[1] * As + b[1] * Ad - b[2] * As * ds + b[2] * Aw - b[3] * As * sQs;
}

// A dipole v at i in the potential of a dipole u at k: adds dU/ds to g, returns
// U = B1 v.u - B2 (v.s)(u.s).
template <class T>
QUASAR_HD T dipole_in_dipole(const V3<T>& v, const V3<T>& u, const V3<T>& s, const PolarRadialOf<T>& k, T* g) {
  const T* b = k.b;
  const T vs = polar_dot(v, s), us = polar_dot(u, s), vu = polar_dot(v, u);
  for (int e = 0; e < 3; ++e) g[e] += b[3] * vs * us * s[e] - b[2] * (vs * u[e] + vu * s[e] + us * v[e]);
  return b[1] * vu - b[2] * vs * us;
}

// One kernel's share of dP/ds, dP/dM_i and P for the pair, the scales sp, sd, su (1 for Ewald's part).
template <class T>
QUASAR_HD T polar_pair_part(const T* Mi, const T* Mk, const V3<T>& udi, const V3<T>& upi, const V3<T>& udk,
                            const V3<T>& upk, const V3<T>& s, const PolarRadialOf<T>& k, T sp, T sd, T su,
                            bool mutual, T* g, T* dm) {
  T pair = multipole_in_dipole(Mi, udk * sp + upk * sd, s, k, g, dm);
  pair += dipole_in_multipole(udi * sp + upi * sd, Mk, s, k, g);
  if (mutual && su != 0) {
    pair += dipole_in_dipole(upi, udk * su, s, k, g);
    pair += dipole_in_dipole(udi, upk * su, s, k, g);
  }
  return pair;
}

// mixed32's pair with Ewald sums: each interaction through the whole kernel of its scale
// (ewald_thole_polar_radial), which the double code splits into a scaled Thole part and an unscaled
// Ewald part: P = U_p(M_i, ud_k) + U_d(M_i, up_k) + U_p(ud_i, M_k) + U_d(up_i, M_k)
// + U_u(up_i, ud_k) + U_u(ud_i, up_k), U_x through erfc less (1 - x lambda) of Coulomb's.
QUASAR_HD float polar_pair_mixed_ewald(const float* Mi, const float* Mk, const Vec3F& udi, const Vec3F& upi,
                                       const Vec3F& udk, const Vec3F& upk, const Vec3F& s, double r, double a,
                                       double damp, double alpha, double sp, double sd, double su, bool mutual,
                                       float* g, float* dm) {
  const PolarRadialOf<float> kp = ewald_thole_polar_radial<float>(r, alpha, a, damp, sp);
  float pair;
  if (sp == sd) {
    pair = multipole_in_dipole(Mi, udk + upk, s, kp, g, dm) + dipole_in_multipole(udi + upi, Mk, s, kp, g);
  } else {
    const PolarRadialOf<float> kd = ewald_thole_polar_radial<float>(r, alpha, a, damp, sd);
    pair = multipole_in_dipole(Mi, udk, s, kp, g, dm) + multipole_in_dipole(Mi, upk, s, kd, g, dm) +
           dipole_in_multipole(udi, Mk, s, kp, g) + dipole_in_multipole(upi, Mk, s, kd, g);
  }
  if (mutual) {
    const PolarRadialOf<float> ku = su == sp ? kp : ewald_thole_polar_radial<float>(r, alpha, a, damp, su);
    pair += dipole_in_dipole(upi, udk, s, ku, g) + dipole_in_dipole(udi, upk, s, ku, g);
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
template <class T>
QUASAR_HD void polar_pairs_at(const InduceArgs& a, int i, const double* M, const double* ud, const double* up,
                              bool mutual, double f, PolarSums& out) {
  using V = V3<T>;
  const bool ewald = a.ewald_alpha > 0;
  const Vec3 ri = load3(a.position, i);
  const V udi = vec_as<T>(load3(ud, i)), upi = vec_as<T>(load3(up, i));
  T Mi[13];
  for (int c = 0; c < 13; ++c) Mi[c] = static_cast<T>(M[13 * static_cast<long>(i) + c]);
  SumOf<T> grad[3], dM[13], virial[9];
  InducePartners it(a, i);
  int k, sc;
  double r;
  Vec3 s;
  while (it.next(k, sc)) {
    if (a.alpha[i] == 0 && a.alpha[k] == 0) continue;
    if (!it.separation(ri, k, a.cutoff, s, r)) continue;
    const double sd = sc < 0 ? 1.0 : a.scale_d[sc], sp = sc < 0 ? 1.0 : a.scale_p[sc];
    const double su = sc < 0 ? 1.0 : a.scale_u[sc];
    T Mk[13];
    for (int c = 0; c < 13; ++c) Mk[c] = static_cast<T>(M[13 * static_cast<long>(k) + c]);
    const V udk = vec_as<T>(load3(ud, k)), upk = vec_as<T>(load3(up, k)), sT = vec_as<T>(s);
    T g[3] = {0, 0, 0}, dm[13] = {};
    T pair = 0;
    bool whole = false;  // mixed32 with Ewald sums: one kernel per scale
    if constexpr (!std::is_same_v<T, double>) {
      whole = ewald;
      if (whole)
        pair = polar_pair_mixed_ewald(Mi, Mk, udi, upi, udk, upk, sT, r, it.thole(k), it.damp(k), a.ewald_alpha, sp,
                                      sd, su, mutual, g, dm);
    }
    if (!whole) {
      const PolarRadialOf<T> thole =
          thole_polar_radial(static_cast<T>(r), static_cast<T>(it.thole(k)), static_cast<T>(it.damp(k)));
      pair = polar_pair_part(Mi, Mk, udi, upi, udk, upk, sT, thole, static_cast<T>(sp), static_cast<T>(sd),
                             static_cast<T>(su), mutual, g, dm);
      if (ewald)
        pair += polar_pair_part(Mi, Mk, udi, upi, udk, upk, sT, ewald_polar_radial(static_cast<T>(r), static_cast<T>(a.ewald_alpha)),
                                T(1), T(1), T(1), mutual, g, dm);
    }
    if (k > i && sp != 0 && pair != 0) ++out.pairs;
    for (int c = 0; c < 3; ++c) grad[c].add(f * static_cast<double>(g[c]));
    for (int c = 0; c < 13; ++c) dM[c].add(f * static_cast<double>(dm[c]));
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y) virial[3 * x + y].add(-(s[x] * (f * static_cast<double>(g[y])) / 2));
  }
  for (int c = 0; c < 3; ++c) out.grad[c] = grad[c].value();
  for (int c = 0; c < 13; ++c) out.dM[c] = dM[c].value();
  for (int c = 0; c < 9; ++c) out.virial[c] = virial[c].value();
}
QUASAR_HD void polar_pairs_at(const InduceArgs& a, int i, const double* M, const double* ud, const double* up,
                              bool mutual, double f, PolarSums& out) {
  if (a.mixed) polar_pairs_at<float>(a, i, M, ud, up, mutual, f, out);
  else polar_pairs_at<double>(a, i, M, ud, up, mutual, f, out);
}

}  // namespace quasar::amoeba
