// The per-thread fixed-point sum of the mixed-precision kernels (device/fixed_accumulator.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "quasar/device/fixed_accumulator.hpp"

namespace quasar::device {
namespace {

TEST(FixedAccumulator, SumsToTheScalesResolutionInAnyOrder) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> value(-50, 50);
  std::vector<double> terms(10000);
  for (double& t : terms) t = value(random);
  long double exact = 0;
  for (double t : terms) exact += t;
  FixedAccumulator forward(fixed_scale::kForce), shuffled(fixed_scale::kForce);
  for (double t : terms) forward.add(t);
  std::shuffle(terms.begin(), terms.end(), random);
  for (double t : terms) shuffled.add(t);
  EXPECT_EQ(forward.value(), shuffled.value());  // integer sums: the same bits in any order
  // Each term rounds by at most half a unit of 2^-40.
  EXPECT_NEAR(forward.value(), static_cast<double>(exact), terms.size() * 0x1p-41 + 1e-12);
}

TEST(FixedAccumulator, PartialSumsMayLeaveTheRangeWhenTheTotalComesBack) {
  FixedAccumulator sum(fixed_scale::kForce);
  for (int k = 0; k < 4; ++k) sum.add(3e6);  // 1.2e7 is beyond 2^23 eV/Å: wraps
  for (int k = 0; k < 4; ++k) sum.add(-3e6 + 0.25);
  EXPECT_EQ(sum.value(), 1.0);
}

TEST(FixedAccumulator, ANonFiniteOrHugeTermMakesTheSumNaN) {
  FixedAccumulator nan(fixed_scale::kForce), huge(fixed_scale::kForce);
  nan.add(1);
  nan.add(std::nan(""));
  huge.add(1e10);  // 1e10 * 2^40 > 2^62
  EXPECT_TRUE(std::isnan(nan.value()));
  EXPECT_TRUE(std::isnan(huge.value()));
}

}  // namespace
}  // namespace quasar::device
