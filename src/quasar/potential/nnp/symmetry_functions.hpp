#pragma once
// The atom-centred symmetry functions of Behler-Parrinello potentials as n2p2 defines them, shared by
// the CPU reference (descriptor.hpp) and the kernels: templates on the floating type T (double or
// float; float code stays in float), on displacements in Å.
//
// A function of a centre i is a sum over neighbours j (radial types) or over unordered pairs {j, k} of
// neighbours (angular types) of a term built from the envelope E(r): for the exponential types
// (2, 3, 9, 12, 13) the cutoff function f_c of the model's cutoff_type, for the compact types
// (20-25) the radial window C(r; rlow, rc). Functions that share an envelope (`same_envelope`) share
// its evaluation: radial_term takes the envelope's value, and angular_term takes the function's radial
// factors, so that a caller evaluates each envelope once per neighbour and each radial factor once per
// neighbour and function; `radial_term(p, r)` and `angular_term(p, g)` do everything at once.
//
// Angular terms return their gradient as three coefficients: with d_j, d_k the displacements of j and
// k from the centre, dT/d(d_j) = jj d_j + jk d_k and dT/d(d_k) = jk d_j + kk d_k (the centre's is
// minus their sum). Coefficients of the functions of one pair add, weighted by dE/dG, before the
// vectors are touched.
#include "quasar/core/hd.hpp"

#ifndef __CUDACC_RTC__  // NVRTC has the math functions built in and no <cmath>
#include <cmath>
#endif

namespace quasar::nnp {

// Math functions that keep float code in float on the host and on the device.
namespace sf_math {
#define QUASAR_SF_MATH(name)                                     \
  QUASAR_HD float name(float x) { return ::name##f(x); }         \
  QUASAR_HD double name(double x) { return ::name(x); }
QUASAR_SF_MATH(exp)
QUASAR_SF_MATH(cos)
QUASAR_SF_MATH(sin)
QUASAR_SF_MATH(tanh)
QUASAR_SF_MATH(acos)
QUASAR_SF_MATH(sqrt)
QUASAR_SF_MATH(fabs)
#undef QUASAR_SF_MATH
QUASAR_HD float pow(float x, float y) { return ::powf(x, y); }
QUASAR_HD double pow(double x, double y) { return ::pow(x, y); }
QUASAR_HD float copysign(float x, float y) { return ::copysignf(x, y); }
QUASAR_HD double copysign(double x, double y) { return ::copysign(x, y); }
}  // namespace sf_math

inline constexpr double kSfPi = 3.14159265358979323846;
inline constexpr double kSfE = 2.71828182845904523536;
// n2p2's cutoff_type 3: tanh^3(1 - r/rc) times coth^3(1), so that f_c(0) = 1.
inline constexpr double kSfTanhNorm = 2.2637537952253508;  // (coth 1)^3

// n2p2's numbering of the cutoff functions (cutoff_type) and of the compact cores (the subtypes
// p1..p4 and e). The same numbers as CutoffKind and WindowCore of model.hpp.
enum SfCutoff : int { kCutHard = 0, kCutCos = 1, kCutTanhU = 2, kCutTanh = 3, kCutExp = 4, kCutPoly1 = 5,
                      kCutPoly2 = 6, kCutPoly3 = 7, kCutPoly4 = 8 };
enum SfCore : int { kCoreP1 = 1, kCoreP2 = 2, kCoreP3 = 3, kCoreP4 = 4, kCoreExp = 5 };

// What the types are.
QUASAR_HD constexpr bool sf_type_known(int t) {
  return t == 2 || t == 3 || t == 9 || t == 12 || t == 13 || (t >= 20 && t <= 25);
}
QUASAR_HD constexpr bool sf_angular(int t) { return t == 3 || t == 9 || t == 13 || t == 21 || t == 22 || t == 24 || t == 25; }
QUASAR_HD constexpr bool sf_compact(int t) { return t >= 20; }
// Weighted by the atomic numbers: Z_j (radial) or Z_j Z_k (angular), over neighbours of every element.
QUASAR_HD constexpr bool sf_weighted(int t) { return t == 12 || t == 13 || t == 23 || t == 24 || t == 25; }
// Angular types with a factor of r_jk (the "narrow" ones): 3, 13, 21, 24.
QUASAR_HD constexpr bool sf_uses_rjk(int t) { return t == 3 || t == 13 || t == 21 || t == 24; }

// One symmetry function, flat, with lengths in Å and angles in radians (make_sf_params in
// descriptor.hpp fills it from a model's SymmetryFunction).
template <class T>
struct SfParams {
  int type = 0;
  int e1 = -1, e2 = -1;  // neighbour elements (e1 <= e2 for pairs); -1: every element (weighted types)
  int shape = 0;         // exponential types: SfCutoff; compact types: SfCore
  int alt = 0;           // compact types: the suffix "a" of p1..p4 (radial window only)
  int zeta_int = -1;     // angular exponential types: zeta when it is an integer (>= 1), else -1
  T rc = 0;              // support of the envelope: r < rc, and rlow < r for compact types
  T rlow = 0;
  T inner = 0;           // exponential: the inner cutoff alpha rc (f_c = 1 below it)
  T inv_width = 0;       // exponential: 1 / (rc - inner); compact: 1 / half-width of [rlow, rc]
  T centre = 0;          // compact: (rlow + rc) / 2
  T inv_rc = 0;          // exponential: 1 / rc (tanh cutoffs)
  T eta = 0, rs = 0;     // exponential: Å^-2 and Å
  T lambda = 0, zeta = 1, prefactor = 1;  // angular exponential; prefactor 2^(1 - zeta)
  T theta_left = 0, theta_right = 0;      // compact angular: the angle window in radians
  T theta_centre = 0, theta_inv_width = 0;

  template <class U>
  QUASAR_HD SfParams<U> cast() const {
    SfParams<U> o;
    o.type = type, o.e1 = e1, o.e2 = e2, o.shape = shape, o.alt = alt, o.zeta_int = zeta_int;
    o.rc = U(rc), o.rlow = U(rlow), o.inner = U(inner), o.inv_width = U(inv_width), o.centre = U(centre);
    o.inv_rc = U(inv_rc), o.eta = U(eta), o.rs = U(rs), o.lambda = U(lambda), o.zeta = U(zeta);
    o.prefactor = U(prefactor), o.theta_left = U(theta_left), o.theta_right = U(theta_right);
    o.theta_centre = U(theta_centre), o.theta_inv_width = U(theta_inv_width);
    return o;
  }
};

// Whether two functions have the same envelope (then one evaluation serves both).
template <class T>
QUASAR_HD bool same_envelope(const SfParams<T>& a, const SfParams<T>& b) {
  if (sf_compact(a.type) != sf_compact(b.type) || a.rc != b.rc) return false;
  if (!sf_compact(a.type)) return a.shape == b.shape && a.inner == b.inner;
  return a.rlow == b.rlow && a.shape == b.shape && a.alt == b.alt;
}

// Whether two functions have the same radial factor (radial_term).
template <class T>
QUASAR_HD bool same_radial_factor(const SfParams<T>& a, const SfParams<T>& b) {
  return same_envelope(a, b) && a.eta == b.eta && a.rs == b.rs;
}

// The element filter: a radial function's neighbour, an angular function's unordered pair.
template <class T>
QUASAR_HD bool sf_accepts(const SfParams<T>& p, int ej) {
  return p.e1 < 0 || ej == p.e1;
}
template <class T>
QUASAR_HD bool sf_accepts(const SfParams<T>& p, int ej, int ek) {
  return p.e1 < 0 || (ej == p.e1 && ek == p.e2) || (ej == p.e2 && ek == p.e1);
}

// A value and its derivative.
template <class T>
struct Fdf {
  T f = 0, df = 0;
};

// The compact cores on x in [0, 1] (1 at 0, 0 at 1, flat at both ends), with `alt` the substitution
// x -> (2 - x) x of n2p2's suffix "a"; zero from x = 1 on.
//
// The polynomials are n2p2's, written so that they keep their relative precision near x = 1, where
// n2p2's form is 1 minus a number close to 1 (for p4 an absolute error of ~500 eps, which in float
// would be 3e-5): each is p(x) = 1 - S(x) with S(x) = x^k Q(x), and p(1 - x) = S(x), so p(x) = S(1 - x)
// above 1/2; p'(x) = -c x^(k-1) (1 - x)^(k-1). The e core takes 1 - x^2 as (1 - x)(1 + x).
template <class T>
QUASAR_HD Fdf<T> core_fdf(int core, T x, bool alt = false) {
  T u = T(1) - x;  // the distance to the end, kept exact where it matters
  T chain = T(1);
  if (alt) {
    chain = T(2) * u;
    x = (T(2) - x) * x;
    u = u * u;
  }
  Fdf<T> o;
  if (u <= T(0)) return o;
  if (core == kCoreExp) {
    const T t = T(1) / (u * (T(1) + x));  // 1 / (1 - x^2)
    o.f = T(kSfE) * sf_math::exp(-t);
    o.df = T(-2) * x * t * t * o.f * chain;
    return o;
  }
  const bool upper = x > T(0.5);
  const T y = upper ? u : x;  // S is evaluated at the smaller of x and 1 - x
  const T y2 = y * y, xu = x * u;
  T S, slope;
  switch (core) {
    case kCoreP1:
      S = y2 * (T(3) - T(2) * y);
      slope = T(-6) * xu;
      break;
    case kCoreP2:
      S = y2 * y * (T(10) + y * (T(6) * y - T(15)));
      slope = T(-30) * xu * xu;
      break;
    case kCoreP3:
      S = y2 * y2 * (T(35) + y * (T(-84) + y * (T(70) - T(20) * y)));
      slope = T(-140) * xu * xu * xu;
      break;
    default:  // kCoreP4
      S = y2 * y2 * y * (T(126) + y * (T(-420) + y * (T(540) + y * (T(70) * y - T(315)))));
      slope = T(-630) * (xu * xu) * (xu * xu);
      break;
  }
  o.f = upper ? S : T(1) - S;
  o.df = slope * chain;
  return o;
}

// The cutoff function f_c(r) of an exponential type and df_c/dr, for r < rc (the caller checks).
// The inner cutoff applies to cos, exp and poly1-4; hard and the tanh cutoffs ignore it, as n2p2.
template <class T>
QUASAR_HD Fdf<T> cutoff_fdf(const SfParams<T>& p, T r) {
  Fdf<T> o;
  switch (p.shape) {
    case kCutHard: o.f = T(1); return o;
    case kCutTanhU:
    case kCutTanh: {
      const T t = sf_math::tanh(T(1) - r * p.inv_rc), t2 = t * t;
      const T norm = p.shape == kCutTanh ? T(kSfTanhNorm) : T(1);
      o.f = norm * t * t2;
      o.df = T(3) * norm * t2 * (t2 - T(1)) * p.inv_rc;
      return o;
    }
    default: break;
  }
  if (r < p.inner) {
    o.f = T(1);
    return o;
  }
  const T x = (r - p.inner) * p.inv_width;
  if (p.shape == kCutCos) {
    // (cos(pi x) + 1) / 2 as cos^2(pi x / 2), from the nearer end so that neither f nor f' cancels:
    // cos(pi x / 2) = sin(pi (1 - x) / 2).
    const bool upper = x > T(0.5);
    const T y = T(0.5 * kSfPi) * (upper ? T(1) - x : x);
    const T sy = sf_math::sin(y), cy = sf_math::cos(y);
    const T c = upper ? sy : cy, sn = upper ? cy : sy;
    o.f = c * c;
    o.df = T(-kSfPi) * p.inv_width * sn * c;
    return o;
  }
  const int core = p.shape == kCutExp ? int(kCoreExp) : p.shape - kCutPoly1 + kCoreP1;
  o = core_fdf(core, x);
  o.df *= p.inv_width;
  return o;
}

// Whether r lies in the support of p's envelope: r < rc, and rlow < r for compact types (n2p2's
// strict inequalities).
template <class T>
QUASAR_HD bool in_support(const SfParams<T>& p, T r) {
  return r < p.rc && (!sf_compact(p.type) || r > p.rlow);
}

// The envelope E(r) and dE/dr: the cutoff function of an exponential type, the radial window
// core(|r - centre| / half-width) of a compact type; zero outside the support.
template <class T>
QUASAR_HD Fdf<T> envelope(const SfParams<T>& p, T r) {
  if (!in_support(p, r)) return Fdf<T>{};
  if (!sf_compact(p.type)) return cutoff_fdf(p, r);
  const T a = (r - p.centre) * p.inv_width;
  Fdf<T> o = core_fdf(p.shape, sf_math::fabs(a), p.alt != 0);
  o.df *= sf_math::copysign(p.inv_width, a);  // core' carries its own sign
  return o;
}

// The radial factor R(r) of a function and dR/dr, from the envelope at r: exp(-eta (r - rs)^2) E(r)
// for the exponential types, E(r) for the compact ones; zero outside the support. For the radial
// types it is the term of one neighbour (unweighted; types 12 and 23 multiply it by Z_j).
template <class T>
QUASAR_HD Fdf<T> radial_term(const SfParams<T>& p, T r, Fdf<T> env) {
  if (!in_support(p, r)) return Fdf<T>{};
  if (sf_compact(p.type)) return env;
  const T s = r - p.rs, g = sf_math::exp(-p.eta * s * s);
  return Fdf<T>{g * env.f, g * (env.df - T(2) * p.eta * s * env.f)};
}
template <class T>
QUASAR_HD Fdf<T> radial_term(const SfParams<T>& p, T r) {
  return radial_term(p, r, envelope(p, r));
}

// The geometry of a pair of neighbours j, k of a centre: their distances from it, their distance
// from each other and the cosine of the angle at the centre.
template <class T>
struct PairGeometry {
  T rij = 0, rik = 0, rjk = 0, cos = 0;
};
// The pair's distances with the cosine still to be formed: g.cos holds d_j . d_k.
template <class T>
QUASAR_HD PairGeometry<T> pair_distances(const T dj[3], T rij, const T dk[3], T rik) {
  PairGeometry<T> g;
  T dot = 0, rjk2 = 0;
  for (int a = 0; a < 3; ++a) {
    dot += dj[a] * dk[a];
    rjk2 += (dk[a] - dj[a]) * (dk[a] - dj[a]);
  }
  g.rij = rij;
  g.rik = rik;
  g.rjk = sf_math::sqrt(rjk2);
  g.cos = dot;
  return g;
}
template <class T>
QUASAR_HD PairGeometry<T> pair_geometry(const T dj[3], T rij, const T dk[3], T rik) {
  PairGeometry<T> g = pair_distances(dj, rij, dk, rik);
  g.cos = g.cos / (rij * rik);
  return g;
}
// The same with the inverse distances known (a kernel that keeps 1/r per neighbour): a product in
// place of the division, within an ulp or two of the above.
template <class T>
QUASAR_HD PairGeometry<T> pair_geometry(const T dj[3], T rij, T inv_ij, const T dk[3], T rik, T inv_ik) {
  PairGeometry<T> g = pair_distances(dj, rij, dk, rik);
  g.cos = g.cos * inv_ij * inv_ik;
  return g;
}

// The angle at the centre and dtheta/dcos, for the compact angular types. n2p2 drops pairs whose
// computed cosine is <= -1 or >= 1 (theta = 0 or 180 degrees), even where the window is not zero
// there: `valid` is false for them.
template <class T>
struct PairAngle {
  T theta = 0, dtheta_dcos = 0;
  bool valid = false;
};
template <class T>
QUASAR_HD PairAngle<T> pair_angle(const PairGeometry<T>& g) {
  PairAngle<T> a;
  if (g.cos <= T(-1) || g.cos >= T(1)) return a;
  a.theta = sf_math::acos(g.cos);
  a.dtheta_dcos = T(-1) / sf_math::sqrt((T(1) - g.cos) * (T(1) + g.cos));
  a.valid = true;
  return a;
}

// The term of one pair and its gradient (see the top of the file).
template <class T>
struct AngularTerm {
  T value = 0, jj = 0, jk = 0, kk = 0;
};

// A term of a pair and its partial derivatives in rij, rik, rjk and cos. Partials of several
// functions of one pair add (weighted by dE/dG) before angular_gradient turns them into coefficients.
template <class T>
struct AngularPartials {
  T value = 0, rij = 0, rik = 0, rjk = 0, cos = 0;
  QUASAR_HD void add(T w, const AngularPartials& o) {
    value += w * o.value;
    rij += w * o.rij;
    rik += w * o.rik;
    rjk += w * o.rjk;
    cos += w * o.cos;
  }
};

// The gradient coefficients of a term (or a weighted sum of terms) from its partial derivatives.
// inv_ij, inv_ik: 1 / rij and 1 / rik (the form below computes them).
template <class T>
QUASAR_HD AngularTerm<T> angular_gradient(const PairGeometry<T>& g, const AngularPartials<T>& d, T inv_ij, T inv_ik) {
  const T jk_part = d.rjk != T(0) ? d.rjk / g.rjk : T(0);
  AngularTerm<T> o;
  o.value = d.value;
  o.jj = (d.rij - d.cos * g.cos * inv_ij) * inv_ij + jk_part;
  o.kk = (d.rik - d.cos * g.cos * inv_ik) * inv_ik + jk_part;
  o.jk = d.cos * inv_ij * inv_ik - jk_part;
  return o;
}
template <class T>
QUASAR_HD AngularTerm<T> angular_gradient(const PairGeometry<T>& g, const AngularPartials<T>& d) {
  return angular_gradient(g, d, T(1) / g.rij, T(1) / g.rik);
}

namespace sf_detail {
// x^n for an integer n >= 0, by squaring.
template <class T>
QUASAR_HD T pow_int(T x, int n) {
  T y = T(1);
  while (n > 0) {
    if (n & 1) y *= x;
    x *= x;
    n >>= 1;
  }
  return y;
}
}  // namespace sf_detail

// The angular factor of the exponential types and its derivative in cos: 2^(1-zeta) (1 + lambda
// cos)^zeta, with zeta_int = zeta where zeta is an integer >= 1 (else -1); zero where n2p2 drops the
// pair (1 + lambda cos <= 0).
template <class T>
QUASAR_HD Fdf<T> exponential_angle(T lambda, T zeta, int zeta_int, T prefactor, T cos) {
  Fdf<T> o;
  const T plambda = T(1) + lambda * cos;
  if (plambda <= T(0)) return o;
  const T pz1 = zeta_int >= 1 ? sf_detail::pow_int(plambda, zeta_int - 1) : sf_math::pow(plambda, zeta - T(1));
  o.f = prefactor * pz1 * plambda;
  o.df = prefactor * zeta * lambda * pz1;
  return o;
}

// The angle window C(theta) of the compact angular types and its derivative in cos; zero outside the
// window and where n2p2 drops the pair (theta at 0 or 180 degrees).
template <class T>
QUASAR_HD Fdf<T> window_angle(const SfParams<T>& p, const PairAngle<T>& angle) {
  Fdf<T> o;
  if (!angle.valid || angle.theta < p.theta_left || angle.theta > p.theta_right) return o;
  const T a = (angle.theta - p.theta_centre) * p.theta_inv_width;
  const Fdf<T> w = core_fdf(p.shape, sf_math::fabs(a));
  o.f = w.f;
  o.df = w.df * sf_math::copysign(p.theta_inv_width, a) * angle.dtheta_dcos;
  return o;
}

// The angular factor of any angular type (`angle` is used by the compact ones only).
template <class T>
QUASAR_HD Fdf<T> angular_factor(const SfParams<T>& p, T cos, const PairAngle<T>& angle) {
  if (sf_compact(p.type)) return window_angle(p, angle);
  return exponential_angle(p.lambda, p.zeta, p.zeta_int, p.prefactor, cos);
}

// The term of the pair {j, k} (unweighted; types 13, 24 and 25 multiply it by Z_j Z_k): the angular
// factor times the function's radial factors R = radial_term(p, r) at rij, rik and, for types 3, 13,
// 21 and 24, at rjk (ignored otherwise); for the exponential types the Gaussian of the sum of squares
// is the product of the three. A caller evaluates R once per neighbour and function, and R(rjk) once
// per pair for functions that share eta, rs and the envelope. Zero where n2p2 drops the pair: a
// distance outside the support, or a zero angular factor. angular_partials gives the term with its
// partial derivatives and no support checks: with factors that are zero outside their supports (as
// radial_term gives them) it is the same; its first form takes the angular factor and the factor at
// r_jk ({1, 0} for the types without one) as they are.
template <class T>
QUASAR_HD AngularPartials<T> angular_partials(Fdf<T> a, Fdf<T> rij, Fdf<T> rik, Fdf<T> rjk) {
  AngularPartials<T> d;
  const T ij_ik = rij.f * rik.f, rr = ij_ik * rjk.f;
  d.value = a.f * rr;
  d.rij = a.f * rij.df * rik.f * rjk.f;
  d.rik = a.f * rij.f * rik.df * rjk.f;
  d.rjk = a.f * ij_ik * rjk.df;
  d.cos = a.df * rr;
  return d;
}
template <class T>
QUASAR_HD AngularPartials<T> angular_partials(const SfParams<T>& p, T cos, const PairAngle<T>& angle, Fdf<T> rij,
                                              Fdf<T> rik, Fdf<T> rjk) {
  if (!sf_uses_rjk(p.type)) rjk = Fdf<T>{T(1), T(0)};
  return angular_partials(angular_factor(p, cos, angle), rij, rik, rjk);
}
template <class T>
QUASAR_HD AngularTerm<T> angular_term(const SfParams<T>& p, const PairGeometry<T>& g, const PairAngle<T>& angle,
                                      Fdf<T> rij, Fdf<T> rik, Fdf<T> rjk) {
  if (!in_support(p, g.rij) || !in_support(p, g.rik)) return AngularTerm<T>{};
  if (sf_uses_rjk(p.type) && !in_support(p, g.rjk)) return AngularTerm<T>{};
  return angular_gradient(g, angular_partials(p, g.cos, angle, rij, rik, rjk));
}

// The same, evaluating the radial factors and the angle itself.
template <class T>
QUASAR_HD AngularTerm<T> angular_term(const SfParams<T>& p, const PairGeometry<T>& g) {
  const PairAngle<T> angle = sf_compact(p.type) ? pair_angle(g) : PairAngle<T>{};
  const Fdf<T> rjk = sf_uses_rjk(p.type) ? radial_term(p, g.rjk) : Fdf<T>{};
  return angular_term(p, g, angle, radial_term(p, g.rij), radial_term(p, g.rik), rjk);
}

}  // namespace quasar::nnp
