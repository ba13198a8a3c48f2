#pragma once
// Block-level sums of per-thread values added into device totals (one atomic per block and value).
#include <cub/block/block_reduce.cuh>

namespace quasar::device {

template <int kBlock, int kValues>
__device__ void block_sum_into(const double (&v)[kValues], double* totals) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  for (int k = 0; k < kValues; ++k) {
    const double s = Reduce(temp).Sum(v[k]);
    if (threadIdx.x == 0) atomicAdd(totals + k, s);
    __syncthreads();
  }
}

}  // namespace quasar::device
