#pragma once
// 64-bit fixed-point sums for deterministic GPU runs. Atomic additions of doubles land in an order
// that varies from run to run, and floating-point addition is not associative, so such sums differ
// in their last bits between runs. Integer addition is associative (and wraps modulo 2^64, so
// partial sums may even leave the range as long as the total comes back into it): a value v added as
// the signed 64-bit integer round(v * scale) gives the same sum in any order. Tinker-HP and Tinker9
// accumulate their GPU forces the same way.
//
// A deterministic evaluation zeroes the double arrays it sums into, adds to them through their bits
// as 64-bit integers (fixed_point.cuh), and converts each array in place once at the end
// (FixedPointSums::finish). Scales are powers of two, so that scaling is exact and only the rounding
// to an integer loses anything: at most half a unit (1 / (2 scale)) per contribution.
#include "quasar/device/array.hpp"
#include "quasar/device/fixed_point_scales.hpp"

namespace quasar::device {

// The status word of one set of fixed-point sums on the GPU (owned by whoever launches the
// kernels; allocated at first use). Defined in fixed_point.cu: call from CUDA builds only.
class FixedPointSums {
 public:
  // Starts a set: zeroes the status word (in stream order) and returns it for the kernels.
  int* start();
  // Turns n sums into doubles in place; with add_to, adds them to add_to[0..n) instead (the sums
  // are left as they were). NaN everywhere when a contribution was out of range.
  void finish(double* sums, long n, double scale, double* add_to = nullptr);

 private:
  Array<int> status_;
};

}  // namespace quasar::device
