#pragma once
// Activation functions of the networks (every one DeePMD-kit writes, and n2p2's letters), for CPU
// networks and kernels alike.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar::nn {

// The last five are n2p2's g (Gaussian exp(-x^2/2)), c (cos), S (1 - logistic), e (exp(-x)) and
// h (x^2); its l, t, s, p, r are Linear, Tanh, Sigmoid, Softplus and Relu.
enum class Activation { Tanh, Relu, Relu6, Gelu, GeluTf, Softplus, Sigmoid, Silu, Linear,
                        Gaussian, Cos, ReverseSigmoid, ExpNeg, Square };

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
    case Activation::Gaussian: return exp(T(-0.5) * x * x);
    case Activation::Cos: return cos(x);
    case Activation::ReverseSigmoid: return T(1) - detail::sigmoid(x);
    case Activation::ExpNeg: return exp(-x);
    case Activation::Square: return x * x;
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
    case Activation::Gaussian: return -x * exp(T(-0.5) * x * x);
    case Activation::Cos: return -sin(x);
    case Activation::ReverseSigmoid: {
      const T s = detail::sigmoid(x);
      return s * (s - one);
    }
    case Activation::ExpNeg: return -exp(-x);
    case Activation::Square: return T(2) * x;
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

// d2 act / dx2 (the force terms of training and the tabulated embedding need it).
QUASAR_HD double activate_second_derivative(Activation a, double x) {
  switch (a) {
    case Activation::Tanh: {
      const double t = tanh(x);
      return -2.0 * t * (1.0 - t * t);
    }
    case Activation::Relu:
    case Activation::Relu6:
    case Activation::Linear: return 0.0;
    case Activation::Gelu:
    case Activation::GeluTf: {
      // f = x (1 + tanh u) / 2 with u = c (x + k x^3).
      const double c = detail::kSqrt2OverPi, k = 0.044715;
      const double t = tanh(c * (x + k * x * x * x)), s = 1.0 - t * t;
      const double du = c * (1.0 + 3.0 * k * x * x), d2u = 6.0 * c * k * x;
      return s * du + 0.5 * x * s * (d2u - 2.0 * t * du * du);
    }
    case Activation::Softplus: {
      const double s = detail::sigmoid(x);
      return s * (1.0 - s);
    }
    case Activation::Sigmoid: {
      const double s = detail::sigmoid(x);
      return s * (1.0 - s) * (1.0 - 2.0 * s);
    }
    case Activation::Silu: {
      const double s = detail::sigmoid(x);
      return s * (1.0 - s) * (2.0 + x * (1.0 - 2.0 * s));
    }
    case Activation::Gaussian: return (x * x - 1.0) * exp(-0.5 * x * x);
    case Activation::Cos: return -cos(x);
    case Activation::ReverseSigmoid: {
      const double s = detail::sigmoid(x);
      return s * (1.0 - s) * (2.0 * s - 1.0);
    }
    case Activation::ExpNeg: return exp(-x);
    case Activation::Square: return 2.0;
  }
  return 0.0;
}

}  // namespace quasar::nn
