#pragma once
// Device side of the fixed-point sums (fixed_point.hpp). Included by .cu files only.
#include <cuda_runtime.h>

#include "quasar/device/fixed_point.hpp"

namespace quasar::device {

// Adds round(v * scale) to the 64-bit integer held in the bits of *sum; a contribution out of range
// (or not finite) marks the set invalid instead (a benign race: every writer writes 1).
__device__ __forceinline__ void fixed_add(double* sum, double v, double scale, int* status) {
  const double s = v * scale;
  if (!(fabs(s) < kFixedContributionLimit)) {
    *status = 1;
    return;
  }
  atomicAdd(reinterpret_cast<unsigned long long*>(sum), static_cast<unsigned long long>(__double2ll_rn(s)));
}

// The value of a fixed-point sum held in the bits of a double.
__device__ __forceinline__ double fixed_value(double bits, double scale) {
  return static_cast<double>(__double_as_longlong(bits)) / scale;
}

// How a kernel adds into sums that other threads add to: double atomics (FloatSum: the order, and so
// the last bits, vary from run to run) or fixed point (FixedSum: the same bits every run). Kernels
// take it as a template argument, so the float path compiles to what it was without the option.
template <bool kFixed>
struct AtomicSum {
  static constexpr bool fixed = kFixed;
  int* status = nullptr;  // fixed point: the set's status word (FixedPointSums::start)
  __device__ __forceinline__ void operator()(double* sum, double v, double scale) const {
    if constexpr (kFixed) fixed_add(sum, v, scale, status);
    else atomicAdd(sum, v);
  }
};
using FloatSum = AtomicSum<false>;
using FixedSum = AtomicSum<true>;

}  // namespace quasar::device
