#pragma once
// A sum that one thread keeps in 64-bit fixed point (fixed_point.hpp says why fixed point): the
// mixed-precision kernels compute their pair and entry terms in float and add each into one of these,
// so that a force or energy summed from thousands of float terms loses nothing to the sum's own
// rounding (each term is rounded once, to the scale's resolution) and its bits do not depend on the
// order of the terms. No atomics: a thread owns its accumulator; QUASAR_HD, so that the CPU tests run
// the same arithmetic. A term that is not finite or is beyond the range (|v scale| >= 2^62) makes
// the value NaN, as floating point would.
#include <cmath>
#include <limits>

#include "quasar/core/hd.hpp"
#include "quasar/device/fixed_point_scales.hpp"

namespace quasar::device {

class FixedAccumulator {
 public:
  explicit QUASAR_HD FixedAccumulator(double scale) : scale_(scale) {}
  QUASAR_HD void add(double v) {
    const double scaled = v * scale_;
    if (!(::fabs(scaled) < kFixedContributionLimit)) {
      valid_ = false;
      return;
    }
#ifdef __CUDA_ARCH__
    bits_ += static_cast<unsigned long long>(__double2ll_rn(scaled));
#else
    bits_ += static_cast<unsigned long long>(std::llrint(scaled));
#endif
  }
  // The sum as a double (exact to the scale's resolution while it stays within range).
  QUASAR_HD double value() const {
    if (!valid_) return std::numeric_limits<double>::quiet_NaN();
    return static_cast<double>(static_cast<long long>(bits_)) / scale_;
  }

 private:
  unsigned long long bits_ = 0;  // unsigned: wraps modulo 2^64 as the integer sums of fixed_point.hpp
  double scale_;
  bool valid_ = true;
};

}  // namespace quasar::device
