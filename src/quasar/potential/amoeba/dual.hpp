#pragma once
// Forward-mode derivatives for the valence terms, on the host and in CUDA kernels (QUASAR_HD): a
// value with its gradient
// with respect to N inputs (the 3 coordinates of each atom of one term), carried through the
// arithmetic so that a term written once as its energy also gives its exact gradient (to
// rounding). N is small (6 for a bond, 18 for a pi-torsion), so that the cost is N times the energy.
// Vectors of duals are quasar::Vec3Of<Dual<N>>. The scalar S is double (the CPU reference and the
// GPU's double mode) or float (the GPU's mixed mode): constants given as doubles are rounded to S
// first, so that float duals compute in float throughout; for double every cast is the identity and
// the arithmetic is the same as without S.
#include <cmath>

#include "quasar/core/hd.hpp"
#include "quasar/core/vec3_of.hpp"
#include "quasar/potential/amoeba/scalar_math.hpp"

namespace quasar::amoeba {


template <int N, class S = double>
struct Dual {
  using Scalar = S;
  S v = 0;
  S d[N] = {};  // a plain array: usable in device code

  QUASAR_HD Dual() {}
  // A constant (implicit: constants mix into expressions), rounded to S.
  QUASAR_HD Dual(double value) : v(static_cast<S>(value)) {}
  QUASAR_HD static Dual variable(double value, int k) {
    Dual x(value);
    x.d[k] = 1;
    return x;
  }
  // Chain rule: f(v) with f'(v) = slope.
  QUASAR_HD Dual apply(S value, S slope) const {
    Dual r(value);
    for (int k = 0; k < N; ++k) r.d[k] = slope * d[k];
    return r;
  }
};

template <int N, class S>
QUASAR_HD Dual<N, S> operator+(const Dual<N, S>& a, const Dual<N, S>& b) {
  Dual<N, S> r(a.v + b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
  return r;
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator-(const Dual<N, S>& a, const Dual<N, S>& b) {
  Dual<N, S> r(a.v - b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
  return r;
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator-(const Dual<N, S>& a) {
  return a.apply(-a.v, -1);
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator*(const Dual<N, S>& a, const Dual<N, S>& b) {
  Dual<N, S> r(a.v * b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator/(const Dual<N, S>& a, const Dual<N, S>& b) {
  Dual<N, S> r(a.v / b.v);
  for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) / b.v;
  return r;
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator*(double s, const Dual<N, S>& a) {
  const S c = static_cast<S>(s);
  return a.apply(c * a.v, c);
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator+(const Dual<N, S>& a, double s) {
  return a.apply(a.v + static_cast<S>(s), 1);
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator-(const Dual<N, S>& a, double s) {
  return a.apply(a.v - static_cast<S>(s), 1);
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator+(double s, const Dual<N, S>& a) {
  return a.apply(static_cast<S>(s) + a.v, 1);
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator-(double s, const Dual<N, S>& a) {
  return a.apply(static_cast<S>(s) - a.v, -1);
}
template <int N, class S>
QUASAR_HD Dual<N, S> operator*(const Dual<N, S>& a, double s) {
  const S c = static_cast<S>(s);
  return a.apply(a.v * c, c);
}
template <int N, class S>
QUASAR_HD Dual<N, S> sqrt(const Dual<N, S>& a) {
  const S s = sqrt_of(a.v);
  return a.apply(s, s > 0 ? S(0.5) / s : S(0));
}
template <int N, class S>
QUASAR_HD Dual<N, S> cos(const Dual<N, S>& a) {
  return a.apply(cos_of(a.v), -sin_of(a.v));
}
template <int N, class S>
QUASAR_HD Dual<N, S> abs(const Dual<N, S>& a) {
  return a.apply(fabs_of(a.v), a.v > 0 ? S(1) : a.v < 0 ? S(-1) : S(0));
}
template <int N, class S>
QUASAR_HD Dual<N, S> atan2(const Dual<N, S>& y, const Dual<N, S>& x) {
  const S r2 = x.v * x.v + y.v * y.v;
  Dual<N, S> r;
  r.v = atan2_of(y.v, x.v);
  if (r2 > 0)
    for (int k = 0; k < N; ++k) r.d[k] = (x.v * y.d[k] - y.v * x.d[k]) / r2;
  return r;
}

}  // namespace quasar::amoeba
