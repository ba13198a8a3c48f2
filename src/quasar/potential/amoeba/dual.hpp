#pragma once
// Forward-mode derivatives for the valence terms, on the host and in CUDA kernels (QUASAR_HD): a
// value with its gradient
// with respect to N inputs (the 3 coordinates of each atom of one term), carried through the
// arithmetic so that a term written once as its energy also gives its exact gradient (to
// rounding). N is small (6 for a bond, 18 for a pi-torsion), so that the cost is N times the energy.
// Vectors of duals are quasar::Vec3Of<Dual<N>>.
#include <cmath>

#include "quasar/core/hd.hpp"
#include "quasar/core/vec3_of.hpp"

namespace quasar::amoeba {

template <int N>
struct Dual {
  double v = 0;
  double d[N] = {};  // a plain array: usable in device code

  QUASAR_HD Dual() {}
  QUASAR_HD Dual(double value) : v(value) {}  // a constant (implicit: constants mix into expressions)
  QUASAR_HD static Dual variable(double value, int k) {
    Dual x(value);
    x.d[k] = 1;
    return x;
  }
  // Chain rule: f(v) with f'(v) = slope.
  QUASAR_HD Dual apply(double value, double slope) const {
    Dual r(value);
    for (int k = 0; k < N; ++k) r.d[k] = slope * d[k];
    return r;
  }
};

template <int N>
QUASAR_HD Dual<N> operator+(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v + b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
  return r;
}
template <int N>
QUASAR_HD Dual<N> operator-(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v - b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
  return r;
}
template <int N>
QUASAR_HD Dual<N> operator-(const Dual<N>& a) {
  return a.apply(-a.v, -1);
}
template <int N>
QUASAR_HD Dual<N> operator*(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v * b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
template <int N>
QUASAR_HD Dual<N> operator/(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v / b.v);
  for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) / b.v;
  return r;
}
template <int N>
QUASAR_HD Dual<N> operator*(double s, const Dual<N>& a) {
  return a.apply(s * a.v, s);
}
template <int N>
QUASAR_HD Dual<N> operator+(const Dual<N>& a, double s) {
  return a.apply(a.v + s, 1);
}
template <int N>
QUASAR_HD Dual<N> operator-(const Dual<N>& a, double s) {
  return a.apply(a.v - s, 1);
}
template <int N>
QUASAR_HD Dual<N> operator+(double s, const Dual<N>& a) {
  return a.apply(s + a.v, 1);
}
template <int N>
QUASAR_HD Dual<N> operator-(double s, const Dual<N>& a) {
  return a.apply(s - a.v, -1);
}
template <int N>
QUASAR_HD Dual<N> operator*(const Dual<N>& a, double s) {
  return a.apply(a.v * s, s);
}
template <int N>
QUASAR_HD Dual<N> sqrt(const Dual<N>& a) {
  const double s = ::sqrt(a.v);
  return a.apply(s, s > 0 ? 0.5 / s : 0.0);
}
template <int N>
QUASAR_HD Dual<N> cos(const Dual<N>& a) {
  return a.apply(::cos(a.v), -::sin(a.v));
}
template <int N>
QUASAR_HD Dual<N> abs(const Dual<N>& a) {
  return a.apply(::fabs(a.v), a.v > 0 ? 1.0 : a.v < 0 ? -1.0 : 0.0);
}
template <int N>
QUASAR_HD Dual<N> atan2(const Dual<N>& y, const Dual<N>& x) {
  const double r2 = x.v * x.v + y.v * y.v;
  Dual<N> r(::atan2(y.v, x.v));
  if (r2 > 0)
    for (int k = 0; k < N; ++k) r.d[k] = (x.v * y.d[k] - y.v * x.d[k]) / r2;
  return r;
}

}  // namespace quasar::amoeba
