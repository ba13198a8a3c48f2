#pragma once
// The sums of the valence and van der Waals kernels in either GPU precision, so that one kernel
// source serves both: in double mode a plain double sum (the same additions, in the same order, as
// before the mixed mode existed); in mixed mode a 64-bit fixed-point sum (device::FixedAccumulator),
// whose bits do not depend on the order of its terms. QUASAR_HD: the CPU tests run it too.
#include <type_traits>

#include "quasar/core/hd.hpp"
#include "quasar/device/fixed_accumulator.hpp"

namespace quasar::amoeba {

// A thread's sum in double mode: a plain double, added in the order of the terms; the scale is
// ignored.
class PlainSum {
 public:
  QUASAR_HD PlainSum() = default;
  explicit QUASAR_HD PlainSum(double /*scale*/) {}
  QUASAR_HD void add(double v) { sum_ += v; }
  QUASAR_HD double value() const { return sum_; }

 private:
  double sum_ = 0;
};

template <bool kFixed>
using MixedSum = std::conditional_t<kFixed, device::FixedAccumulator, PlainSum>;

// The arithmetic type of an entry or a pair in each mode.
template <bool kMixed>
using MixedScalar = std::conditional_t<kMixed, float, double>;

}  // namespace quasar::amoeba
