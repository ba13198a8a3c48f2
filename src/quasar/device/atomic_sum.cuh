#pragma once
// How kernels add into sums that other threads add to (fixed_point.hpp says why fixed point): it
// needs nothing but the CUDA built-ins, so that kernels compiled at run time (runtime_kernels.hpp)
// include it too.
#include "quasar/device/fixed_point_scales.hpp"

namespace quasar::device {

// round(v * scale) as the bits of a 64-bit integer; a contribution out of range (or not finite)
// marks the set invalid instead and counts as 0 (a benign race: every writer writes 1).
__device__ __forceinline__ unsigned long long fixed_value(double v, double scale, int* status) {
  const double s = v * scale;
  if (!(fabs(s) < kFixedContributionLimit)) {
    *status = 1;
    return 0;
  }
  return static_cast<unsigned long long>(__double2ll_rn(s));
}

// Adds round(v * scale) to the 64-bit integer held in the bits of *sum (see fixed_value).
__device__ __forceinline__ void fixed_add(double* sum, double v, double scale, int* status) {
  atomicAdd(reinterpret_cast<unsigned long long*>(sum), fixed_value(v, scale, status));
}

// Double atomics (FloatSum: the order, and so the last bits, vary from run to run) or fixed point
// (FixedSum: the same bits every run). Kernels take it as a template argument, so the float path
// compiles to what it was without the option.
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

// Sums kValues values over a block of kBlock threads (a multiple of 32) in a fixed order; thread k
// of the block then calls emit(k, sum of value k). `shared` holds kBlock / 32 * kValues doubles.
template <int kBlock, int kValues, class Emit>
__device__ void block_sum(const double (&v)[kValues], double* shared, Emit emit) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = 0; k < kValues; ++k) {
    double s = v[k];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) shared[warp * kValues + k] = s;
  }
  __syncthreads();
  if (threadIdx.x < kValues) {
    double s = 0;
    for (int w = 0; w < kBlock / 32; ++w) s += shared[w * kValues + threadIdx.x];
    emit(static_cast<int>(threadIdx.x), s);
  }
  __syncthreads();
}

}  // namespace quasar::device
