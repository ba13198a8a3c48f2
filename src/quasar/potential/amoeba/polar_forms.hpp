#pragma once
// The pair gradients of the polarization energy (polarization_term.cpp) as explicit formulas, written
// once for the CPU and the CUDA kernels (polar_kernels.cu), in field_forms.hpp's style. For a pair
// (i, k) with s = r_i - r_k and the dipoles held fixed, the CPU differentiates
//   P = U(M_i, D_k) + U(A_i, M_k) + su [U(up_i, ud_k) + U(ud_i, up_k)],
// D = sp ud + sd up (A likewise), U the interaction of two moment sets through a radial kernel; P is
// symmetric in i and k, so that atom i alone can gather dP/dr_i and dP/dM_i (the moments'
// coefficients for its frame) over its partners: no pair writes another atom's sums.
// The kernel's derivative tensors come from their closed form in B_1..B_4 (multipole_pair.hpp:
// T_a = -B1 s_a, T_ab = B2 s_a s_b - B1 d_ab, ...), evaluated component by component, so that nothing
// larger than the 40 potential derivatives of one source lives in registers. A quadrupole's own trace
// enters as the generic code's does: through the kernel shifted by one (B_m -> B_{m+1}).
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

// One component T_{a1..an} (n <= 4, indices in idx) of the derivative tensor at s of the kernel B
// (b[m] = B_m; pass b + 1 for the shifted kernel).
QUASAR_HD double polar_tensor(const double* b, const Vec3& s, int n, const int* idx) {
  auto d = [](int x, int y) { return x == y ? 1.0 : 0.0; };
  switch (n) {
    case 0: return b[0];
    case 1: return -b[1] * s[idx[0]];
    case 2: return b[2] * s[idx[0]] * s[idx[1]] - b[1] * d(idx[0], idx[1]);
    case 3: {
      const double x = s[idx[0]], y = s[idx[1]], z = s[idx[2]];
      return -b[3] * x * y * z + b[2] * (x * d(idx[1], idx[2]) + y * d(idx[0], idx[2]) + z * d(idx[0], idx[1]));
    }
    default: {
      const int p = idx[0], q = idx[1], u = idx[2], v = idx[3];
      const double x = s[p], y = s[q], z = s[u], w = s[v];
      return b[4] * x * y * z * w -
             b[3] * (x * y * d(u, v) + x * z * d(q, v) + x * w * d(q, u) + y * z * d(p, v) + y * w * d(p, u) +
                     z * w * d(p, q)) +
             b[2] * (d(p, q) * d(u, v) + d(p, u) * d(q, v) + d(p, v) * d(q, u));
    }
  }
}

// The potential's derivatives of orders lo..order at s of a source with Tinker's 13 moments S
// (source_potential's layout: [0] value, [1..3] first, [4..12] second, [13..39] third derivatives,
// flat index sum a_j 3^(n-1-j)): q T_I - d_c T_Ic + Q_cd T_Icd + tr(Q) T'_I, T' the shifted kernel.
// Zero moment groups are skipped, as the generic code does. order + the source's rank <= 4.
QUASAR_HD void polar_potential(const double* S, const Vec3& s, const PolarRadial& k, int lo, int order,
                               bool shifted, double* v) {
  const double* b = shifted ? k.b + 1 : k.b;
  const bool charge = S[0] != 0, dip = S[1] != 0 || S[2] != 0 || S[3] != 0;
  bool quad = false;
  for (int c = 4; c < 13; ++c) quad = quad || S[c] != 0;
  const double tr = S[4] + S[8] + S[12];
  const int offset[4] = {0, 1, 4, 13};
  for (int n = lo; n <= order; ++n) {
    int size = 1;
    for (int j = 0; j < n; ++j) size *= 3;
    for (int I = 0; I < size; ++I) {
      int idx[5];
      for (int j = n - 1, f = I; j >= 0; --j, f /= 3) idx[j] = f % 3;
      double val = charge ? S[0] * polar_tensor(b, s, n, idx) : 0.0;
      if (dip)
        for (int c = 0; c < 3; ++c) {
          idx[n] = c;
          val -= S[1 + c] * polar_tensor(b, s, n + 1, idx);
        }
      if (quad) {
        for (int c = 0; c < 3; ++c)
          for (int e = 0; e < 3; ++e) {
            idx[n] = c;
            idx[n + 1] = e;
            val += S[4 + 3 * c + e] * polar_tensor(b, s, n + 2, idx);
          }
        val += tr * polar_tensor(b + 1, s, n, idx);
      }
      v[offset[n] + I] = val;
    }
  }
}

// A dipole's 13 moments (dipole_moments).
QUASAR_HD void polar_dipole(const Vec3& u, double* m) {
  for (int c = 0; c < 13; ++c) m[c] = 0;
  m[1] = u.x;
  m[2] = u.y;
  m[3] = u.z;
}

// A dipole u at i in the field of the potential derivatives v (orders 1 and 2 set): adds its
// gradient to g and returns its energy u . grad phi.
QUASAR_HD double polar_dipole_receive(const Vec3& u, const double* v, double* g) {
  for (int e = 0; e < 3; ++e) g[e] += u.x * v[4 + e] + u.y * v[7 + e] + u.z * v[10 + e];
  return u.x * v[1] + u.y * v[2] + u.z * v[3];
}

// One kernel's share of dP/ds, dP/dM_i and P for the pair, the scales sp, sd, su (1 for Ewald's part).
QUASAR_HD double polar_pair_part(const double* Mi, const double* Mk, const Vec3& udi, const Vec3& upi,
                                 const Vec3& udk, const Vec3& upk, const Vec3& s, const PolarRadial& k, double sp,
                                 double sd, double su, bool mutual, double* g, double* dm) {
  double pair = 0, src[13], v[40], sh[4];
  // M_i in the field of D_k: its gradient, and its moments' coefficients (receive's).
  polar_dipole(udk * sp + upk * sd, src);
  polar_potential(src, s, k, 0, 3, false, v);
  polar_potential(src, s, k, 0, 1, true, sh);
  auto mul = [](double moment, double x) { return moment != 0 ? moment * x : 0.0; };
  const double tr = Mi[4] + Mi[8] + Mi[12];
  pair += mul(Mi[0], v[0]) + mul(tr, sh[0]);
  for (int c = 1; c < 13; ++c) pair += mul(Mi[c], v[c]);
  for (int e = 0; e < 3; ++e) {
    double x = mul(Mi[0], v[1 + e]) + mul(tr, sh[1 + e]);
    for (int a = 0; a < 3; ++a) x += mul(Mi[1 + a], v[4 + 3 * a + e]);
    for (int c = 0; c < 9; ++c) x += mul(Mi[4 + c], v[13 + 9 * e + c]);
    g[e] += x;
  }
  for (int c = 0; c < 13; ++c) dm[c] += v[c];
  for (int a = 0; a < 3; ++a) dm[4 + 4 * a] += sh[0];
  // A_i in the field of M_k.
  polar_potential(Mk, s, k, 1, 2, false, v);
  pair += polar_dipole_receive(udi * sp + upi * sd, v, g);
  // The induced dipoles with each other.
  if (mutual && su != 0) {
    polar_dipole(udk * su, src);
    polar_potential(src, s, k, 1, 2, false, v);
    pair += polar_dipole_receive(upi, v, g);
    polar_dipole(upk * su, src);
    polar_potential(src, s, k, 1, 2, false, v);
    pair += polar_dipole_receive(udi, v, g);
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
