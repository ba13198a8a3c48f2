#pragma once
// Block-level sums of per-thread values added into device totals (one atomic per block and value):
// double atomics, or 64-bit fixed point at the totals' scale (fixed_point.hpp) for deterministic
// runs. The sum within a block is CUB's fixed reduction tree, the same every run.
#include <cub/block/block_reduce.cuh>

#include "quasar/device/fixed_point.cuh"

namespace quasar::device {

template <int kBlock, int kValues, class Sum = FloatSum>
__device__ void block_sum_into(const double (&v)[kValues], double* totals, Sum add = {}) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  for (int k = 0; k < kValues; ++k) {
    const double s = Reduce(temp).Sum(v[k]);
    if (threadIdx.x == 0) add(totals + k, s, fixed_scale::kTotal);
    __syncthreads();
  }
}

}  // namespace quasar::device
