#pragma once
// The activation functions DeePMD-kit writes, for the CPU networks and the kernels alike.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar::dp {

enum class Activation { Tanh, Relu, Relu6, Gelu, GeluTf, Softplus, Sigmoid, Silu, Linear };

namespace detail {
QUASAR_HD double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
constexpr double kSqrt2OverPi = 0.7978845608028654;
}  // namespace detail

QUASAR_HD double activate(Activation a, double x) {
  switch (a) {
    case Activation::Tanh: return tanh(x);
    case Activation::Relu: return x > 0 ? x : 0.0;
    case Activation::Relu6: return x < 0 ? 0.0 : (x > 6 ? 6.0 : x);
    case Activation::Gelu:  // DeePMD-kit's gelu is the tanh approximation, as gelu_tf
    case Activation::GeluTf: return 0.5 * x * (1.0 + tanh(detail::kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    case Activation::Softplus: return log1p(exp(-fabs(x))) + (x > 0 ? x : 0.0);
    case Activation::Sigmoid: return detail::sigmoid(x);
    case Activation::Silu: return x * detail::sigmoid(x);
    case Activation::Linear: return x;
  }
  return x;
}

// d act / dx at the pre-activation x.
QUASAR_HD double activate_derivative(Activation a, double x) {
  switch (a) {
    case Activation::Tanh: {
      const double t = tanh(x);
      return 1.0 - t * t;
    }
    case Activation::Relu: return x > 0 ? 1.0 : 0.0;
    case Activation::Relu6: return x > 0 && x < 6 ? 1.0 : 0.0;
    case Activation::Gelu:
    case Activation::GeluTf: {
      const double u = detail::kSqrt2OverPi * (x + 0.044715 * x * x * x);
      const double t = tanh(u);
      return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * detail::kSqrt2OverPi * (1.0 + 3.0 * 0.044715 * x * x);
    }
    case Activation::Softplus: return detail::sigmoid(x);
    case Activation::Sigmoid: {
      const double s = detail::sigmoid(x);
      return s * (1.0 - s);
    }
    case Activation::Silu: {
      const double s = detail::sigmoid(x);
      return s * (1.0 + x * (1.0 - s));
    }
    case Activation::Linear: return 1.0;
  }
  return 1.0;
}

}  // namespace quasar::dp
