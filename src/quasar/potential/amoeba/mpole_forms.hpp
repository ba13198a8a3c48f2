#pragma once
// The permanent multipoles' pair energy as explicit formulas, written once for the CPU tests and the
// CUDA kernels (mpole_kernels.cu): two sites with Tinker's moments (charge q, dipole d, quadrupole Q
// already divided by 3, multipole_pair.hpp), s = r_i - r_k, through a radial kernel's B_0..B_5
// (B_{n+1} = -(1/r) dB_n/dr). Contracting the Cartesian tensors and leaving out every contraction of
// a quadrupole's two indices with each other (as Tinker's formulas do, so that a quadrupole's trace
// enters as there) gives U = sum_n B_n P_n with
//   P0 = qi qk
//   P1 = qi (dk.s) - qk (di.s) + di.dk
//   P2 = qi sQks + qk sQis - (di.s)(dk.s) + 2 (di.Qk s - dk.Qi s + Qi:Qk)
//   P3 = (dk.s) sQis - (di.s) sQks - 4 (Qi s).(Qk s)
//   P4 = sQis sQks,      sQs = s.Q.s,
// its gradient dU/ds = sum_n [B_n dP_n/ds - B_{n+1} s P_n], and the receiver's moment coefficients
// dU/dMi (symmetric in the quadrupole's indices, as the generic tensors give them); the source's are
// those of the same pair seen from k (receiver k, -s). U is the same from both ends. Quadrupoles are
// taken symmetric. amoeba_mpole_forms_test checks all of it against multipole_pair.hpp. Written over
// the scalar T (mixed_arith.hpp): double, or float in the GPU's mixed32 mode.
#include <cmath>
#include <type_traits>

#include "quasar/core/hd.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/mixed_arith.hpp"

namespace quasar::amoeba {

template <class T>
struct MpoleRadialOf {
  T b[6] = {};
};
using MpoleRadial = MpoleRadialOf<double>;

// Coulomb's 1/r: B_n = (2n-1)!!/r^(2n+1), by coulomb_radial's recursion (the same bits).
template <class T>
QUASAR_HD MpoleRadialOf<T> coulomb_mpole_radial(T r) {
  MpoleRadialOf<T> k;
  const T r2 = r * r;
  T b = 1 / r;
  for (int n = 0; n < 6; ++n) {
    k.b[n] = b;
    b *= static_cast<T>(2 * n + 1) / r2;
  }
  return k;
}

// Ewald's real-space kernel erfc(alpha r)/r less (1 - scale) of Coulomb's, by ewald_real_radial's
// recursion.
template <class T>
QUASAR_HD MpoleRadialOf<T> ewald_mpole_radial(T r, T alpha, T scale) {
  const MpoleRadialOf<T> c = coulomb_mpole_radial(r);
  MpoleRadialOf<T> k;
  const T r2 = r * r, a2 = alpha * alpha, e = exp_of(-a2 * r2) / (alpha * sqrt_of(static_cast<T>(M_PI)));
  T b = erfc_of(alpha * r) / r, power = 1;
  for (int n = 0; n < 6; ++n) {
    if (n > 0) {
      power *= 2 * a2;
      b = (static_cast<T>(2 * n - 1) * b + power * e) / r2;
    }
    k.b[n] = b - (1 - scale) * c.b[n];
  }
  return k;
}

// The kernel of the multipole term: Ewald's real-space one (alpha > 0, every pair, its scaled part
// corrected) or Coulomb's; the pair's prefactor: electric, times the m scale without Ewald sums.
template <class T>
QUASAR_HD MpoleRadialOf<T> mpole_radial(T r, T alpha, T scale) {
  return alpha > 0 ? ewald_mpole_radial(r, alpha, scale) : coulomb_mpole_radial(r);
}
// The kernel in T at a separation formed in double. In float, a pair whose Ewald kernel is corrected
// (m < 1: bonded neighbours, 1-3 Å apart) takes its B_n in double, rounded to float: erfc(alpha r)/r
// less (1 - m)/r cancels to -erf(alpha r)/r, which is about (alpha r)^(2n+1) of either at order n
// (float's rounding of the two is then 1e-7 / (alpha r)^(2n+1) of the difference). These pairs are a
// few per site; amoeba_mixed_elec_forms_test measured 4.3e-7 of Coulomb's B_n in plain float, 4.4e-8 so.
template <class T>
QUASAR_HD MpoleRadialOf<T> mpole_radial_at(double r, double alpha, double scale) {
  if constexpr (std::is_same_v<T, double>) {
    return mpole_radial(r, alpha, scale);
  } else {
    if (alpha > 0 && scale != 1) {
      const MpoleRadialOf<double> d = mpole_radial(r, alpha, scale);
      MpoleRadialOf<T> k;
      for (int n = 0; n < 6; ++n) k.b[n] = static_cast<T>(d.b[n]);
      return k;
    }
    return mpole_radial(static_cast<T>(r), static_cast<T>(alpha), static_cast<T>(scale));
  }
}
QUASAR_HD double mpole_prefactor(double electric, double alpha, double scale) {
  return alpha > 0 ? electric : electric * scale;
}

// U of receiver Mi and source Mk (13 each) at s = r_i - r_k; grad (dU/ds, 3) and dmi (dU/dMi, 13)
// where not null.
template <class T>
QUASAR_HD T mpole_pair(const T* Mi, const T* Mk, const V3<T>& s, const MpoleRadialOf<T>& k, std::type_identity_t<T>* grad,
                       std::type_identity_t<T>* dmi) {
  using V = V3<T>;
  const T* b = k.b;
  const T qi = Mi[0], qk = Mk[0];
  const V di{Mi[1], Mi[2], Mi[3]}, dk{Mk[1], Mk[2], Mk[3]};
  const T *Qi = Mi + 4, *Qk = Mk + 4;
  V Qis, Qks;
  for (int a = 0; a < 3; ++a) {
    Qis[a] = Qi[3 * a] * s.x + Qi[3 * a + 1] * s.y + Qi[3 * a + 2] * s.z;
    Qks[a] = Qk[3 * a] * s.x + Qk[3 * a + 1] * s.y + Qk[3 * a + 2] * s.z;
  }
  const T dis = dot(di, s), dks = dot(dk, s), sQis = dot(s, Qis), sQks = dot(s, Qks);
  const T didk = dot(di, dk), diQks = dot(di, Qks), dkQis = dot(dk, Qis), QisQks = dot(Qis, Qks);
  T QiQk = 0;
  for (int c = 0; c < 9; ++c) QiQk += Qi[c] * Qk[c];
  const T P0 = qi * qk;
  const T P1 = qi * dks - qk * dis + didk;
  const T P2 = qi * sQks + qk * sQis - dis * dks + 2 * (diQks - dkQis + QiQk);
  const T P3 = dks * sQis - dis * sQks - 4 * QisQks;
  const T P4 = sQis * sQks;
  const T u = b[0] * P0 + b[1] * P1 + b[2] * P2 + b[3] * P3 + b[4] * P4;
  if (grad) {
    V Qi_dk, Qk_di, Qi_Qks, Qk_Qis;  // Q v products
    for (int a = 0; a < 3; ++a) {
      Qi_dk[a] = Qi[3 * a] * dk.x + Qi[3 * a + 1] * dk.y + Qi[3 * a + 2] * dk.z;
      Qk_di[a] = Qk[3 * a] * di.x + Qk[3 * a + 1] * di.y + Qk[3 * a + 2] * di.z;
      Qi_Qks[a] = Qi[3 * a] * Qks.x + Qi[3 * a + 1] * Qks.y + Qi[3 * a + 2] * Qks.z;
      Qk_Qis[a] = Qk[3 * a] * Qis.x + Qk[3 * a + 1] * Qis.y + Qk[3 * a + 2] * Qis.z;
    }
    const V dP1 = dk * qi - di * qk;
    const V dP2 = (Qks * qi + Qis * qk + Qk_di - Qi_dk) * 2 - di * dks - dk * dis;
    const V dP3 = dk * sQis + Qis * (2 * dks) - di * sQks - Qks * (2 * dis) - (Qi_Qks + Qk_Qis) * 4;
    const V dP4 = (Qis * sQks + Qks * sQis) * 2;
    const T radial = b[1] * P0 + b[2] * P1 + b[3] * P2 + b[4] * P3 + b[5] * P4;
    const V g = dP1 * b[1] + dP2 * b[2] + dP3 * b[3] + dP4 * b[4] - s * radial;
    grad[0] = g.x;
    grad[1] = g.y;
    grad[2] = g.z;
  }
  if (dmi) {
    dmi[0] = b[0] * qk + b[1] * dks + b[2] * sQks;
    const V dd = (dk - s * qk) * b[1] + (Qks * 2 - s * dks) * b[2] - s * (b[3] * sQks);
    dmi[1] = dd.x;
    dmi[2] = dd.y;
    dmi[3] = dd.z;
    const T ss = b[2] * qk + b[3] * dks + b[4] * sQks;  // the coefficient of s_a s_b
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c)
        dmi[4 + 3 * a + c] = ss * s[a] * s[c] + 2 * b[2] * Qk[3 * a + c] -
                             b[2] * (dk[a] * s[c] + dk[c] * s[a]) - 2 * b[3] * (Qks[a] * s[c] + Qks[c] * s[a]);
  }
  return u;
}

}  // namespace quasar::amoeba
