#pragma once
// Device side of the fixed-point sums (fixed_point.hpp). Included by .cu files only.
#include <cuda_runtime.h>

#include "quasar/device/atomic_sum.cuh"
#include "quasar/device/fixed_point.hpp"

namespace quasar::device {

// The value of a fixed-point sum held in the bits of a double.
__device__ __forceinline__ double fixed_value(double bits, double scale) {
  return static_cast<double>(__double_as_longlong(bits)) / scale;
}

}  // namespace quasar::device
