// The Jordan-Gilbert form, written once over its scalar type (double, or a Jet for exact
// derivatives: surfaces/jet.hpp). Equations as in Jordan and Gilbert 1995 and Corchado, Bravo and
// Espinosa-Garcia 2009; indices below run over the four methane hydrogens.
#include "quasar/potential/shepard/surfaces/ch5_jordan_gilbert.hpp"

#include <cmath>
#include <numbers>

#include "quasar/core/units.hpp"
#include "quasar/core/vec3_of.hpp"
#include "quasar/potential/shepard/surfaces/jet.hpp"

namespace quasar::surfaces {

namespace {

// mdyn Å (per rad^2) in kcal/mol, with the Avogadro constant (6.022045e23) and thermochemical
// calorie (4.184 J) that the surface's authors used to convert their force constants.
constexpr double kMdynAngstromInKcalMol = 6.022045 / 0.04184;
// tanh(19) is 1 in double precision: the surfaces switch a function off beyond this argument.
constexpr double kSwitchArgumentMax = 19.0;
// C-H length (Å) beyond which the reference-angle switches are exactly 0 (their argument > 19 there).
constexpr double kAngleSwitchEnd = 3.8;

using std::acos, std::exp, std::sqrt, std::tanh;

template <class T>
T pow_int(const T& x, int n) {
  T r = x;
  for (int k = 1; k < n; ++k) r = r * x;
  return r;
}

// 1 - tanh(arg), or 0 once arg reaches kSwitchArgumentMax (the surface's own cut).
template <class T>
T switch_off(const T& arg) {
  if (value_of(arg) >= kSwitchArgumentMax) return T(0.0);
  return 1.0 - tanh(arg);
}

// LEPS pair: Coulomb Q and exchange J from singlet E1 = D1 (e^-2ax - 2 e^-ax) and triplet
// E3 = D3 (e^-2ax + 2 e^-ax), x = r - r0.
template <class T>
void leps_pair(const T& r, const T& a, double r0, double d1, double d3, T& q, T& j) {
  const T e = exp(-1.0 * (a * (r - r0)));
  const T e2 = e * e;
  const T singlet = d1 * (e2 - 2.0 * e), triplet = d3 * (e2 + 2.0 * e);
  q = 0.5 * (singlet + triplet);
  j = 0.5 * (singlet - triplet);
}

template <class T>
T energy_kcal(const Ch5JgParameters& p, const std::array<T, kCh5Coordinates>& x) {
  constexpr double pi = std::numbers::pi;
  const double tau = std::acos(-1.0 / 3.0);  // tetrahedral angle
  auto atom = [&](int a) { return Vec3Of<T>{x[3 * a], x[3 * a + 1], x[3 * a + 2]}; };
  const Vec3Of<T> c = atom(0), hb = atom(5);
  std::array<Vec3Of<T>, 4> h, ch;  // methane hydrogens; C -> H_i
  std::array<T, 4> rch, rbh;    // |C - H_i|, |H' - H_i|
  for (int i = 0; i < 4; ++i) {
    h[i] = atom(1 + i);
    ch[i] = h[i] - c;
    rch[i] = sqrt(dot(ch[i], ch[i]));
    const Vec3Of<T> bh = h[i] - hb;
    rbh[i] = sqrt(dot(bh, bh));
  }
  const Vec3Of<T> cb = hb - c;
  const T rcb = sqrt(dot(cb, cb));

  // Switching functions of each C-H length.
  std::array<T, 4> s1, s2, s3, sphi, stheta;
  for (int i = 0; i < 4; ++i) {
    const T d = rch[i] - p.r0ch;
    s1[i] = switch_off(p.a1s * d * pow_int(rch[i] - p.b1s, 8));
    s2[i] = switch_off(p.a2s * d * pow_int(rch[i] - p.b2s, 6));
    s3[i] = switch_off(p.a3s * d * pow_int(rch[i] - p.b3s, 2));
    const bool near = value_of(rch[i]) < kAngleSwitchEnd;
    sphi[i] = near ? 1.0 - tanh(p.aphi * d * exp(p.bphi * pow_int(rch[i] - p.cphi, 3))) : T(0.0);
    stheta[i] = near ? 1.0 - tanh(p.atheta * d * exp(p.btheta * pow_int(rch[i] - p.ctheta, 3))) : T(0.0);
  }
  // Reference angle H_i-C-H_j: tetrahedral in methane, 90 degrees towards a leaving H_i or H_j,
  // 120 degrees between the remaining two when one of the others leaves.
  auto theta0 = [&](int i, int j) {
    int k = -1, l = -1;
    for (int m = 0; m < 4; ++m)
      if (m != i && m != j) (k < 0 ? k : l) = m;
    return tau + (tau - pi / 2) * (sphi[i] * sphi[j] - 1.0) + (tau - 2 * pi / 3) * (stheta[k] * stheta[l] - 1.0);
  };

  // Stretches: each methane C-H bond in a LEPS three-body term with C-H' and H_i-H'; the C-H range
  // parameter follows the mean C-H length.
  const T rav = 0.25 * (rch[0] + rch[1] + rch[2] + rch[3]);
  const T arga = p.c1ch * (rav - p.r0ch);
  const T ach = value_of(arga) < kSwitchArgumentMax ? p.a1ch + 0.5 * p.b1ch * (tanh(arga) + 1.0) : T(p.a1ch + p.b1ch);
  T qcb, jcb;
  leps_pair(rcb, T(p.acb), p.r0cb, p.d1cb, p.d3cb, qcb, jcb);
  T v = 0.0;
  for (int i = 0; i < 4; ++i) {
    T qch, jch, qbh, jbh;
    leps_pair(rch[i], ach, p.r0ch, p.d1ch, p.d3ch, qch, jch);
    leps_pair(rbh[i], T(p.ahh), p.r0hh, p.d1hh, p.d3hh, qbh, jbh);
    const T a = jch - jcb, b = jcb - jbh, cc = jbh - jch;
    v += qch + qcb + qbh - sqrt(0.5 * (a * a + b * b + cc * cc));
  }

  // Out-of-plane bends: for each H_i, the angles between the normal of the plane of the other
  // three hydrogens and their C-H bonds, against their reference angles; the force constants
  // switch on as H_i leaves while the others stay.
  const double fch3 = p.fch3 * kMdynAngstromInKcalMol, hch3 = p.hch3 * kMdynAngstromInKcalMol;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4, k = (i + 2) % 4, l = (i + 3) % 4;
    T sw = 1.0 - s3[i];
    for (int m = 0; m < 4; ++m)
      if (m != i) sw = sw * s3[m];
    const Vec3Of<T> n = cross(h[k] - h[j], h[l] - h[j]);
    const T norm = sqrt(dot(n, n));
    const std::array<int, 3> others{j, k, l};
    std::array<T, 3> cosines;
    int positive = 0;
    for (int m = 0; m < 3; ++m) {
      cosines[m] = dot(n, ch[others[m]]) / (norm * rch[others[m]]);
      if (value_of(cosines[m]) > 0) ++positive;
    }
    // The authors orient the normal by swapping H_k and H_l once per positive cosine: an odd count
    // turns it over.
    const double sign = positive % 2 == 1 ? -1.0 : 1.0;
    T sum2 = 0.0, sum4 = 0.0;
    for (int m = 0; m < 3; ++m) {
      const T delta = acos(sign * cosines[m]) - theta0(i, others[m]);
      const T d2 = delta * delta;
      sum2 += d2;
      sum4 += d2 * d2;
    }
    v += sw * (fch3 * sum2 + hch3 * sum4);
  }

  // In-plane bends H_i-C-H_j: force constants switch from methane to methyl and fade as H' nears.
  const double f0 = (p.fkinf + p.ak) * kMdynAngstromInKcalMol, f2 = p.fkinf * kMdynAngstromInKcalMol;
  std::array<T, 4> f1;
  for (int i = 0; i < 4; ++i) {
    const T d = rch[i] - p.r0ch, e = rbh[i] - p.r0hh;
    const T attenuation = p.aa2 + p.aa3 * exp(-1.0 * (p.aa4 * e * e));
    f1[i] = (1.0 - exp(-1.0 * (p.aa1 * rbh[i] * rbh[i]))) * exp(-1.0 * (attenuation * d * d));
  }
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 4; ++j) {
      int k = -1, l = -1;
      for (int m = 0; m < 4; ++m)
        if (m != i && m != j) (k < 0 ? k : l) = m;
      const T fk0 = f0 + f0 * (s1[i] * s1[j] - 1.0) + (f0 - f2) * (s2[k] * s2[l] - 1.0);
      const T theta = acos(dot(ch[i], ch[j]) / (rch[i] * rch[j]));
      const T dtheta = theta - theta0(i, j);
      v += 0.5 * fk0 * f1[i] * f1[j] * dtheta * dtheta;
    }
  return v;
}

}  // namespace

Ch5JgParameters ch5_cbg2009_parameters() {
  Ch5JgParameters p{};
  p.r0ch = 1.08898, p.d1ch = 111.266, p.d3ch = 48.96226, p.a1ch = 1.78374, p.b1ch = 0.14201, p.c1ch = 2.21773;
  p.r0hh = 0.74239, p.d1hh = 108.382, p.d3hh = 38.42657, p.ahh = 1.9589;
  p.r0cb = 1.08898, p.d1cb = 56.505, p.d3cb = 19.612, p.acb = 1.41732;
  p.a3s = 0.14753, p.b3s = -2.99263;
  p.aphi = 0.5307, p.bphi = 0.40122, p.cphi = 1.92351;
  p.atheta = 0.91198, p.btheta = 0.35375, p.ctheta = 1.89705;
  p.fch3 = 0.06937, p.hch3 = 0.13874;
  p.fkinf = 0.42914, p.ak = 0.1353;
  p.aa1 = 1.26596, p.aa2 = 0.00071, p.aa3 = 0.98592, p.aa4 = 2.78506;
  p.a1s = 1.5132681e-7, p.b1s = -4.3792246, p.a2s = 1.9202402e-7, p.b2s = -12.323018;
  return p;
}

double ch5_jg_energy_kcal(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x) {
  return energy_kcal(p, x);
}

double ch5_jg_energy(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x) {
  return energy_kcal(p, x) * units::kcal_mol;
}

double ch5_jg_energy_gradient(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x,
                              std::array<double, kCh5Coordinates>& gradient) {
  using J = Jet<kCh5Coordinates, 1>;
  std::array<J, kCh5Coordinates> xj;
  for (int k = 0; k < kCh5Coordinates; ++k) xj[k] = J::variable(x[k], k);
  const J e = energy_kcal(p, xj);
  for (int k = 0; k < kCh5Coordinates; ++k) gradient[k] = e.g[k] * units::kcal_mol;
  return e.v * units::kcal_mol;
}

double ch5_jg_hessian(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x,
                      std::array<double, kCh5Coordinates>& gradient,
                      std::array<double, kCh5Coordinates * kCh5Coordinates>& hessian) {
  using J = Jet<kCh5Coordinates, 2>;
  std::array<J, kCh5Coordinates> xj;
  for (int k = 0; k < kCh5Coordinates; ++k) xj[k] = J::variable(x[k], k);
  const J e = energy_kcal(p, xj);
  for (int k = 0; k < kCh5Coordinates; ++k) gradient[k] = e.g[k] * units::kcal_mol;
  for (int k = 0; k < kCh5Coordinates * kCh5Coordinates; ++k) hessian[k] = e.h[k] * units::kcal_mol;
  return e.v * units::kcal_mol;
}

}  // namespace quasar::surfaces
