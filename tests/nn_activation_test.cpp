// Activation functions of the nn module: the values of n2p2's letters against their closed forms,
// and the first and second derivatives of every activation against central differences.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "quasar/nn/activation.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using nn::Activation;

const std::vector<Activation> kAll = {
    Activation::Tanh,    Activation::Relu,     Activation::Relu6,  Activation::Gelu,
    Activation::GeluTf,  Activation::Softplus, Activation::Sigmoid, Activation::Silu,
    Activation::Linear,  Activation::Gaussian, Activation::Cos,     Activation::ReverseSigmoid,
    Activation::ExpNeg,  Activation::Square};

TEST(NnActivation, N2p2LettersHaveTheirClosedForms) {
  test::MaxError err("n2p2 activation values");
  for (double x : {-3.1, -0.7, 0.0, 0.4, 2.5}) {
    err.add(nn::activate(Activation::Gaussian, x), std::exp(-x * x / 2));
    err.add(nn::activate(Activation::Cos, x), std::cos(x));
    err.add(nn::activate(Activation::ReverseSigmoid, x), std::exp(-x) / (1 + std::exp(-x)));
    err.add(nn::activate(Activation::ExpNeg, x), std::exp(-x));
    err.add(nn::activate(Activation::Square, x), x * x);
    err.add(nn::activate(Activation::Softplus, x), std::log(1 + std::exp(x)));
    err.add(nn::activate(Activation::Sigmoid, x), 1 / (1 + std::exp(-x)));
  }
  EXPECT_TRUE(err.within(1e-15));  // measured 1.1e-16
}

// Kinks (relu at 0, relu6 at 0 and 6) are avoided by the sample points.
TEST(NnActivation, DerivativesMatchCentralDifferences) {
  test::MaxError first("first derivatives"), second("second derivatives");
  const double h = 1e-5;
  for (Activation a : kAll) {
    for (double x : {-3.1, -0.7, 0.3, 1.9, 4.2}) {
      const double d1 = (nn::activate(a, x + h) - nn::activate(a, x - h)) / (2 * h);
      const double d2 =
          (nn::activate_derivative(a, x + h) - nn::activate_derivative(a, x - h)) / (2 * h);
      first.add(nn::activate_derivative(a, x), d1);
      second.add(nn::activate_second_derivative(a, x), d2);
      double y = 0, dy = 0;
      nn::activate_both(a, x, y, dy);
      EXPECT_EQ(y, nn::activate(a, x));
      EXPECT_NEAR(dy, nn::activate_derivative(a, x), 1e-15);
    }
  }
  EXPECT_TRUE(first.within(1e-9));   // measured 4.7e-10 (truncation h^2 and rounding 1e-16/h)
  EXPECT_TRUE(second.within(1e-9));  // measured 4.7e-10
}

}  // namespace
}  // namespace quasar
