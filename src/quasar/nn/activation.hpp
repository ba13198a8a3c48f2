#pragma once
// Activation functions of the networks (every one DeePMD-kit writes), for CPU networks and kernels alike.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar::nn {

enum class Activation { Tanh, Relu, Relu6, Gelu, GeluTf, Softplus, Sigmoid, Silu, Linear };

// Templates on the floating type so that the float kernels stay in float (tanhf etc.).
namespace detail {
template <class T>
QUASAR_HD T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }
constexpr double kSqrt2OverPi = 0.7978845608028654;
}  // namespace detail

template <class T>
QUASAR_HD T activate(Activation a, T x) {
  const T c = T(detail::kSqrt2OverPi), zero = T(0);
  switch (a) {
    case Activation::Tanh: return tanh(x);
    case Activation::Relu: return x > zero ? x : zero;
    case Activation::Relu6: return x < zero ? zero : (x > T(6) ? T(6) : x);
    case Activation::Gelu:  // DeePMD-kit's gelu is the tanh approximation, as gelu_tf
    case Activation::GeluTf: return T(0.5) * x * (T(1) + tanh(c * (x + T(0.044715) * x * x * x)));
    case Activation::Softplus: return log1p(exp(-fabs(x))) + (x > zero ? x : zero);
    case Activation::Sigmoid: return detail::sigmoid(x);
    case Activation::Silu: return x * detail::sigmoid(x);
    case Activation::Linear: return x;
  }
  return x;
}

// d act / dx at the pre-activation x.
template <class T>
QUASAR_HD T activate_derivative(Activation a, T x) {
  const T one = T(1), zero = T(0);
  switch (a) {
    case Activation::Tanh: {
      const T t = tanh(x);
      return one - t * t;
    }
    case Activation::Relu: return x > zero ? one : zero;
    case Activation::Relu6: return x > zero && x < T(6) ? one : zero;
    case Activation::Gelu:
    case Activation::GeluTf: {
      const T c = T(detail::kSqrt2OverPi);
      const T t = tanh(c * (x + T(0.044715) * x * x * x));
      return T(0.5) * (one + t) + T(0.5) * x * (one - t * t) * c * (one + T(3 * 0.044715) * x * x);
    }
    case Activation::Softplus: return detail::sigmoid(x);
    case Activation::Sigmoid: {
      const T s = detail::sigmoid(x);
      return s * (one - s);
    }
    case Activation::Silu: {
      const T s = detail::sigmoid(x);
      return s * (one + x * (one - s));
    }
    case Activation::Linear: return one;
  }
  return one;
}

// act and act' at x together (tanh once for both).
template <class T>
QUASAR_HD void activate_both(Activation a, T x, T& y, T& dy) {
  if (a == Activation::Tanh) {
    y = tanh(x);
    dy = T(1) - y * y;
  } else {
    y = activate(a, x);
    dy = activate_derivative(a, x);
  }
}

// d2 act / dx2, for the tabulated embedding (analytic for tanh, a central difference otherwise).
QUASAR_HD double activate_second_derivative(Activation a, double x) {
  if (a == Activation::Tanh) {
    const double t = tanh(x);
    return -2.0 * t * (1.0 - t * t);
  }
  const double h = 1e-5 * (1.0 + fabs(x));
  return (activate_derivative(a, x + h) - activate_derivative(a, x - h)) / (2 * h);
}

}  // namespace quasar::nn
