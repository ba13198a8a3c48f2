#pragma once
// Forward-mode derivatives for the analytic surfaces: a Jet<N, Order> carries a value, its gradient
// with respect to N inputs and (Order 2) its N x N Hessian through every arithmetic operation and
// elementary function, by the chain rule. A surface written once as a template over its scalar
// type thus gives its energy (double), its exact gradient (Jet<N, 1>) and its exact Hessian
// (Jet<N, 2>) from the same expressions: no derivative is written by hand, and none is a finite
// difference. Branches look at values only, as the surfaces' own definitions do.
#include <array>
#include <cmath>

namespace quasar::surfaces {

template <int N, int Order>
struct Jet {
  static_assert(Order == 1 || Order == 2, "Jet: first or second derivatives");
  static constexpr int kHessian = Order == 2 ? N * N : 0;

  double v = 0;
  std::array<double, N> g{};
  std::array<double, kHessian> h{};

  Jet() = default;
  Jet(double value) : v(value) {}  // NOLINT: constants mix freely with jets
  // The input k of N with value `value`.
  static Jet variable(double value, int k) {
    Jet j(value);
    j.g[k] = 1;
    return j;
  }
};

// f(a) with f' = d1 and f'' = d2 at a.v.
template <int N, int O>
Jet<N, O> chain(const Jet<N, O>& a, double value, double d1, double d2) {
  Jet<N, O> r(value);
  for (int i = 0; i < N; ++i) r.g[i] = d1 * a.g[i];
  if constexpr (O == 2)
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < N; ++k) r.h[i * N + k] = d1 * a.h[i * N + k] + d2 * a.g[i] * a.g[k];
  return r;
}

template <int N, int O>
Jet<N, O> operator+(const Jet<N, O>& a, const Jet<N, O>& b) {
  Jet<N, O> r(a.v + b.v);
  for (int i = 0; i < N; ++i) r.g[i] = a.g[i] + b.g[i];
  for (int i = 0; i < Jet<N, O>::kHessian; ++i) r.h[i] = a.h[i] + b.h[i];
  return r;
}
template <int N, int O>
Jet<N, O> operator-(const Jet<N, O>& a) {
  Jet<N, O> r(-a.v);
  for (int i = 0; i < N; ++i) r.g[i] = -a.g[i];
  for (int i = 0; i < Jet<N, O>::kHessian; ++i) r.h[i] = -a.h[i];
  return r;
}
template <int N, int O>
Jet<N, O> operator-(const Jet<N, O>& a, const Jet<N, O>& b) {
  return a + (-b);
}
template <int N, int O>
Jet<N, O> operator*(const Jet<N, O>& a, const Jet<N, O>& b) {
  Jet<N, O> r(a.v * b.v);
  for (int i = 0; i < N; ++i) r.g[i] = a.g[i] * b.v + a.v * b.g[i];
  if constexpr (O == 2)
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < N; ++k)
        r.h[i * N + k] = a.h[i * N + k] * b.v + a.v * b.h[i * N + k] + a.g[i] * b.g[k] + b.g[i] * a.g[k];
  return r;
}
template <int N, int O>
Jet<N, O> operator*(double s, const Jet<N, O>& a) {
  Jet<N, O> r(s * a.v);
  for (int i = 0; i < N; ++i) r.g[i] = s * a.g[i];
  for (int i = 0; i < Jet<N, O>::kHessian; ++i) r.h[i] = s * a.h[i];
  return r;
}
template <int N, int O>
Jet<N, O> operator*(const Jet<N, O>& a, double s) {
  return s * a;
}
template <int N, int O>
Jet<N, O> operator+(const Jet<N, O>& a, double s) {
  Jet<N, O> r = a;
  r.v += s;
  return r;
}
template <int N, int O>
Jet<N, O> operator+(double s, const Jet<N, O>& a) {
  return a + s;
}
template <int N, int O>
Jet<N, O> operator-(const Jet<N, O>& a, double s) {
  return a + (-s);
}
template <int N, int O>
Jet<N, O> operator-(double s, const Jet<N, O>& a) {
  return (-a) + s;
}
template <int N, int O>
Jet<N, O> reciprocal(const Jet<N, O>& a) {
  const double inv = 1.0 / a.v;
  return chain(a, inv, -inv * inv, 2 * inv * inv * inv);
}
template <int N, int O>
Jet<N, O> operator/(const Jet<N, O>& a, const Jet<N, O>& b) {
  return a * reciprocal(b);
}
template <int N, int O>
Jet<N, O> operator/(const Jet<N, O>& a, double s) {
  return (1.0 / s) * a;
}
template <int N, int O>
Jet<N, O> operator/(double s, const Jet<N, O>& a) {
  return s * reciprocal(a);
}
template <int N, int O>
Jet<N, O>& operator+=(Jet<N, O>& a, const Jet<N, O>& b) {
  return a = a + b;
}

template <int N, int O>
Jet<N, O> exp(const Jet<N, O>& a) {
  const double e = std::exp(a.v);
  return chain(a, e, e, e);
}
template <int N, int O>
Jet<N, O> sqrt(const Jet<N, O>& a) {
  const double s = std::sqrt(a.v);
  return chain(a, s, 0.5 / s, -0.25 / (s * a.v));
}
template <int N, int O>
Jet<N, O> tanh(const Jet<N, O>& a) {
  const double t = std::tanh(a.v), sech2 = 1 - t * t;
  return chain(a, t, sech2, -2 * t * sech2);
}
template <int N, int O>
Jet<N, O> acos(const Jet<N, O>& a) {
  const double q = 1 - a.v * a.v, d1 = -1 / std::sqrt(q);
  return chain(a, std::acos(a.v), d1, d1 * a.v / q);
}

// The value of a double or a jet, for branches.
inline double value_of(double x) { return x; }
template <int N, int O>
double value_of(const Jet<N, O>& a) {
  return a.v;
}

}  // namespace quasar::surfaces
